/**
 * Slack's platform port (port.ts) against the fake Slack with the real Web API client:
 * cards and their answered state, the plan picture and its text fallback, Slack's
 * refusals and rate limits, the parent message at the lesson's end, thread ids.
 */

import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PlatformPort } from "../../../src/adapters/lesson/port.ts";
import { toBoltLogger } from "../../../src/adapters/slack/bolt-logger.ts";
import { clientOptionsFor, normalizeApiUrl } from "../../../src/adapters/slack/config.ts";
import { createSlackPort } from "../../../src/adapters/slack/port.ts";
import type { SlackThread } from "../../../src/adapters/slack/thread-id.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { answeredCard, cardFromEvent, type PlanPicture } from "../../../src/render/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { textOf } from "./harness.ts";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const picture = (png?: Buffer): PlanPicture => ({
	key: "k",
	caption: "Now: Halves",
	outline: "▶ Halves\n  ○ Quarters",
	...(png ? { png } : {}),
});
const intro = { topic: "fractions", learner: { id: "U1" }, startedBy: { id: "U1" }, mode: "solo" as const };

describe("Slack's port", { timeout: 20_000 }, () => {
	let fake: FakeSlack;
	let port: PlatformPort<SlackThread>;
	let threadId = "";
	let threadTs = "";
	const inThread = () => fake.callsTo("chat.postMessage").filter((c) => c.params.thread_ts === threadTs);

	beforeAll(async () => {
		fake = await startFakeSlack();
		const config = { botToken: "xoxb-test", signingSecret: "s", port: 0, adminUserIds: [], apiUrl: fake.apiUrl };
		const retry = { retries: 1, minTimeoutMs: 10, maxTimeoutMs: 20 };
		const client = new webApi.WebClient(
			"xoxb-test",
			clientOptionsFor({ ...config, retry }, toBoltLogger(silentLogger)),
		);
		port = createSlackPort(client, silentLogger);
	});
	beforeEach(async () => {
		const opened = await port.openThread({ community: fake.teamId, channelId: "C1" }, intro);
		if (!opened.ok) throw new Error(opened.message);
		threadId = opened.threadId;
		threadTs = port.decodeThreadId(threadId)?.threadTs ?? "";
	});
	afterAll(async () => {
		await fake?.close();
	});

	it("opens a lesson with its parent message (the intro, with the End button) and names the thread after it", async () => {
		const parent = fake
			.callsTo("chat.postMessage")
			.find((c) => c.params.thread_ts === undefined && c.params.channel === "C1");
		expect(textOf(parent!.params)).toContain("Lesson: fractions");
		expect(textOf(parent!.params)).toContain("lh-slack:end");
		expect(threadId).toBe(`slack:${fake.teamId}:C1:${threadTs}`);
		expect(normalizeApiUrl("http://127.0.0.1:1/api")).toBe("http://127.0.0.1:1/api/");
		expect(normalizeApiUrl(undefined)).toBe("https://slack.com/api/");
	});

	it("uploads the plan picture into the thread; posts the outline when there is none or the upload fails", async () => {
		expect(await port.postPicture(threadId, picture(PNG))).toBe(true);
		const upload = fake.uploads.find((u) => u.threadTs === threadTs);
		expect(upload?.bytes?.equals(PNG)).toBe(true);
		expect(upload?.initialComment).toBe("Now: Halves");
		expect(await port.postPicture(threadId, picture())).toBe(true);
		fake.override("files.getUploadURLExternal", () => ({ body: { ok: false, error: "internal_error" } }));
		try {
			expect(await port.postPicture(threadId, picture(PNG))).toBe(true);
		} finally {
			fake.override("files.getUploadURLExternal", undefined);
		}
		expect(inThread().map((c) => textOf(c.params).includes("▶ Halves"))).toEqual([true, true]);
	});

	it("posts a quiz card and turns that same message into the answered state", async () => {
		const input = { question: "1/2 + 1/4?", options: ["3/4", "2/6"], correctAnswer: "3/4" };
		const card = cardFromEvent({ type: "quiz", sessionId: threadId, toolCallId: "q1", input })!;
		const ids = await port.postCard(threadId, card);
		expect(textOf(inThread().at(-1)!.params)).toContain("lh:pick:q1:0");
		const answered = answeredCard({
			type: "answered",
			sessionId: threadId,
			toolCallId: "q1",
			kind: "quiz",
			result: { answer: "3/4", correct: true, by: { id: "U1", name: "ada" } },
			quiz: input,
		});
		expect(await port.editCard(threadId, ids, answered)).toBe(true);
		const update = fake.callsTo("chat.update").at(-1)!;
		expect(update.params.ts).toBe(ids.at(-1));
		expect(textOf(update.params)).not.toContain("lh:pick");
		expect(textOf(update.params)).toMatch(/correct/);
		expect(await port.editCard(threadId, [], answered)).toBe(false); // nothing to edit: the controller posts it
	});

	it("finds a question's card in the thread by its controls (a card a dead process posted), page after page", async () => {
		const input = { question: "1/3 + 1/3?", options: ["2/3", "2/6"], correctAnswer: "2/3" };
		const card = cardFromEvent({ type: "quiz", sessionId: threadId, toolCallId: "q-left", input })!;
		for (let i = 0; i < 3; i++) await port.postPicture(threadId, picture()); // other messages around it
		const ids = await port.postCard(threadId, card);
		for (let i = 0; i < 250; i++) await port.postPicture(threadId, picture()); // past the first page
		expect(await port.findCard?.(threadId, "q-left")).toEqual(ids);
		expect(await port.findCard?.(threadId, "q-never")).toEqual([]);
		expect(fake.callsTo("conversations.replies").length).toBeGreaterThanOrEqual(2);
		// A thread Slack will not show (deleted): undefined, not a throw.
		expect(
			await port.findCard?.(port.encodeThreadId({ teamId: fake.teamId, channelId: "C1", threadTs: "1.2" }), "q"),
		).toBe(undefined);
	});

	it("falls back to plain text when Slack refuses the blocks, and waits out a 429", async () => {
		let refusals = 1;
		fake.override("chat.postMessage", () =>
			refusals-- > 0 ? { body: { ok: false, error: "invalid_blocks" } } : undefined,
		);
		try {
			expect(await port.postCard(threadId, { kind: "text", tone: "plain", text: "Hello **there**" })).toHaveLength(1);
		} finally {
			fake.override("chat.postMessage", undefined);
		}
		expect(inThread()).toHaveLength(2);
		expect(inThread()[1]?.params.blocks).toBeUndefined();
		let limited = 1;
		fake.override("chat.postMessage", () => (limited-- > 0 ? { status: 429, retryAfter: 1 } : undefined));
		try {
			await port.postCard(threadId, { kind: "text", tone: "plain", text: "after the limit" });
		} finally {
			fake.override("chat.postMessage", undefined);
		}
		expect(textOf(inThread().at(-1)!.params)).toContain("after the limit");
	});

	it("marks the parent message ended, or failed when the tutor would not start", async () => {
		await port.lessonEnded?.(threadId, intro, {
			type: "ended",
			sessionId: threadId,
			reason: "ended-by-user",
			by: { id: "U1" },
		});
		const ended = fake.callsTo("chat.update").at(-1)!;
		expect(ended.params.ts).toBe(threadTs);
		expect(textOf(ended.params)).toMatch(/Ended by <@U1>/);
		expect(textOf(ended.params)).not.toContain("lh-slack:end");
		await port.closeThread(threadId, { community: fake.teamId, channelId: "C1" }, "Name a topic to learn.");
		expect(textOf(fake.callsTo("chat.update").at(-1)!.params)).toContain("Could not start: Name a topic to learn.");
	});
});
