/**
 * Slack's own answers, replayed: the fake answers a method with a body the live API sent (recorded in
 * testkit/fixtures/recorded/slack/responses/, sources in the manifest), and the bot must still do its job.
 * chat.postMessage refusing a card's formula pictures as `invalid_blocks` ("invalid slack file") must still bring
 * the math quiz with its text and every control: the card goes again without its pictures (it once went as bare
 * text, a quiz without options or buttons).
 */

import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toBoltLogger } from "../../src/adapters/slack/bolt-logger.ts";
import { clientOptionsFor } from "../../src/adapters/slack/config.ts";
import { createSlackPort } from "../../src/adapters/slack/port.ts";
import { silentLogger } from "../../src/core/contracts/logger.ts";
import { type FakeSlack, startFakeSlack } from "../../testkit/fakes/slack.ts";
import { mathQuiz, prepared } from "../fixtures/math-cards.ts";
import { entriesOf, readPayload } from "./payloads.ts";

type Block = { type: string; slack_file?: unknown; elements?: Array<{ action_id?: string; text?: { text: string } }> };

describe("recorded Slack answers, replayed", { timeout: 30_000 }, () => {
	let fake: FakeSlack;
	let port: ReturnType<typeof createSlackPort>;
	let threadId = "";

	beforeAll(async () => {
		fake = await startFakeSlack();
		const config = { botToken: "xoxb-test", signingSecret: "s", port: 0, adminUserIds: [], apiUrl: fake.apiUrl };
		const client = new webApi.WebClient("xoxb-test", clientOptionsFor(config, toBoltLogger(silentLogger)));
		port = createSlackPort(client, silentLogger);
		const intro = { topic: "algebra", learner: { id: "U1" }, startedBy: { id: "U1" }, mode: "solo" as const };
		const opened = await port.openThread({ community: fake.teamId, channelId: "C1" }, intro);
		if (!opened.ok) throw new Error(opened.message);
		threadId = opened.threadId;
	});
	afterAll(async () => {
		await fake.close();
	});

	it("lists the recorded answers", () => {
		expect(entriesOf("slack-response").map((e) => e.file)).toEqual([
			"slack/responses/chat-postmessage-invalid-slack-file.json",
		]);
	});

	it("chat.postMessage's recorded invalid_blocks for a card's pictures: the math quiz still arrives with every control", async () => {
		const body = readPayload("slack/responses/chat-postmessage-invalid-slack-file.json") as Record<string, unknown>;
		expect(body).toMatchObject({ ok: false, error: "invalid_blocks" });
		fake.override("chat.postMessage", (params) =>
			JSON.stringify(params.blocks ?? "").includes('"slack_file"') ? { body } : undefined,
		);
		try {
			await port.postCard(threadId, await prepared(mathQuiz));
		} finally {
			fake.override("chat.postMessage", undefined);
		}
		const posts = fake.callsTo("chat.postMessage");
		// The refused post carried the pictures; the one that landed has none, and keeps its question and controls.
		expect(JSON.stringify(posts.at(-2)?.params.blocks)).toContain('"slack_file"');
		const blocks = (posts.at(-1)?.params.blocks ?? []) as Block[];
		expect(blocks.some((b) => b.type === "image")).toBe(false);
		const controls = blocks.filter((b) => b.type === "actions").flatMap((b) => b.elements ?? []);
		expect(controls.map((c) => c.text?.text)).toEqual(
			expect.arrayContaining(["A", "B", "C", "💡 Hint", "🔄 Explain another way", "🤷 Not sure"]),
		);
		expect(controls.every((c) => typeof c.action_id === "string" && c.action_id.startsWith("lh:"))).toBe(true);
	});
});
