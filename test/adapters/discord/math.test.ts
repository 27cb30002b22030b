/**
 * Math through Discord's port, as Discord carries it: a formula's PNG goes as a multipart
 * attachment whose `attachments[]` entry describes it with its TeX; a question's card is
 * found among the thread's newest messages. What a learner sees of math on every platform:
 * contract/math.test.ts.
 */

import { Client } from "discord.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscordPort } from "../../../src/adapters/discord/port.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { type FakeDiscord, startFakeDiscord } from "../../../testkit/fakes/discord.ts";
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

	it("an explain's formula goes as one multipart file, math-1.png, described by its TeX", async () => {
		const before = posts().length;
		const ids = await port.postCard(threadId, await prepared(explain(`The roots are:\n\n$$${QUADRATIC}$$\n\nTry it.`)));
		expect(ids).toHaveLength(1);
		const [call] = posts().slice(before);
		const body = call!.body as { attachments: Array<{ filename: string; description: string }> };
		expect(body.attachments).toEqual([{ id: 0, filename: "math-1.png", description: QUADRATIC }]);
		expect(call!.files).toHaveLength(1);
		expect(Buffer.from(call!.files[0]!.data).subarray(0, 8).toString("hex")).toBe(PNG_MAGIC);
		expect(fake.problems()).toEqual([]);
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
