/**
 * Study groups that vote, on the engine: private votes (the latest counts), the tally when
 * every active member voted, the tally on the timer (an injected clock and timers), a split
 * that gets a revote after the teacher's discussion (a new question meanwhile is refused),
 * per-member results in the summary, mastery from the group's verdict, and a restart in the
 * middle of a vote that still closes it.
 */

import { afterAll, describe, expect, it } from "vitest";
import { REVOTE_HOLD_TEXT, REVOTE_SUFFIX } from "../../../src/agent/engine/revote.ts";
import type { AnswerResult } from "../../../src/core/contracts/events.ts";
import { manualTimers } from "../../fixtures/manual-timers.ts";
import { assessmentInput, harness, planMermaid, scriptedModel, tempDir, toolResultsSent } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const ada = { id: "u-ada", name: "Ada" };
const bob = { id: "u-bob", name: "Bob" };
const cy = { id: "u-cy", name: "Cy" };

const check = {
	type: "check",
	nodeId: "common-denominator",
	question: "Which fraction equals 2/4?",
	options: ["1/2", "2/8", "4/2"],
	correctAnswer: "1/2",
};

describe("group votes", () => {
	it("votes privately, changes a vote, tallies when all voted, discusses a split, revotes once", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
			{ text: "Vote, everyone.", calls: [{ name: "quiz", input: check, id: "t1" }] },
			// The discussion turn: its words are the discussion, a new question is refused and the turn ends there.
			{
				text: "Split! Some of you chose 2/8: why is it tempting? Think again.",
				calls: [{ name: "quiz", input: { ...check, question: "Another?" }, id: "x" }],
			},
			{ text: "All agree now." },
		]);
		const timers = manualTimers();
		const at = new Date("2026-01-01T09:00:00Z");
		const h = await harness(dir.path, model, { timers: timers.fns, now: () => at });
		const sessionId = "terminal:votes-1";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		// Bob and Cy say hello while the vote is open: they are active members now; no turn runs.
		const requests = model.doStreamCalls.length;
		expect(await h.tutor.handle(sessionId, { type: "message", text: "hi", by: bob })).toEqual({ ok: true });
		expect(await h.tutor.handle(sessionId, { type: "message", text: "hello", by: cy })).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		expect(model.doStreamCalls.length).toBe(requests);

		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: 1, by: ada })).toEqual({
			ok: true,
			vote: { answer: "2/8", letter: "B", changed: false },
		});
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: 1, by: bob })).toMatchObject({
			vote: { letter: "B", changed: false },
		});
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: 0, by: bob })).toMatchObject({
			vote: { answer: "1/2", letter: "A", changed: true },
		});
		await h.tutor.idle(sessionId);
		expect(h.of("answered")).toHaveLength(0); // Cy has not voted
		expect(timers.waits()).toEqual([60_000]); // the default vote length, armed by the first ballot
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: "1/2", by: cy });
		await h.tutor.idle(sessionId);

		const tally = h.of("answered")[0]!;
		expect(tally.result).toMatchObject({
			answer: "1/2",
			correct: true,
			vote: {
				round: 1,
				voters: 3,
				correctVotes: 2,
				split: true,
				revote: true,
				timedOut: false,
				counts: [
					{ answer: "1/2", count: 2, correct: true },
					{ answer: "2/8", count: 1, correct: false },
				],
				members: [
					{ id: "u-ada", name: "Ada", answer: "2/8", correct: false },
					{ id: "u-bob", name: "Bob", answer: "1/2", correct: true },
					{ id: "u-cy", name: "Cy", answer: "1/2", correct: true },
				],
			},
		});
		expect(timers.waits()).toEqual([]); // closed: its timer is cleared
		// The teacher saw each member's answer.
		const sent = toolResultsSent(model.doStreamCalls[3]!).find((r) => r.toolName === "quiz");
		expect(JSON.stringify(sent?.output)).toContain('"split":true');
		expect(JSON.stringify(sent?.output)).toContain('"name":"Bob","answer":"1/2","correct":true');
		// Its new question during the discussion was refused; the revote of the same question followed.
		const record = (await h.store.get(sessionId))!;
		const refused = record.messages.flatMap((m) => m.parts).find((p) => "toolCallId" in p && p.toolCallId === "x");
		expect(refused).toMatchObject({ state: "output-error", errorText: REVOTE_HOLD_TEXT });
		const revote = h.of("quiz").at(-1)!;
		expect(revote.toolCallId).toBe(`t1${REVOTE_SUFFIX}`);
		expect(revote.input.question).toBe(check.question);
		expect((await h.tutor.getSession(sessionId))?.pending).toMatchObject([{ toolCallId: `t1${REVOTE_SUFFIX}` }]);

		for (const by of [ada, bob, cy])
			await h.tutor.handle(sessionId, { type: "answer", toolCallId: `t1${REVOTE_SUFFIX}`, value: 0, by });
		await h.tutor.idle(sessionId);
		const second = h.of("answered")[1]!.result as AnswerResult;
		expect(second.vote).toMatchObject({ round: 2, voters: 3, correctVotes: 3, split: false, revote: false });
		// At most one revote: the lesson went on without another.
		expect(h.of("quiz").map((q) => q.toolCallId)).toEqual(["t1", `t1${REVOTE_SUFFIX}`]);
		expect(model.doStreamCalls).toHaveLength(5);

		const summary = (await h.tutor.getSession(sessionId))!;
		expect(summary.members).toEqual([
			{ by: ada, answered: 2, correct: 1 },
			{ by: bob, answered: 2, correct: 2 },
			{ by: cy, answered: 2, correct: 2 },
		]);
		// Mastery stays derived: the group's verdict (majority right) of the latest check counts.
		expect(summary.plan?.mastery?.["common-denominator"]).toBe("learned");
		await h.tutor.close();
	});

	it("a lone voter waits for the timer; a restart in the middle still closes the vote on its deadline", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ text: "Vote.", calls: [{ name: "quiz", input: { ...check, nodeId: undefined }, id: "t1" }] },
			// A wrong check vote is the group's first try: a discussion, then the second vote.
			{ text: "Only Ada voted, and missed it; let's look again." },
		]);
		let now = Date.parse("2026-01-01T10:00:00Z");
		const clock = () => new Date(now);
		const before = manualTimers();
		const h1 = await harness(dir.path, model, { timers: before.fns, now: clock });
		const sessionId = "terminal:votes-2";
		await h1.tutor.startLesson({
			sessionId,
			topic: "fractions",
			learner: ada,
			mode: "group",
			group: { voteSeconds: 30 },
		});
		await h1.tutor.idle(sessionId);
		await h1.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: 2, by: ada });
		await h1.tutor.idle(sessionId);
		expect(before.waits()).toEqual([30_000]);
		expect(h1.of("answered")).toEqual([]);
		await h1.tutor.close(); // the process stops mid-vote

		now += 45_000; // past the deadline while it was down
		const after = manualTimers();
		const h2 = await harness(dir.path, model, { timers: after.fns, now: clock });
		await h2.tutor.resume();
		expect(after.waits()).toEqual([0]); // re-armed from the saved deadline: due at once
		after.fireAll();
		await h2.tutor.idle(sessionId);
		await h2.tutor.idle(sessionId);
		const tally = h2.of("answered")[0]!;
		expect(tally.result).toMatchObject({
			answer: "4/2",
			correct: false,
			vote: { voters: 1, timedOut: true, split: false, revote: true },
		});
		// The vote is closed: a late click is refused, and the teacher's turn ran on the tally.
		expect(await h2.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: 0, by: bob })).toMatchObject({
			ok: false,
			code: "already-answered",
		});
		expect(model.doStreamCalls).toHaveLength(3);
		expect((await h2.store.get(sessionId))?.votes).toBeUndefined();
		expect((await h2.tutor.getSession(sessionId))?.pending).toMatchObject([{ toolCallId: `t1${REVOTE_SUFFIX}` }]);
		await h2.tutor.close();
	});

	it("closes on its timer when an active member never votes; later clicks are refused", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ text: "Vote.", calls: [{ name: "quiz", input: { ...check, type: "predict", nodeId: undefined }, id: "t1" }] },
			{ text: "Time's up: two of you voted." },
		]);
		const timers = manualTimers();
		const at = new Date("2026-01-01T11:00:00Z");
		const h = await harness(dir.path, model, { timers: timers.fns, now: () => at });
		const sessionId = "terminal:votes-timer";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "message", text: "here", by: cy }); // Cy is active, never votes
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: 0, by: ada });
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: 1, by: bob });
		await h.tutor.idle(sessionId);
		expect(h.of("answered")).toEqual([]);
		timers.fireAll();
		await h.tutor.idle(sessionId);
		expect(h.of("answered")[0]?.result).toMatchObject({
			vote: { voters: 2, correctVotes: 1, timedOut: true, split: true, revote: false }, // a predict quiz is a guess: no revote
		});
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: 0, by: cy })).toMatchObject({
			ok: false,
			code: "already-answered",
		});
		expect(model.doStreamCalls).toHaveLength(3);
		await h.tutor.close();
	});

	it("refuses a ballot cast after the deadline even when the timer has not tallied yet", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ text: "Vote.", calls: [{ name: "quiz", input: { ...check, type: "predict", nodeId: undefined }, id: "t1" }] },
			{ text: "Time's up." },
		]);
		const timers = manualTimers();
		let now = Date.parse("2026-01-01T12:00:00Z");
		const h = await harness(dir.path, model, { timers: timers.fns, now: () => new Date(now) });
		const sessionId = "terminal:votes-late";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "message", text: "here", by: cy }); // Cy is active: no early tally
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: 0, by: ada });
		await h.tutor.idle(sessionId);
		now += 61_000; // past the 60 s deadline; the timer has not fired (a busy process)
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: 1, by: bob })).toMatchObject({
			ok: false,
			code: "not-pending",
			message: expect.stringMatching(/closed/),
		});
		timers.fireAll();
		await h.tutor.idle(sessionId);
		expect(h.of("answered")[0]?.result).toMatchObject({ vote: { voters: 1, timedOut: true } });
		await h.tutor.close();
	});

	it("solo lessons do not vote", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "quiz", input: { ...check, type: undefined, nodeId: undefined }, id: "q" }] },
			{ text: "Ok." },
		]);
		const h = await harness(dir.path, model, { timers: manualTimers().fns });
		const sessionId = "terminal:votes-3";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: 0, by: ada })).toEqual({
			ok: true,
		});
		await h.tutor.idle(sessionId);
		expect(h.of("answered")[0]?.result).toEqual({ answer: "1/2", correct: true, by: ada });
		expect((await h.tutor.getSession(sessionId))?.members).toBeUndefined();
		await h.tutor.close();
	});
});

describe("a vote's acknowledgement", () => {
	it("says 'changed' when the member's earlier ballot is still queued behind a running turn", async () => {
		const { voteJob } = await import("../../../src/agent/engine/votes.ts");
		const at = "2026-12-01T00:00:00Z";
		const queued = { type: "vote" as const, toolCallId: "t1", ballot: { by: ada, answer: "2/8", at } };
		// Only what voteJob reads: no ballot recorded yet, Ada's first one waiting in the queue.
		const state = { record: { votes: {} }, queue: [queued] } as unknown as Parameters<typeof voteJob>[0];
		const result = { answer: "1/2", correct: true } as Omit<AnswerResult, "by">;
		const quiz = { ...check, type: "check" as const };
		expect(voteJob(state, "t1", quiz, result, ada, at).ack.changed).toBe(true);
		expect(voteJob(state, "t1", quiz, result, bob, at).ack.changed).toBe(false);
	});
});
