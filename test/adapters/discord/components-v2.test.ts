/**
 * Components V2 cards on the Discord fake through Discord's port and the real discord.js REST client:
 * every card goes with the IS_COMPONENTS_V2 flag, no content, at most 40 components, pictures inside the
 * card as a media gallery with their alt text; the answered state is an edit in place that keeps the flag;
 * and the fake refuses what Discord refuses (content with the flag, more than 40 components, over 4,000
 * characters of text, the flag removed by an edit, a reference to a file not uploaded, a duplicated id).
 */

import { Client, DiscordAPIError, Routes } from "discord.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscordPort } from "../../../src/adapters/discord/port.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { ACCENT, countComponents, type QuestionCard } from "../../../src/render/index.ts";
import { type FakeDiscord, messageControls, startFakeDiscord } from "../../../testkit/fakes/discord.ts";

const V2 = 1 << 15;
const quiz: QuestionCard = {
	kind: "question",
	toolCallId: "q1",
	source: "quiz",
	heading: "Check",
	question: "What is 1/2 + 1/4?",
	choices: ["1/4", "3/4", "2/6"].map((text, index) => ({ index, letter: "ABC"[index]!, text })),
	help: ["hint", "explain", "not-sure"],
	attachments: [
		{ kind: "image", filename: "math-1.png", data: Buffer.from("png"), alt: "\\frac12", width: 10, height: 10 },
	],
};

describe("Components V2 cards on the Discord fake", { timeout: 30_000 }, () => {
	let fake: FakeDiscord;
	let client: Client;
	let port: ReturnType<typeof createDiscordPort>;
	let threadId = "";
	const text = (n: number) => ({ type: 10, content: "x".repeat(n) });
	const post = (body: unknown, files?: Array<{ name: string; data: Buffer }>) =>
		client.rest.post(Routes.channelMessages(fake.ids.thread), { body, ...(files ? { files } : {}) });

	beforeAll(async () => {
		fake = await startFakeDiscord();
		client = new Client({ intents: [], rest: { api: fake.apiUrl, retries: 0 } });
		client.rest.setToken(fake.token);
		port = createDiscordPort(client, silentLogger);
		threadId = port.encodeThreadId({ guildId: fake.guild.id, threadId: fake.ids.thread });
	});
	afterAll(async () => {
		await client.destroy();
		await fake.close();
	});

	it("posts a card with the V2 flag, no content, at most 40 components, the picture inside with its alt text", async () => {
		const [id] = await port.postCard(threadId, quiz);
		const call = fake.calls.find((c) => c.method === "POST" && c.path.endsWith("/messages"))!;
		const body = call.body as { flags: number; content?: unknown; components: unknown[] };
		expect(body.flags & V2).toBe(V2);
		expect(body.content).toBeUndefined();
		expect(countComponents(body.components)).toBeLessThanOrEqual(40);
		const [frame] = body.components as Array<{
			type: number;
			accent_color: number;
			components: Array<{ type: number }>;
		}>;
		expect(frame?.type).toBe(17);
		expect(frame?.accent_color).toBe(ACCENT.current);
		expect(JSON.stringify(frame)).toContain('"media":{"url":"attachment://math-1.png"},"description":"\\\\frac12"');
		expect(messageControls(body).map((c) => c.custom_id)).toContain("lh:pick:q1:1");
		expect(fake.messages.get(id!)?.text).toContain("What is 1/2 + 1/4?");
		expect(fake.problems()).toEqual([]);

		// The answered state in place: the same message, the flag kept, no content, controls disabled, green.
		const ok = await port.editCard(threadId, [id!], {
			kind: "answered",
			toolCallId: "q1",
			source: "quiz",
			heading: "Check",
			question: quiz.question,
			choices: quiz.choices,
			chosenIndex: 1,
			answer: "3/4",
			by: { id: fake.users.learner.id, name: "bob" },
			correct: true,
			quizType: "check",
		});
		expect(ok).toBe(true);
		const edit = fake.calls.find((c) => c.method === "PATCH")!.body as { flags: number; content?: unknown };
		expect(edit.flags & V2).toBe(V2);
		expect(edit.content).toBeUndefined();
		const edited = fake.messages.get(id!)!;
		expect(edited.flags & V2).toBe(V2);
		expect(edited.text).toMatch(/answered \*\*B\. 3\/4\*\*: correct/);
		expect(messageControls(edited).every((c) => c.disabled === true)).toBe(true);
		expect((edited.components[0] as { accent_color: number }).accent_color).toBe(ACCENT.learned);
		expect(fake.problems()).toEqual([]);
	});

	it("a free answer's Answer button sits beside the question (a section's accessory)", async () => {
		await port.postCard(threadId, { ...quiz, toolCallId: "q2", choices: [], attachments: [] });
		const body = fake.calls.filter((c) => c.method === "POST").at(-1)!.body as { components: unknown[] };
		expect(JSON.stringify(body)).toMatch(/"type":9,"components":\[\{"type":10,"content":"[^"]*What is 1\/2/);
		expect(JSON.stringify(body)).toContain('"accessory":{"type":2,"custom_id":"lh:open:q2"');
	});

	it("the fake refuses what Discord refuses with the V2 flag", async () => {
		const refused = async (body: unknown, files?: Array<{ name: string; data: Buffer }>) => {
			const error = await post(body, files).then(
				() => undefined,
				(e: unknown) => e,
			);
			expect(error).toBeInstanceOf(DiscordAPIError);
			return JSON.stringify((error as DiscordAPIError).rawError);
		};
		expect(await refused({ flags: V2, content: "hi", components: [text(2)] })).toMatch(/content cannot be used/);
		expect(await refused({ flags: V2, components: [text(2)], embeds: [{ title: "x" }] })).toMatch(/embeds cannot/);
		expect(await refused({ flags: V2, components: Array.from({ length: 41 }, () => text(1)) })).toMatch(
			/more than 40 components/,
		);
		expect(await refused({ flags: V2, components: [text(3000), text(1001)] })).toMatch(/longer than 4000/);
		const gallery = { type: 12, items: [{ media: { url: "attachment://map.png" } }] };
		expect(
			await refused({ flags: V2, components: [gallery] }, [{ name: "other.png", data: Buffer.from("x") }]),
		).toMatch(/names no attachment/);
		const button = { type: 2, style: 1, label: "A", custom_id: "same" };
		expect(
			await refused({
				flags: V2,
				components: [
					{ type: 1, components: [button] },
					{ type: 1, components: [button] },
				],
			}),
		).toMatch(/duplicated/);
		// The flag cannot be removed by an edit, nor content added to a V2 message.
		const sent = (await post({ flags: V2, components: [text(5)] })) as { id: string };
		const patch = (body: unknown) =>
			client.rest.patch(Routes.channelMessage(fake.ids.thread, sent.id), { body }).then(
				() => "ok",
				(e: unknown) => JSON.stringify((e as DiscordAPIError).rawError),
			);
		expect(await patch({ flags: 0, content: "legacy" })).toMatch(/cannot be removed/);
		expect(await patch({ content: "more" })).toMatch(/content cannot be used/);
		expect(await patch({ flags: V2, components: [text(7)] })).toBe("ok");
	});
});
