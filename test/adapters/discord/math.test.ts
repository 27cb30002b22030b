/**
 * Math on the Discord fake through Discord's port: a display formula posts a PNG whose
 * multipart attachment's description is its TeX, quiz choices holding math are drawn
 * lettered in one picture with letter-only buttons, bad TeX and prices stay text.
 */

import { Client } from "discord.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscordPort } from "../../../src/adapters/discord/port.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { discordMessageText } from "../../../src/render/index.ts";
import { type FakeDiscord, messageControls, startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { explain, mathQuiz, PNG_MAGIC, prepared, QUADRATIC } from "../../fixtures/math-cards.ts";

describe("math cards on the Discord fake", { timeout: 30_000 }, () => {
	let fake: FakeDiscord;
	let client: Client;
	let port: ReturnType<typeof createDiscordPort>;
	let threadId = "";
	const posts = () => fake.calls.filter((c) => c.method === "POST" && c.path.endsWith("/messages"));

	beforeAll(async () => {
		fake = await startFakeDiscord();
		client = new Client({ intents: [], rest: { api: fake.apiUrl } });
		client.rest.setToken(fake.token);
		port = createDiscordPort(client, silentLogger);
		threadId = port.encodeThreadId({ guildId: fake.guild.id, threadId: fake.ids.thread });
	});
	afterAll(async () => {
		await client.destroy();
		await fake.close();
	});

	it("an explain with a display formula posts a PNG whose description is the TeX; the text keeps it as code", async () => {
		const before = posts().length;
		const ids = await port.postCard(threadId, await prepared(explain(`The roots are:\n\n$$${QUADRATIC}$$\n\nTry it.`)));
		expect(ids).toHaveLength(1);
		const [call] = posts().slice(before);
		const body = call!.body as { content: string; attachments: Array<{ filename: string; description: string }> };
		expect(body.attachments).toEqual([{ id: 0, filename: "math-1.png", description: QUADRATIC }]);
		expect(call!.files).toHaveLength(1);
		expect(Buffer.from(call!.files[0]!.data).subarray(0, 8).toString("hex")).toBe(PNG_MAGIC);
		expect(discordMessageText(body)).toContain(`\`${QUADRATIC}\``);
		expect(discordMessageText(body)).not.toContain("$$");
		expect(fake.problems()).toEqual([]);
	});

	it("a quiz whose options hold math shows them lettered in a picture, the buttons carry letters only", async () => {
		const before = posts().length;
		await port.postCard(threadId, await prepared(mathQuiz));
		const [call] = posts().slice(before);
		const body = call!.body as {
			attachments: Array<{ filename: string; description: string }>;
			components: Array<{ components: Array<{ label: string }> }>;
		};
		const labels = messageControls(body).map((c) => c.label);
		expect(labels).toEqual(["A", "B", "C", "💡 Hint", "🔄 Explain another way", "🤷 Not sure"]);
		const choices = body.attachments.find((a) => a.filename.startsWith("choices"));
		expect(choices?.description).toBe(String.raw`A. $3x^2$ B. $\frac{x^4}{4}$ C. $3x$`);
		// The question's own formula is a picture too.
		expect(body.attachments.map((a) => a.description)).toContain("x^3");
		expect(call!.files.every((f) => Buffer.from(f.data).subarray(0, 8).toString("hex") === PNG_MAGIC)).toBe(true);
	});

	it("bad TeX falls back to a code span, and prices are not math: no attachment, no error", async () => {
		const before = posts().length;
		await port.postCard(threadId, await prepared(explain(String.raw`Broken: $$\frac{a$$ and it costs $5 and $10.`)));
		const [call] = posts().slice(before);
		const body = call!.body as { content: string; attachments?: unknown[] };
		expect(body.attachments ?? []).toEqual([]);
		expect(call!.files).toEqual([]);
		expect(discordMessageText(body)).toContain("`\\frac{a`");
		expect(discordMessageText(body)).toContain("costs $5 and $10.");
	});

	it("finds a question's card among the thread's newest messages by its controls", async () => {
		const ids = await port.postCard(threadId, await prepared({ ...mathQuiz, toolCallId: "q-left" } as TutorEvent));
		await port.postCard(threadId, await prepared(explain("Something after it.")));
		expect(ids).toHaveLength(1);
		expect(await port.findCard?.(threadId, "q-left")).toEqual(ids);
		expect(await port.findCard?.(threadId, "never-asked")).toEqual([]);
		const reads = fake.calls.filter((c) => c.method === "GET" && c.path.endsWith("/messages"));
		expect(reads.at(-1)?.query.limit).toBe("100");
	});
});
