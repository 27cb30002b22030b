import { describe, expect, it } from "vitest";
import type { PlanTree } from "../../src/core/contracts/plan.ts";
import { choseMoveOn, MAX_RECHECKS, MOVE_ON_VALUE, openRevisits } from "../../src/core/revisits.ts";

const tree: PlanTree = {
	nodes: [
		{ id: "a", title: "Alpha" },
		{ id: "b", title: "Beta" },
		{ id: "c", title: "Gamma" },
	],
	edges: [
		{ from: "a", to: "b" },
		{ from: "b", to: "c" },
	],
	version: 1,
};

type Part = { type: string; state?: string; input?: unknown; output?: unknown };
const by = { id: "u1", name: "Ada" };
const right = { answer: "4", correct: true, by };
const wrong = { answer: "3", correct: false, by };
const afterHint = { ...right, hints: ["look again"], hinted: true };
const skipped = { answer: "", skipped: true, by };
const notSure = { answer: "", correct: false, notSure: true, by };
const unsure = { answer: "four-ish", judged: "unsure", by };

/** An answered quiz on `nodeId` (check unless told). */
const quiz = (nodeId: string | undefined, output: unknown, type = "check"): Part => ({
	type: "tool-quiz",
	state: "output-available",
	input: { question: "2 + 2?", options: ["3", "4"], correctAnswer: "4", type, ...(nodeId ? { nodeId } : {}) },
	output,
});
/** An answered ask with options; `answer` is the chosen value. */
const ask = (answer: string, extra: object = {}): Part => ({
	type: "tool-ask",
	state: "output-available",
	input: {
		question: "Once more, or move on?",
		options: [
			{ value: "again", label: "Once more" },
			{ value: MOVE_ON_VALUE, label: "Move on" },
		],
	},
	output: { answer, by, ...extra },
});
const open = (...parts: Part[]) => openRevisits(tree, [{ parts }]).map((n) => n.nodeId);

describe("shaky nodes to revisit before the recap", () => {
	it("opens a node on a shaky check: missed, not sure, skipped, right only after help", () => {
		expect(open(quiz("a", wrong), quiz("b", notSure), quiz("c", skipped))).toEqual(["a", "b", "c"]);
		expect(open(quiz("a", afterHint))).toEqual(["a"]);
		// In map order, with titles and counts.
		expect(openRevisits(tree, [{ parts: [quiz("c", wrong), quiz("a", wrong)] }])).toEqual([
			{ nodeId: "a", title: "Alpha", rechecks: 0 },
			{ nodeId: "c", title: "Gamma", rechecks: 0 },
		]);
	});

	it("leaves learned nodes, predictions, untagged quizzes, unknown ids and undecided answers alone", () => {
		expect(open(quiz("a", right))).toEqual([]);
		expect(open(quiz("a", wrong, "predict"))).toEqual([]);
		expect(open(quiz(undefined, wrong), quiz("zz", wrong))).toEqual([]);
		expect(open(quiz("a", unsure))).toEqual([]);
		// An open (unanswered) check does not count either way.
		expect(open({ ...quiz("a", wrong), state: "input-available", output: undefined })).toEqual([]);
	});

	it("settles a node when a later check on it is right, on any try", () => {
		expect(open(quiz("a", wrong), quiz("a", right))).toEqual([]);
		expect(open(quiz("a", wrong), quiz("a", afterHint))).toEqual([]);
		// A check on another node, or a right prediction, is not a second look at this one.
		expect(open(quiz("a", wrong), quiz("b", right))).toEqual(["a"]);
		expect(open(quiz("a", wrong), quiz("a", right, "predict"))).toEqual(["a"]);
		// An undecided re-check waits for its verdict.
		expect(open(quiz("a", wrong), quiz("a", unsure))).toEqual(["a"]);
	});

	it("lets a node go when the learner skips its re-check or picks the move-on option", () => {
		expect(open(quiz("a", wrong), quiz("a", skipped))).toEqual([]);
		expect(open(quiz("a", wrong), quiz("b", notSure), ask(MOVE_ON_VALUE))).toEqual([]);
		// The other option, or a move-on that was skipped (the lesson ended), lets nothing go.
		expect(open(quiz("a", wrong), ask("again"))).toEqual(["a"]);
		expect(open(quiz("a", wrong), ask(MOVE_ON_VALUE, { skipped: true }))).toEqual(["a"]);
		// Moving on releases the nodes open then, not a node that turns shaky afterwards.
		expect(open(quiz("a", wrong), ask(MOVE_ON_VALUE), quiz("b", wrong))).toEqual(["b"]);
	});

	it(`lets a node go after ${MAX_RECHECKS} missed re-checks (bounded), counting them`, () => {
		const once = openRevisits(tree, [{ parts: [quiz("a", wrong), quiz("a", wrong)] }]);
		expect(once).toEqual([{ nodeId: "a", title: "Alpha", rechecks: 1 }]);
		const parts = [quiz("a", wrong), ...Array.from({ length: MAX_RECHECKS }, () => quiz("a", notSure))];
		expect(open(...parts)).toEqual([]);
	});

	it("opens a settled node again when a later check misses it", () => {
		expect(open(quiz("a", wrong), quiz("a", right), quiz("a", wrong))).toEqual(["a"]);
		expect(open(quiz("a", right), quiz("a", wrong))).toEqual(["a"]);
	});

	it("ignores a group's split vote on a re-check (its revote decides)", () => {
		const split = { ...wrong, vote: { revote: true } };
		const parts = [quiz("a", wrong), ...Array.from({ length: MAX_RECHECKS + 2 }, () => quiz("a", split))];
		expect(open(...parts)).toEqual(["a"]);
	});

	it("reads a move-on choice only from the option value, never from a skip", () => {
		expect(choseMoveOn({ answer: MOVE_ON_VALUE, by })).toBe(true);
		expect(choseMoveOn({ answer: "Move on", by })).toBe(false);
		expect(choseMoveOn({ answer: MOVE_ON_VALUE, skipped: true, by })).toBe(false);
		expect(choseMoveOn(null)).toBe(false);
		expect(choseMoveOn("move-on")).toBe(false);
	});
});
