/**
 * Tutor events → Slack calls (poster.ts) against the fake Slack with the real Web API
 * client: cards and their answered state, the plan picture and its text fallback,
 * dedupe of identical plan states, Slack errors and rate limits.
 */

import { webApi } from "@slack/bolt";
import Keyv from "keyv";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { toBoltLogger } from "../../../src/adapters/slack/bolt-logger.ts";
import { clientOptionsFor, normalizeApiUrl } from "../../../src/adapters/slack/config.ts";
import { createPoster, type Poster } from "../../../src/adapters/slack/poster.ts";
import { SlackState } from "../../../src/adapters/slack/state.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import type { PlanTree } from "../../../src/core/contracts/plan.ts";
import { type FakeSlack, startFakeSlack } from "../../fakes/slack.ts";
import { stubRenderer } from "../lesson/stub-renderer.ts";
import { textOf } from "./harness.ts";

const TREE: PlanTree = {
	nodes: [
		{ id: "a", title: "Halves" },
		{ id: "b", title: "Quarters" },
	],
	edges: [{ from: "a", to: "b" }],
	version: 1,
};
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

describe("Slack poster", { timeout: 20_000 }, () => {
	let fake: FakeSlack;
	let client: webApi.WebClient;
	let state: SlackState;
	let sessionId = "";
	let thread = "";
	let n = 0;
	const plan = (current: string | null): TutorEvent => ({
		type: "plan",
		sessionId,
		tree: TREE,
		statuses: { current, visited: new Set() },
		reason: current ? "moved" : "init",
	});
	const poster = (png: Buffer | undefined): Poster =>
		createPoster({ client, state, renderer: stubRenderer(png), logger: silentLogger });
	const inThread = () => fake.callsTo("chat.postMessage").filter((c) => c.params.thread_ts === thread);

	beforeAll(async () => {
		fake = await startFakeSlack();
		const config = { botToken: "xoxb-test", signingSecret: "s", port: 0, adminUserIds: [], apiUrl: fake.apiUrl };
		client = new webApi.WebClient("xoxb-test", {
			...clientOptionsFor(
				{ ...config, retry: { retries: 1, minTimeoutMs: 10, maxTimeoutMs: 20 } },
				toBoltLogger(silentLogger),
			),
		});
	});
	beforeEach(async () => {
		state = new SlackState(new Keyv(), { channels: [], lessonsPerDay: 0, defaultMode: "solo" });
		thread = `1600000000.${String(++n).padStart(6, "0")}`;
		sessionId = `slack:${fake.teamId}:C1:${thread}`;
		await state.saveLesson({
			sessionId,
			teamId: fake.teamId,
			channelId: "C1",
			threadTs: thread,
			learnerId: "U1",
			mode: "solo",
			topic: "fractions",
			startedAt: new Date(0).toISOString(),
		});
	});
	afterAll(async () => {
		await fake?.close();
	});

	it("normalizes the API URL to end with a slash", () => {
		expect(normalizeApiUrl("http://127.0.0.1:1/api")).toBe("http://127.0.0.1:1/api/");
		expect(normalizeApiUrl(undefined)).toBe("https://slack.com/api/");
	});

	it("uploads the plan picture into the thread, once per distinct state", async () => {
		const p = poster(PNG);
		await p.handle(plan(null));
		await p.handle(plan(null));
		await p.handle(plan("a"));
		const ours = fake.uploads.filter((u) => u.threadTs === thread);
		expect(ours).toHaveLength(2);
		expect(ours[0]?.bytes?.equals(PNG)).toBe(true);
		expect(ours[1]?.initialComment).toBe("Now: a");
	});

	it("posts the text outline when there is no picture, or when the upload fails", async () => {
		await poster(undefined).handle(plan("a"));
		expect(textOf(inThread()[0]!.params)).toContain("▶ Halves");
		fake.override("files.getUploadURLExternal", () => ({ body: { ok: false, error: "internal_error" } }));
		try {
			await poster(PNG).handle(plan("b"));
		} finally {
			fake.override("files.getUploadURLExternal", undefined);
		}
		expect(inThread()).toHaveLength(2);
		expect(textOf(inThread()[1]!.params)).toContain("▶ Quarters");
	});

	it("posts a quiz card and turns that same message into the answered state", async () => {
		const p = poster(undefined);
		const input = { question: "1/2 + 1/4?", options: ["3/4", "2/6"], correctAnswer: "3/4" };
		await p.handle({ type: "quiz", sessionId, toolCallId: "q1", input });
		const card = inThread().at(-1)!;
		expect(textOf(card.params)).toContain("lh:pick:q1:0");
		const ref = await state.card(sessionId, "q1");
		expect(ref?.question).toBe("1/2 + 1/4?");
		const by = { id: "U1", name: "ada" };
		await p.handle({
			type: "answered",
			sessionId,
			toolCallId: "q1",
			kind: "quiz",
			result: { answer: "3/4", correct: true, by },
			quiz: input,
		});
		const update = fake.callsTo("chat.update").at(-1)!;
		expect(update.params.ts).toBe(ref?.ts.at(-1));
		expect(textOf(update.params)).not.toContain("lh:pick");
		expect(textOf(update.params)).toMatch(/correct/);
	});

	it("falls back to plain text when Slack refuses the blocks, and waits out a 429", async () => {
		let refusals = 1;
		fake.override("chat.postMessage", () =>
			refusals-- > 0 ? { body: { ok: false, error: "invalid_blocks" } } : undefined,
		);
		try {
			await poster(undefined).handle({ type: "text", sessionId, text: "Hello **there**" });
		} finally {
			fake.override("chat.postMessage", undefined);
		}
		const posted = inThread();
		expect(posted).toHaveLength(2);
		expect(posted[1]?.params.blocks).toBeUndefined();
		let limited = 1;
		fake.override("chat.postMessage", () => (limited-- > 0 ? { status: 429, retryAfter: 1 } : undefined));
		try {
			await poster(undefined).handle({ type: "text", sessionId, text: "after the limit" });
		} finally {
			fake.override("chat.postMessage", undefined);
		}
		expect(textOf(inThread().at(-1)!.params)).toContain("after the limit");
	});

	it("marks the parent message ended, and ignores typing and other platforms' sessions", async () => {
		const p = poster(undefined);
		const before = fake.calls.length;
		await p.handle({ type: "typing", sessionId, active: true });
		await p.handle({ type: "text", sessionId: "discord:G1:T1", text: "not ours" });
		expect(fake.calls.length).toBe(before);
		await p.handle({ type: "ended", sessionId, reason: "ended-by-user", by: { id: "U1" } });
		const update = fake.callsTo("chat.update").at(-1)!;
		expect(update.params.ts).toBe(thread);
		expect(textOf(update.params)).toMatch(/Ended by <@U1>/);
		expect((await state.lesson(sessionId))?.ended).toBe(true);
	});
});
