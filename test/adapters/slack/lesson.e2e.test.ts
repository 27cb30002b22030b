/**
 * A whole lesson through real Bolt over HTTP (signed requests) against the fake Slack,
 * with the real engine on a scripted MockLanguageModelV3, real SQLite and the real
 * renderer (Chromium): command, buttons, a select, a modal, thread messages, plan
 * uploads on current-node change, refusals, a restart between clicks, and limits.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSessionStore, createTutor, openStateStore, type StateStore } from "../../../src/agent/index.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { createPlanRenderer, type PlanRenderer } from "../../../src/render/index.ts";
import { type FakeSlack, type RecordedCall, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { createLessonModel } from "../../fixtures/slack/lesson-model.ts";
import { findControl, type Running, startAdapter, textOf } from "./harness.ts";

const LEARNER = { user: "U1", name: "ada", channel: "C1" };
const OTHER = { user: "U2", name: "bob", channel: "C1" };
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe("Slack lesson end to end (HTTP, real engine, SQLite, renderer)", { timeout: 60_000 }, () => {
	let fake: FakeSlack;
	let dir: string;
	let renderer: PlanRenderer;
	let tutor: Tutor;
	let state: StateStore;
	let running: Running;
	let parentTs = "";
	let sessionId = "";

	const storeUrl = () => `sqlite://${join(dir, "lessons.sqlite")}`;
	const boot = async (): Promise<void> => {
		tutor = createTutor({ model: createLessonModel(), store: await createSessionStore(storeUrl()), maxRetries: 0 });
		state = openStateStore(storeUrl(), "slack");
		running = await startAdapter(fake, { tutor, renderer, state });
	};
	const shutdown = async (): Promise<void> => {
		await running?.adapter.stop();
		await tutor?.close();
		await state?.close();
	};
	const threadPosts = (): RecordedCall[] =>
		fake.callsTo("chat.postMessage").filter((c) => c.params.thread_ts === parentTs);
	// A clicked card is replaced through the click's response_url; others (the parent) with chat.update.
	const updatesOf = (ts: string): RecordedCall[] =>
		fake.calls.filter((c) => (c.method === "chat.update" && c.params.ts === ts) || c.replaced?.ts === ts);
	const ephemeralTo = (user: string, pattern: RegExp) =>
		fake.callsTo("chat.postEphemeral").find((c) => c.params.user === user && pattern.test(String(c.params.text)));
	const control = (prefix: string) => fake.waitFor(() => findControl(fake, prefix), `a control ${prefix}`, 20_000);
	const transcriptText = async (): Promise<string> => {
		const store = await createSessionStore(storeUrl());
		try {
			return JSON.stringify((await store.get(sessionId))?.messages ?? []);
		} finally {
			await store.close();
		}
	};

	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "lh-slack-"));
		fake = await startFakeSlack({
			users: [
				{ id: "U1", name: "ada" },
				{ id: "U2", name: "bob" },
			],
		});
		renderer = createPlanRenderer({ executablePath: "/usr/bin/chromium" });
		// Warmed before the lesson, as `learnharness start` does: the first picture is not a cold Chromium launch.
		expect(await renderer.warm?.()).toBe("ready");
		await boot();
	});
	afterAll(async () => {
		await shutdown();
		await renderer?.close();
		await fake?.close();
		await rm(dir, { recursive: true, force: true });
	});

	it("starts a lesson from /lesson start: empty ack, a parent message, the first quiz in its thread", async () => {
		const res = await running.sender.command("/lesson", "start fractions", LEARNER);
		expect(res.status).toBe(200);
		expect(res.text).toBe("");
		const parent = await fake.waitFor(
			() => fake.callsTo("chat.postMessage").find((c) => c.params.thread_ts === undefined),
			"the parent message",
		);
		parentTs = (await fake.waitFor(
			() => [...fake.messages.values()].find((m) => !m.threadTs)?.ts,
			"parent ts",
		)) as string;
		expect(textOf(parent.params)).toContain("fractions");
		sessionId = `slack:${fake.teamId}:C1:${parentTs}`;
		const quiz = await control("lh:pick:probe-0:");
		expect(quiz.message.threadTs).toBe(parentTs);
		// The prober's lead-in rides on its first quiz: one message in the thread, not two.
		expect(threadPosts()).toHaveLength(1);
		const firstBlock = (quiz.message.blocks as Array<{ text?: { text?: string } }>)[0];
		expect(firstBlock?.text?.text).toBe("Let's see where you are with fractions.");
		const reply = await fake.waitFor(() => fake.callsTo("response_url")[0], "the command reply");
		expect(String(reply.params.text)).toBe(
			`Your solo lesson on *fractions* is ready: <https://fake.slack.com/archives/C1/p${parentTs.replace(".", "")}|open its thread>`,
		);
		expect(reply.params.response_type).toBe("ephemeral");
	});

	it("refuses another member's click with an ephemeral notice and records nothing", async () => {
		const quiz = await control("lh:pick:probe-0:1");
		const res = await running.sender.action(OTHER, quiz.message.ts, { action_id: "lh:pick:probe-0:1" });
		expect(res.status).toBe(200);
		const notice = await fake.waitFor(() => ephemeralTo("U2", /only they can answer/), "the notice to bob");
		expect(notice.params.thread_ts).toBe(parentTs);
		expect(updatesOf(quiz.message.ts)).toHaveLength(0);
		expect((await tutor.getSession(sessionId))?.pending.map((p) => p.toolCallId)).toEqual(["probe-0"]);
	});

	it("answers on the learner's click, shows the answered state through its response_url, and refuses the double click", async () => {
		const quiz = await control("lh:pick:probe-0:0");
		await running.sender.action(LEARNER, quiz.message.ts, { action_id: "lh:pick:probe-0:0" });
		const update = await fake.waitFor(() => updatesOf(quiz.message.ts)[0], "the answered card");
		expect(textOf(update.params)).toMatch(/correct/);
		expect(JSON.stringify(update.params.blocks)).not.toContain('"actions"');
		await running.sender.action(LEARNER, quiz.message.ts, { action_id: "lh:pick:probe-0:0" });
		await fake.waitFor(() => ephemeralTo("U1", /already answered, so nothing was recorded/), "the double-click notice");
		expect(updatesOf(quiz.message.ts)).toHaveLength(1);
	});

	it("accepts a select posted before a restart after it", async () => {
		const select = await control("lh:select:probe-1:");
		expect(select.type).toBe("static_select");
		await shutdown();
		await boot();
		await running.sender.action(LEARNER, select.message.ts, {
			action_id: select.actionId,
			type: "static_select",
			selected: "2",
		});
		const update = await fake.waitFor(() => updatesOf(select.message.ts)[0], "the answered select card");
		expect(textOf(update.params)).toMatch(/1\/4/);
		expect(textOf(update.params)).toMatch(/correct/);
	});

	it("opens the free-text modal with the click's trigger_id (after another restart); refuses an empty answer; records the typed one", async () => {
		const open = await control("lh:open:probe-2");
		await tutor.idle();
		await shutdown();
		await boot();
		const payload = running.sender.actionPayload(LEARNER, open.message.ts, { action_id: open.actionId });
		await running.sender.interactive(payload);
		const opened = await fake.waitFor(() => fake.callsTo("views.open")[0], "views.open");
		expect(opened.params.trigger_id).toBe(payload.trigger_id);
		const view = opened.params.view as Record<string, unknown>;
		expect(String(view.private_metadata)).toContain(sessionId);
		// After the restart the question comes from the tutor's summary (reloaded from the store), before the modal opens.
		expect(JSON.stringify(view)).toContain("what does the denominator tell you?");
		expect(JSON.stringify(view)).toContain("lh:text:probe-2");
		expect(fake.callsTo("views.update")).toHaveLength(0);
		const empty = await running.sender.viewSubmission(LEARNER, view, {
			"lh:text:probe-2": { "lh:text:probe-2": { type: "plain_text_input", value: "   " } },
		});
		expect(empty.json?.response_action).toBe("errors");
		expect(Object.keys(empty.json?.errors as object)).toEqual(["lh:text:probe-2"]);
		const typed = await running.sender.viewSubmission(LEARNER, view, {
			"lh:text:probe-2": { "lh:text:probe-2": { type: "plain_text_input", value: "how many equal parts" } },
		});
		expect(typed.status).toBe(200);
		expect(typed.text).toBe("");
		const update = await fake.waitFor(() => updatesOf(open.message.ts)[0], "the answered ask card");
		expect(textOf(update.params)).toContain("how many equal parts");
	});

	it("posts the assessment, then the plan picture in the thread, and reposts it when the current node moves", async () => {
		const first = await control("lh:pick:teach-2:");
		const uploads = await fake.waitFor(
			() => {
				const done = fake.uploads.filter((u) => u.completed);
				return done.length >= 2 ? done : undefined;
			},
			"two plan uploads",
			30_000,
		);
		for (const u of uploads) {
			expect(u.threadTs).toBe(parentTs);
			expect(u.channelId).toBe("C1");
			expect(u.bytes?.subarray(0, 4).equals(PNG_MAGIC)).toBe(true);
		}
		expect(uploads[0]?.bytes?.equals(uploads[1]?.bytes ?? Buffer.alloc(0))).toBe(false);
		expect(threadPosts().some((c) => /Where you are now/.test(textOf(c.params)))).toBe(true);
		await running.sender.action(LEARNER, first.message.ts, { action_id: "lh:pick:teach-2:1" });
		await fake.waitFor(() => updatesOf(first.message.ts)[0], "the answered teach quiz");
		const next = await control("lh:pick:teach-3:0");
		const third = await fake.waitFor(() => fake.uploads.filter((u) => u.completed)[2], "the third plan upload", 30_000);
		expect(third.bytes?.equals(uploads[1]?.bytes ?? Buffer.alloc(0))).toBe(false);
		await running.sender.action(LEARNER, next.message.ts, { action_id: "lh:pick:teach-3:0" });
		await fake.waitFor(() => updatesOf(next.message.ts)[0], "the answered second teach quiz");
	});

	it("takes the learner's thread message as the open ask's answer, ignores others', bots' and edits, and ends the lesson", async () => {
		const ask = await control("lh:open:teach-4");
		const thread = { channel: "C1", thread_ts: parentTs };
		await running.sender.event({
			type: "message",
			user: "U2",
			text: "bob was here",
			ts: running.sender.nextTs(),
			...thread,
		});
		await running.sender.event({
			type: "message",
			subtype: "bot_message",
			bot_id: "B9",
			text: "a bot was here",
			ts: running.sender.nextTs(),
			...thread,
		});
		await running.sender.event({
			type: "message",
			subtype: "message_changed",
			message: { user: "U1", text: "an edit was here" },
			ts: running.sender.nextTs(),
			...thread,
		});
		const ts = running.sender.nextTs();
		await running.sender.event({ type: "message", user: "U1", text: "<@U0BOT> let's add fractions", ts, ...thread });
		// Slack retries an event it thinks was lost: the second delivery must not reach the tutor.
		await running.sender.event({ type: "message", user: "U1", text: "<@U0BOT> let's add fractions", ts, ...thread });
		// Typed in the thread while the ask is open, the words are its answer (never "skipped").
		const answeredCard = await fake.waitFor(() => updatesOf(ask.message.ts)[0], "the answered ask card");
		expect(textOf(answeredCard.params)).toContain("let's add fractions");
		expect(textOf(answeredCard.params)).not.toContain("Skipped");
		const ended = await fake.waitFor(() => updatesOf(parentTs)[0], "the parent marked ended", 20_000);
		expect(textOf(ended.params)).toMatch(/Ended/);
		expect(JSON.stringify(ended.params.blocks)).not.toContain("lh-slack:end");
		await tutor.idle();
		const transcript = await transcriptText();
		expect(transcript).toContain("let's add fractions");
		expect(transcript.match(/let's add fractions/g)).toHaveLength(1);
		expect(transcript).not.toContain("bob was here");
		expect(transcript).not.toContain("a bot was here");
		expect(transcript).not.toContain("an edit was here");
		expect((await tutor.getSession(sessionId))?.phase).toBe("ended");
		const closing = threadPosts().at(-1);
		expect(String(closing?.params.text)).toMatch(/^Lesson complete\. Well done! Start another lesson any time with/);
	});

	it("refuses a bad signature and a stale timestamp", async () => {
		const before = fake.calls.length;
		const bad = await running.sender.command("/lesson", "start sneaky", LEARNER, { secret: "not-the-secret" });
		const stale = await running.sender.command("/lesson", "start sneaky", LEARNER, {
			timestampSec: Math.floor(Date.now() / 1000) - 10 * 60,
		});
		expect(bad.status).toBe(401);
		expect(stale.status).toBe(401);
		expect(fake.calls.length).toBe(before);
	});

	it("kept every payload within Slack's limits", () => {
		expect(fake.calls.length).toBeGreaterThan(20);
		expect(fake.limitProblems()).toEqual([]);
	});
});
