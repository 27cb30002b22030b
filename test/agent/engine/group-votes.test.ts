/**
 * Study groups that hold, on the real engine (SQLite, scripted models and the demo model), one
 * three-member test per rule: a split re-opens the question once and the lesson waits for the
 * revote (no step runs past the discussion, nothing posted twice); a tie is a tie; a wrong group
 * answer on a check gets a discussion and a second vote before any reveal (the second wrong vote
 * reveals it); a vote waits for every member active in the last ten minutes, also one who
 * arrives mid-vote, and not for one who left long ago; every participant gets their own row in
 * the report and their own mastery, from their own ballots.
 */

import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REVOTE_HOLD_TEXT, REVOTE_SUFFIX, WRONG_NEXT } from "../../../src/agent/engine/revote.ts";
import { openStateStore } from "../../../src/agent/index.ts";
import { createDemoModel } from "../../../src/agent/models/demo-model.ts";
import { createLearning } from "../../../src/agent/profile/learning.ts";
import type { AnswerResult, Participant, TutorEvent } from "../../../src/core/contracts/events.ts";
import { ACTIVE_MINUTES } from "../../../src/core/votes.ts";
import { answeredCard, tallyCard } from "../../../src/render/index.ts";
import { manualTimers } from "../../fixtures/manual-timers.ts";
import { assessmentInput, type Harness, harness, planMermaid, scriptedModel, tempDir } from "../helpers.ts";

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
const opening = [
	{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
	{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
];

/** Each member votes `values[i]` on `toolCallId`, then the session settles. */
async function vote(h: Harness, sessionId: string, toolCallId: string, votes: Array<[Participant, number]>) {
	for (const [by, value] of votes)
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId, value, by })).toMatchObject({ ok: true });
	await h.tutor.idle(sessionId);
}

/** Three members say hello while the first vote is open (active members). */
async function gather(h: Harness, sessionId: string) {
	for (const by of [bob, cy]) await h.tutor.handle(sessionId, { type: "message", text: "hi", by });
	await h.tutor.idle(sessionId);
}

describe("a split holds the lesson until its revote", () => {
	it("re-opens the question once; the discussion is one step, its tool calls refused; nothing is posted twice", async () => {
		const model = scriptedModel([
			...opening,
			{ text: "Vote, everyone.", calls: [{ name: "quiz", input: check, id: "t1" }] },
			// A model that discusses AND goes on to teach the next node: the explanation and the question are refused,
			// and the turn ends with this step (the reply after it is the one for the revote's tally).
			{
				text: "You split three ways. Why might 2/8 look right?",
				calls: [
					{ name: "explain", input: { title: "Unlike denominators", body: "Next idea.", nodeId: "unlike" }, id: "e2" },
					{ name: "quiz", input: { ...check, nodeId: "unlike", question: "Next?" }, id: "t2" },
				],
			},
			{ text: "Now you agree: 1/2." },
		]);
		const h = await harness(dir.path, model, {
			timers: manualTimers().fns,
			now: () => new Date("2026-02-01T09:00:00Z"),
		});
		const sessionId = "terminal:hold-split";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		await gather(h, sessionId);
		await vote(h, sessionId, "t1", [
			[ada, 0],
			[bob, 1],
			[cy, 2],
		]);

		expect(h.of("answered")[0]?.result.vote).toMatchObject({ voters: 3, correctVotes: 1, split: true, revote: true });
		// One step of discussion, then the revote: no request ran past it, no explanation or new question was shown.
		expect(model.doStreamCalls).toHaveLength(4);
		expect(h.of("explain")).toEqual([]);
		expect(h.of("quiz").map((q) => q.toolCallId)).toEqual(["t1", `t1${REVOTE_SUFFIX}`]);
		const record = (await h.store.get(sessionId))!;
		const refused = record.messages.flatMap((m) => m.parts).filter((p) => "errorText" in p);
		expect(refused.map((p) => ("toolCallId" in p ? p.toolCallId : ""))).toEqual(["e2", "t2"]);
		for (const p of refused) expect(p).toMatchObject({ errorText: REVOTE_HOLD_TEXT });
		const texts = h.of("text").map((e) => e.text);
		expect(texts.filter((t) => t.includes("split three ways"))).toHaveLength(1);
		expect(new Set(texts).size).toBe(texts.length); // nothing said twice
		expect(h.of("error")).toEqual([]);

		// The lesson goes on only after the revote's tally, and never revotes twice.
		await vote(h, sessionId, `t1${REVOTE_SUFFIX}`, [
			[ada, 0],
			[bob, 0],
			[cy, 1],
		]);
		expect(h.of("answered")[1]?.result.vote).toMatchObject({ round: 2, split: true, revote: false });
		expect(model.doStreamCalls).toHaveLength(5);
		expect(h.of("quiz")).toHaveLength(2);
		await h.tutor.close();
	});

	it("the demo model on a 1/1/1 split: one discussion, the revote, then the next node", async () => {
		const h = await harness(dir.path, createDemoModel(), { timers: manualTimers().fns });
		const sessionId = "terminal:hold-demo";
		await h.tutor.startLesson({ sessionId, topic: "binary search", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		await gather(h, sessionId);
		const seen = new Set<string>();
		let split: Extract<TutorEvent, { type: "quiz" }> | undefined;
		// Everyone votes right until the first check, which splits one each.
		for (let i = 0; i < 20 && !split; i++) {
			const open = h.events.find(
				(e): e is Extract<TutorEvent, { type: "quiz" }> => e.type === "quiz" && !seen.has(e.toolCallId),
			);
			if (!open) break;
			seen.add(open.toolCallId);
			const options = open.input.options ?? [];
			if (open.input.type === "check" && options.length === 3) split = open;
			for (const [n, by] of [ada, bob, cy].entries()) {
				const event =
					options.length === 0
						? { type: "reply" as const, toolCallId: open.toolCallId, text: open.input.correctAnswer, by }
						: {
								type: "answer" as const,
								toolCallId: open.toolCallId,
								value: split ? n : open.input.correctAnswer,
								by,
							};
				expect(await h.tutor.handle(sessionId, event)).toMatchObject({ ok: true });
			}
			await h.tutor.idle(sessionId);
		}
		expect(split).toBeDefined();
		const id = split?.toolCallId ?? "";
		const after = h.events.slice(h.events.findIndex((e) => e.type === "answered" && e.toolCallId === id) + 1);
		// After the tally: one discussion, then the same question again; no explanation, no new question, no error.
		expect(after.filter((e) => e.type === "text")).toHaveLength(1);
		expect(after.filter((e) => e.type === "explain" || e.type === "error")).toEqual([]);
		expect(after.filter((e) => e.type === "quiz").map((e) => (e as { toolCallId: string }).toolCallId)).toEqual([
			`${id}${REVOTE_SUFFIX}`,
		]);
		const discussion = after.find((e) => e.type === "text") as { text: string };
		expect(discussion.text).toMatch(/vote again/);
		expect(discussion.text).not.toContain(split?.input.correctAnswer);
		// The revote agrees: the demo reacts and moves on to the next node.
		await vote(h, sessionId, `${id}${REVOTE_SUFFIX}`, [
			[ada, 0],
			[bob, 0],
			[cy, 0],
		]);
		const next = h.events.filter((e) => e.type === "quiz").at(-1) as Extract<TutorEvent, { type: "quiz" }>;
		expect(next.toolCallId).not.toContain(id);
		expect(h.of("error")).toEqual([]);
		// Nothing was said twice in the whole lesson, and every question was asked once (its revote aside).
		const texts = h.of("text").map((e) => e.text);
		expect(new Set(texts).size).toBe(texts.length);
		const asked = h.of("quiz").map((q) => q.input.question);
		expect(asked.filter((q) => q === split?.input.question)).toHaveLength(2);
		expect(new Set(asked).size).toBe(asked.length - 1);
		await h.tutor.close();
	});
});

describe("a tie is shown as a tie", () => {
	it("names every tied answer, on the result, the tally and the closed card; no verdict on one answer", async () => {
		const predict = { ...check, type: "predict" };
		const model = scriptedModel([
			...opening,
			{ text: "Guess first.", calls: [{ name: "quiz", input: predict, id: "p1" }] },
			{ text: "Three guesses, three answers." },
		]);
		const h = await harness(dir.path, model, {
			timers: manualTimers().fns,
			now: () => new Date("2026-02-02T09:00:00Z"),
		});
		const sessionId = "terminal:hold-tie";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		await gather(h, sessionId);
		await vote(h, sessionId, "p1", [
			[ada, 2],
			[bob, 1],
			[cy, 0],
		]);
		const event = h.of("answered")[0]!;
		expect(event.result).toMatchObject({
			answer: "4/2 | 2/8 | 1/2",
			vote: { tie: ["4/2", "2/8", "1/2"], revote: false },
		});
		const tally = tallyCard(event)!;
		expect(tally.text).toContain("It's a tie between C · B · A.");
		const card = answeredCard(event);
		expect(card.tie).toEqual(["C. 4/2", "B. 2/8", "A. 1/2"]);
		expect(card.chosenIndex).toBeUndefined();
		expect(card.correct).toBeUndefined();
		expect(card.by.name).toBe("the group (3 votes)");
		await h.tutor.close();
	});
});

describe("a wrong group answer on a check gets the struggle a solo learner gets", () => {
	it("unanimous wrong: a discussion and a second vote before any reveal; right then is a second try", async () => {
		const model = scriptedModel([
			...opening,
			{ text: "Vote.", calls: [{ name: "quiz", input: check, id: "t1" }] },
			{ text: "All of you chose 2/8. What does the 8 count?" },
			{ text: "Yes: 1/2." },
		]);
		const h = await harness(dir.path, model, {
			timers: manualTimers().fns,
			now: () => new Date("2026-02-03T09:00:00Z"),
		});
		const sessionId = "terminal:hold-wrong";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		await gather(h, sessionId);
		await vote(h, sessionId, "t1", [
			[ada, 1],
			[bob, 1],
			[cy, 1],
		]);
		const first = h.of("answered")[0]!;
		expect(first.result).toMatchObject({ correct: false, vote: { split: false, revote: true, next: WRONG_NEXT } });
		expect(first.result.revealed).toBeUndefined();
		// Nothing reveals the answer: not the tally, not the closed card.
		expect(tallyCard(first)!.text).not.toContain("✓");
		expect(tallyCard(first)!.text).toContain("you vote again before any answer is shown");
		expect(answeredCard(first)).not.toHaveProperty("reveal");
		expect(answeredCard(first)).not.toHaveProperty("correct");
		expect(h.of("quiz").map((q) => q.toolCallId)).toEqual(["t1", `t1${REVOTE_SUFFIX}`]);

		await vote(h, sessionId, `t1${REVOTE_SUFFIX}`, [
			[ada, 0],
			[bob, 0],
			[cy, 0],
		]);
		const second = h.of("answered")[1]!;
		// Right on the second vote: a second try, as a solo learner's (the node is shaky, not learned).
		expect(second.result).toMatchObject({ correct: true, attempts: [{ answer: "2/8", correct: false }] });
		expect(answeredCard(second)).toMatchObject({ correct: true, tries: 1 });
		expect((await h.tutor.getSession(sessionId))?.plan?.mastery?.["common-denominator"]).toBe("shaky");
		expect(model.doStreamCalls).toHaveLength(5);
		await h.tutor.close();
	});

	it("wrong twice: the second vote's tally and card reveal the answer", async () => {
		const model = scriptedModel([
			...opening,
			{ text: "Vote.", calls: [{ name: "quiz", input: check, id: "t1" }] },
			{ text: "Most of you chose 2/8. Think about what 2/4 means." },
			{ text: "The answer is 1/2: here is why." },
		]);
		const h = await harness(dir.path, model, {
			timers: manualTimers().fns,
			now: () => new Date("2026-02-04T09:00:00Z"),
		});
		const sessionId = "terminal:hold-wrong-twice";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		await gather(h, sessionId);
		await vote(h, sessionId, "t1", [
			[ada, 1],
			[bob, 1],
			[cy, 0],
		]);
		expect(h.of("answered")[0]?.result).toMatchObject({ correct: false, vote: { revote: true } });
		// The second vote ties, and the group is still wrong: the tie is said, and now the answer shows.
		await vote(h, sessionId, `t1${REVOTE_SUFFIX}`, [
			[ada, 1],
			[bob, 2],
			[cy, 0],
		]);
		const second = h.of("answered")[1]!;
		expect(second.result).toMatchObject({ correct: false, revealed: true, vote: { round: 2, revote: false } });
		expect(tallyCard(second)!.text).toContain("A. 1/2: ███ 1 ✓");
		expect(tallyCard(second)!.text).toContain("It's a tie between B · C · A.");
		expect(answeredCard(second)).toMatchObject({
			reveal: { correctAnswer: "1/2" },
			tie: ["B. 2/8", "C. 4/2", "A. 1/2"],
		});
		expect(answeredCard(second)).not.toHaveProperty("correct");
		await h.tutor.close();
	});
});

describe("a vote waits for every member active in the last minutes", () => {
	it("waits for a member who arrives mid-vote, not for one who left long ago", async () => {
		const model = scriptedModel([
			...opening,
			{ text: "Vote.", calls: [{ name: "quiz", input: check, id: "t1" }] },
			{ text: "All three of you: 1/2." },
		]);
		const timers = manualTimers();
		let now = Date.parse("2026-02-05T09:00:00Z");
		const dan = { id: "u-dan", name: "Dan" };
		const h = await harness(dir.path, model, { timers: timers.fns, now: () => new Date(now) });
		const sessionId = "terminal:hold-active";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "message", text: "hi, Dan here", by: dan });
		await h.tutor.idle(sessionId);
		now += (ACTIVE_MINUTES + 5) * 60_000; // Dan (and the lesson's start) are long ago now
		for (const by of [ada, bob]) await h.tutor.handle(sessionId, { type: "message", text: "ready", by });
		await h.tutor.idle(sessionId);
		await vote(h, sessionId, "t1", [[ada, 0]]);
		// Cy arrives while the vote is open: from their first word they count.
		now += 20_000;
		await h.tutor.handle(sessionId, { type: "message", text: "hi, just joined, what are we voting on?", by: cy });
		await h.tutor.idle(sessionId);
		await vote(h, sessionId, "t1", [[bob, 0]]);
		expect(h.of("answered")).toEqual([]); // two of three: the vote waits for Cy
		now += 10_000;
		await vote(h, sessionId, "t1", [[cy, 0]]);
		// Three voted: it closes at once (not on its timer), without waiting for Dan.
		const tally = h.of("answered")[0]?.result as AnswerResult;
		expect(tally.vote).toMatchObject({ voters: 3, timedOut: false });
		expect(tally.vote?.members.map((m) => m.id)).toEqual(["u-ada", "u-bob", "u-cy"]);
		expect(timers.waits()).toEqual([]);
		await h.tutor.close();
	});
});

describe("every participant has their own row and their own mastery", () => {
	it("each voter's ballots make their profile entry; a member who only spoke gets a row too", async () => {
		const model = scriptedModel([
			...opening,
			{ text: "Vote.", calls: [{ name: "quiz", input: check, id: "t1" }] },
			{ text: "Some of you chose 2/8: why?" },
			{ text: "Most of you agree now." },
		]);
		let now = Date.parse("2026-02-06T09:00:00Z");
		const clock = () => new Date(now);
		const h = await harness(dir.path, model, { timers: manualTimers().fns, now: clock });
		const profiles = openStateStore(`sqlite://${join(dir.path, "lh.sqlite")}`, "learnharness:profiles");
		const learning = createLearning({ state: profiles, sessions: h.store, now: clock });
		const sessionId = "discord:g1:4242";
		const dan = { id: "u-dan", name: "Dan" };
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		// Dan says a word and leaves; the others gather later (the votes do not wait for Dan).
		await h.tutor.handle(sessionId, { type: "message", text: "just watching", by: dan });
		now += (ACTIVE_MINUTES + 1) * 60_000;
		await gather(h, sessionId);
		await vote(h, sessionId, "t1", [
			[ada, 1],
			[bob, 0],
			[cy, 0],
		]);
		await vote(h, sessionId, `t1${REVOTE_SUFFIX}`, [
			[ada, 0],
			[bob, 0],
			[cy, 2],
		]);
		expect(await h.tutor.handle(sessionId, { type: "end", by: ada })).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		await learning.recordLesson((await h.store.get(sessionId))!);

		const rows = await learning.report("g1");
		expect(rows.map((r) => [r.member, r.questionsAnswered, r.firstTryAccuracy, r.nodesLearned]).sort()).toEqual([
			["u-ada", 2, 0, 0], // wrong, then right on the revote: a second try
			["u-bob", 2, 1, 1], // right both times: learned
			["u-cy", 2, 0.5, 0], // right, then wrong on the revote
			["u-dan", 0, 0, 0], // spoke, never voted
		]);
		const mastery = async (id: string) =>
			(await learning.profile(`discord:${id}`))?.lessons[0]?.nodes.find((n) => n.id === "common-denominator")?.mastery;
		expect(await mastery("u-ada")).toBe("shaky");
		expect(await mastery("u-bob")).toBe("learned");
		expect(await mastery("u-cy")).toBe("shaky");
		expect(await mastery("u-dan")).toBe("not-yet");
		expect((await learning.items("discord:u-bob")).map((i) => i.nodeId)).toEqual(["common-denominator"]);
		expect(await learning.items("discord:u-dan")).toEqual([]);
		expect((await learning.profile("discord:u-bob"))?.lessons[0]).toMatchObject({ joined: true });
		expect((await learning.profile("discord:u-ada"))?.lessons[0]).not.toHaveProperty("joined");

		// Forget-me by a member who joined: their entry goes, the group's lesson stays (it is the starter's).
		expect(await learning.forget("discord:u-bob")).toEqual({ sessions: [], reviewThreads: [] });
		expect(await h.store.get(sessionId)).toBeDefined();
		expect((await learning.report("g1")).map((r) => r.member).sort()).toEqual(["u-ada", "u-cy", "u-dan"]);
		await profiles.close();
		await h.tutor.close();
	});
});

describe("help on a group vote", () => {
	it("a member's Not sure is their own ballot and Explain another way is refused: the vote stays open for the others", async () => {
		const model = scriptedModel([
			...opening,
			{ text: "Vote, everyone.", calls: [{ name: "quiz", input: check, id: "t1" }] },
		]);
		const h = await harness(dir.path, model, {
			timers: manualTimers().fns,
			now: () => new Date("2026-02-01T09:00:00Z"),
		});
		const sessionId = "terminal:help-in-vote";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner: ada, mode: "group" });
		await h.tutor.idle(sessionId);
		await gather(h, sessionId);
		expect(await h.tutor.handle(sessionId, { type: "help", toolCallId: "t1", kind: "not-sure", by: bob })).toEqual({
			ok: true,
			vote: { answer: "Not sure", changed: false },
		});
		expect(await h.tutor.handle(sessionId, { type: "help", toolCallId: "t1", kind: "explain", by: cy })).toMatchObject({
			ok: false,
			code: "invalid-answer",
		});
		await h.tutor.idle(sessionId);
		// Nothing closed: the question is open, and no one's click answered it for the group.
		expect(h.of("answered")).toEqual([]);
		expect((await h.tutor.getSession(sessionId))?.pending.map((p) => p.toolCallId)).toEqual(["t1"]);
		await h.tutor.close();
	});
});
