/**
 * Lessons across lessons on the fake Slack (real Bolt over signed HTTP): a lesson
 * builds the profile; `/lesson review` days later (an injected clock) asks the due
 * item in a thread, grades the typed answer and reschedules it with FSRS; a
 * reminder goes out once across a restart; `/lesson progress` sends a PNG to the
 * learner's DM; `/lesson report` sends admins a CSV equal to the transcript's
 * figures; forget-me (confirm button) leaves no key of the learner in the store.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import KeyvSqlite from "@keyv/sqlite";
import { MockLanguageModelV3 } from "ai/test";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import { ANONYMOUS_MEMBER, periodTokens, UsageLedger } from "../../../src/adapters/lesson/usage-ledger.ts";
import { openStateStore, type StateStore } from "../../../src/agent/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { assessmentInput, fractionsLesson, planMermaid } from "../../fixtures/lesson-script.ts";
import {
	answerFractionsLesson,
	type LearnerBackend,
	openLearnerBackend,
	testClock,
} from "../../fixtures/profile-stack.ts";
import { type Running, startAdapter } from "./harness.ts";

const LEARNER = { user: "U1", name: "ada", channel: "C1" };
const ADMIN = { user: "U9", name: "root", channel: "C1" };
const png = PNG.sync.write(new PNG({ width: 1, height: 1 }));
const groupCheck = {
	type: "check",
	nodeId: "common-denominator",
	question: "Which fraction equals 2/4?",
	options: ["1/2", "2/8", "4/2"],
	correctAnswer: "1/2",
};
// The lessons' script; the group lesson's own script replaces it (the first lesson ends before its script does).
let script = scriptedModel(fractionsLesson({ greeting: "Hi!", predictOptions: ["3", "6", "9"], closing: "Done!" }));
const model = new MockLanguageModelV3({ doStream: (options) => script.doStream(options) });
const groupScript = () =>
	scriptedModel([
		{ calls: [{ name: "probe_done", input: assessmentInput, id: "gpd" }] },
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "gplan" }] },
		{ text: "Vote, everyone.", calls: [{ name: "quiz", input: groupCheck, id: "g1" }] },
	]);
const clock = testClock();
const budgets = createBudgetRouter();

describe("learner profile, review, progress, report and forget-me on Slack", { timeout: 60_000 }, () => {
	let fake: FakeSlack;
	let dir: string;
	let backend: LearnerBackend;
	let state: StateStore;
	let running: Running;
	let lessonId = "";
	let replied = 0;
	const key = () => `slack:${fake.teamId}:U1`;

	const open = async () => {
		backend = await openLearnerBackend(dir, model, clock, budgets.budget);
		state = openStateStore(`sqlite://${join(dir, "slack.sqlite")}`, "slack");
		running = await startAdapter(
			fake,
			{ tutor: backend.tutor, renderer: stubRenderer(png), state, budgets, learning: { learning: backend.learning } },
			{ adminUserIds: ["U9"] },
		);
	};
	const shut = async () => {
		await running.adapter.stop();
		await backend.close();
		await state.close();
	};
	const replies = () => fake.callsTo("response_url").map((c) => String(c.params.text));
	const replyMatching = (pattern: RegExp) =>
		fake.waitFor(() => replies().find((t) => pattern.test(t)), String(pattern));
	const inThread = (ts: string) => [...fake.messages.values()].filter((m) => m.threadTs === ts);

	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "lh-slack-profile-"));
		fake = await startFakeSlack({
			users: [
				{ id: "U1", name: "ada" },
				{ id: "U9", name: "root" },
			],
		});
		await open();
		// Token budgets on: every turn is charged to the learner in the usage ledger (forget-me must anonymise it).
		await running.sender.command("/lesson", "config member_tokens_per_day 1000000", ADMIN);
		await running.sender.command("/lesson", "config server_tokens_per_day 10000000", ADMIN);
		await fake.waitFor(() => (replies().filter((t) => /^Saved/.test(t)).length === 2 ? true : undefined), "saved");
		replied = replies().length;
	});
	afterAll(async () => {
		await shut();
		await fake.close();
		await rm(dir, { recursive: true, force: true });
	});

	it("records a finished lesson, then reviews its due item days later with a longer interval", async () => {
		await running.sender.command("/lesson", "start adding fractions", LEARNER);
		const parentTs = await fake.waitFor(() => [...fake.messages.values()].find((m) => !m.threadTs)?.ts, "parent");
		lessonId = `slack:${fake.teamId}:C1:${parentTs}`;
		await answerFractionsLesson(backend.tutor, lessonId, { id: "U1", name: "ada" });
		await running.sender.command("/lesson", "end", LEARNER);
		await fake.waitFor(() => replies().length > replied + 1 || undefined, "the end reply");
		for (let i = 0; i < 400 && !(await backend.learning.profile(key()))?.lessons.length; i++)
			await new Promise((done) => setTimeout(done, 25));
		expect((await backend.learning.items(key())).map((i) => i.nodeId)).toEqual(["common-denominator"]);

		// The closing message: what comes back for review and when, with a one-tap Remind me.
		const closingMessage = await fake.waitFor(
			() => inThread(parentTs).find((m) => JSON.stringify(m.blocks).includes("Coming back for review")),
			"the closing message",
		);
		const closingText = JSON.stringify(closingMessage.blocks);
		const due = (await backend.learning.items(key()))[0]?.card.due.slice(0, 10);
		expect(closingText).toMatch(new RegExp(`• Common denominators: in \\d+ days \\(${due}\\)`));
		expect(closingText).toContain("lh:pick:lh-remind-me:0");
		await running.sender.action(LEARNER, closingMessage.ts, { action_id: "lh:pick:lh-remind-me:0" });
		await fake.waitFor(
			() => fake.callsTo("chat.postEphemeral").find((c) => String(c.params.text).startsWith("Reminders are on")),
			"the reminder notice",
		);
		expect((await backend.learning.profile(key()))?.reminders).toMatchObject({ on: true });
		expect(JSON.parse((await backend.learning.profile(key()))?.reminders?.where ?? "{}")).toMatchObject({
			threadId: lessonId,
			channelId: "C1",
		});

		clock.advanceDays(4);
		const before = (await backend.learning.items(key()))[0]?.card;
		await running.sender.command("/lesson", "review", LEARNER);
		await replyMatching(/^Your review is ready/);
		const reviewParent = await fake.waitFor(
			() => [...fake.messages.values()].find((m) => !m.threadTs && m.ts !== parentTs)?.ts,
			"the review thread",
		);
		await fake.waitFor(() => inThread(reviewParent).find((m) => m.text?.includes("Review 1 of 1")), "the question");
		await running.sender.event({
			type: "message",
			user: "U1",
			text: "10",
			ts: running.sender.nextTs(),
			channel: "C1",
			thread_ts: reviewParent,
		});
		const closing = await fake.waitFor(
			() => inThread(reviewParent).find((m) => m.text?.startsWith("Review done")),
			"the closing line",
		);
		expect(closing.text).toMatch(/^Review done: 1 of 1 right\. Next review: in \d+ days/);
		const after = (await backend.learning.items(key()))[0]?.card;
		expect(after?.scheduledDays).toBeGreaterThan(before?.scheduledDays ?? Infinity);
	});

	it("sends a reminder once across a restart, as a DM whose Review now opens a review", async () => {
		await running.sender.command("/lesson", "remind on", LEARNER);
		await replyMatching(/^Reminders are on: when reviews are due I send you one direct message a day/);
		clock.advanceDays(60);
		expect(await running.adapter.sendReminders()).toBe(1);
		await shut();
		await open();
		expect(await running.adapter.sendReminders()).toBe(0);
		const nudges = [...fake.messages.values()].filter((m) => JSON.stringify(m.blocks).includes("Time to review"));
		expect(nudges).toHaveLength(1);
		const nudge = nudges[0];
		expect(nudge?.channel).toBe("DU1");
		expect(nudge?.threadTs).toBeUndefined();
		expect(JSON.stringify(nudge?.blocks)).toContain("lh:pick:lh-review-now:0");

		// The one tap, from the DM (after the restart): a review thread opens in the lesson's channel.
		const parentsBefore = [...fake.messages.values()].filter((m) => m.channel === "C1" && !m.threadTs).length;
		await running.sender.action({ ...LEARNER, channel: "DU1" }, nudge?.ts ?? "", {
			action_id: "lh:pick:lh-review-now:0",
		});
		await fake.waitFor(
			() => fake.callsTo("chat.postEphemeral").find((c) => String(c.params.text).startsWith("Your review is ready")),
			"the review from the DM",
		);
		const review = [...fake.messages.values()].filter((m) => m.channel === "C1" && !m.threadTs);
		expect(review.length).toBe(parentsBefore + 1);
		const reviewTs = review.at(-1)?.ts ?? "";
		await fake.waitFor(() => inThread(reviewTs).find((m) => m.text?.includes("Review 1 of")), "the question");
	});

	it("sends progress as a PNG in the learner's DM", async () => {
		await running.sender.command("/lesson", "progress", LEARNER);
		await replyMatching(/direct messages/);
		const upload = fake.uploads.find((u) => u.filename === "progress.png");
		expect(upload?.channelId).toBe("DU1");
		expect(upload?.bytes?.subarray(1, 4).toString()).toBe("PNG");
	});

	it("sends admins a CSV whose figures equal the transcript's, and refuses members", async () => {
		await running.sender.command("/lesson", "report", LEARNER);
		await replyMatching(/^Only admins/);
		await running.sender.command("/lesson", "report", ADMIN);
		await replyMatching(/^The report \(CSV\)/);
		const upload = fake.uploads.find((u) => u.filename.endsWith(".csv"));
		expect(upload?.channelId).toBe("DU9");
		const row = (upload?.bytes?.toString("utf8") ?? "")
			.split("\r\n")
			.find((r) => r.includes(lessonId))
			?.split(",");
		const record = await backend.sessions.get(lessonId);
		const outputs = (record?.messages ?? [])
			.flatMap((m) => m.parts as Array<{ type: string; output?: Record<string, unknown> }>)
			.filter((p) => p.type === "tool-quiz" && typeof p.output?.correct === "boolean")
			.map((p) => p.output ?? {});
		const firstTry = outputs.filter((o) => o.correct === true && !o.attempts && !o.hints && !o.revealed).length;
		expect(row?.[0]).toBe("U1");
		expect(Number(row?.[5])).toBe(outputs.length);
		expect(Number(row?.[6])).toBeCloseTo(firstTry / outputs.length, 3);
		expect(Number(row?.[8])).toBe(1);
	});

	it("forgets the learner after the confirm card's button: no key of theirs is left", async () => {
		await running.sender.command("/lesson", "forget-me", LEARNER);
		const ask = await fake.waitFor(
			() =>
				fake
					.callsTo("chat.postEphemeral")
					.find((c) => String(JSON.stringify(c.params.blocks)).includes("lh-forget-me")),
			"the confirm",
		);
		expect(ask.params.user).toBe("U1");
		// A group lesson the admin started, where the learner said hello and voted (the vote is still open).
		const groupId = `slack:${fake.teamId}:C1:1700000000.000900`;
		const ada = { id: "U1", name: "ada" };
		script = groupScript();
		await backend.tutor.startLesson({
			sessionId: groupId,
			topic: "fractions",
			learner: { id: "U9", name: "root" },
			mode: "group",
		});
		await backend.tutor.idle(groupId);
		await backend.tutor.handle(groupId, { type: "message", text: "hi, ada here", by: ada });
		expect(await backend.tutor.handle(groupId, { type: "answer", toolCallId: "g1", value: 0, by: ada })).toMatchObject({
			vote: { letter: "A" },
		});
		await backend.tutor.idle(groupId);
		expect(JSON.stringify(await backend.sessions.get(groupId))).toContain("U1");
		const usageBefore = periodTokens(await new UsageLedger(state).month(fake.teamId));
		expect(usageBefore).toBeGreaterThan(0);
		expect(Object.keys(await new UsageLedger(state).month(fake.teamId))).toContain("U1");
		// The confirm routes like any card's button (a pick on the reserved id), from the ephemeral message in the channel.
		await running.sender.action(LEARNER, running.sender.nextTs(), { action_id: "lh:pick:lh-forget-me:0" });
		await fake.waitFor(
			() => fake.callsTo("chat.postEphemeral").find((c) => String(c.params.text).startsWith("Done: your profile")),
			"the confirmation",
		);
		// The group lesson stays (the admin's), without the learner.
		const group = JSON.stringify(await backend.sessions.get(groupId));
		expect(group).toContain("U9");
		expect(group).not.toMatch(/\bU1\b|\bada\b/);
		// The community's token totals stay, under the anonymous bucket.
		const usageAfter = await new UsageLedger(state).month(fake.teamId);
		expect(periodTokens(usageAfter)).toBe(usageBefore);
		expect(Object.keys(usageAfter)).toContain(ANONYMOUS_MEMBER);
		expect(Object.keys(usageAfter)).not.toContain("U1");
		await shut();
		const leftovers: string[] = [];
		for (const file of ["lh.sqlite", "slack.sqlite"]) {
			const db = new KeyvSqlite({ uri: `sqlite://${join(dir, file)}` });
			const rows = (await db.query("SELECT key, value FROM keyv")) as Array<{ key: string; value: string }>;
			expect(rows.length).toBeGreaterThan(0);
			for (const r of rows) if (/\bU1\b|\bada\b/.test(`${r.key} ${r.value}`)) leftovers.push(r.key);
			await db.disconnect();
		}
		expect(leftovers).toEqual([]);
		await open();
	});
});
