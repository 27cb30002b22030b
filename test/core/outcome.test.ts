import { describe, expect, it } from "vitest";
import { answeredRight } from "../../src/agent/models/demo-lesson.ts";
import { lessonFacts } from "../../src/agent/profile/lesson-facts.ts";
import type { VoteOutcome } from "../../src/core/contracts/vote-outcome.ts";
import { checkVerdict } from "../../src/core/mastery.ts";
import { type OutcomeKind, outcomeOf } from "../../src/core/outcome.ts";
import { answeredCard, answerOutcome } from "../../src/render/index.ts";
import { fractionsRecord } from "../fixtures/profile-lesson.ts";

const by = { id: "u1", name: "Ada" };
const check = { type: "check" as const, nodeId: "common", question: "1/3 and 1/6 share?", correctAnswer: "6" };
const tally: VoteOutcome = {
	round: 1,
	voters: 3,
	correctVotes: 2,
	counts: [],
	members: [],
	split: false,
	revote: false,
	timedOut: false,
	namesShown: false,
};

/**
 * One row per kind of result: what outcomeOf says, and what each reader makes of it (the card's outcome,
 * the node's mastery, whether the profile counts an answer and a first try, whether the demo reacts as to a right one).
 */
const rows: Array<{
	name: string;
	result: Record<string, unknown>;
	kind: OutcomeKind;
	card: string;
	mastery: "learned" | "shaky" | undefined;
	answered: boolean;
	right: boolean;
}> = [
	{
		name: "right first try",
		result: { answer: "6", correct: true },
		kind: "first-try",
		card: "correct",
		mastery: "learned",
		answered: true,
		right: true,
	},
	{
		name: "right on the second try",
		result: { answer: "6", correct: true, attempts: [{ answer: "3" }] },
		kind: "after-help",
		card: "correct",
		mastery: "shaky",
		answered: true,
		right: true,
	},
	{
		name: "right with a hint",
		result: { answer: "6", correct: true, hints: ["halve"], hinted: true },
		kind: "after-help",
		card: "correct",
		mastery: "shaky",
		answered: true,
		right: true,
	},
	{
		name: "missed",
		result: { answer: "3", correct: false },
		kind: "missed",
		card: "wrong",
		mastery: "shaky",
		answered: true,
		right: false,
	},
	{
		name: "missed twice, then shown",
		result: { answer: "3", correct: false, revealed: true, attempts: [{ answer: "2" }] },
		kind: "missed",
		card: "wrong",
		mastery: "shaky",
		answered: true,
		right: false,
	},
	{
		name: "shown on request, nothing answered",
		result: { answer: "", correct: false, revealed: true },
		kind: "shown",
		card: "shown",
		mastery: "shaky",
		answered: true,
		right: false,
	},
	{
		name: "not sure",
		result: { answer: "", notSure: true, correct: false },
		kind: "not-sure",
		card: "not-sure",
		mastery: "shaky",
		answered: true,
		right: false,
	},
	{
		name: "not sure, no verdict field",
		result: { answer: "no idea", notSure: true },
		kind: "not-sure",
		card: "not-sure",
		mastery: "shaky",
		answered: true,
		right: false,
	},
	{
		name: "skipped",
		result: { answer: "", skipped: true },
		kind: "skipped",
		card: "skipped",
		mastery: "shaky",
		answered: false,
		right: false,
	},
	{
		name: "explain again",
		result: { answer: "", explainAgain: true },
		kind: "explain-again",
		card: "explain-again",
		mastery: undefined,
		answered: false,
		right: false,
	},
	{
		name: "pending grading",
		result: { answer: "all of them", judged: "unsure" },
		kind: "pending",
		card: "plain",
		mastery: undefined,
		answered: false,
		right: false,
	},
	{
		name: "graded by the grader",
		result: { answer: "all 8", correct: true, judged: "grader", reason: "8." },
		kind: "first-try",
		card: "correct",
		mastery: "learned",
		answered: true,
		right: true,
	},
	{
		name: "ungraded (no verdict)",
		result: { answer: "yes" },
		kind: "plain",
		card: "plain",
		mastery: undefined,
		answered: false,
		right: false,
	},
	{
		name: "group tally, decided",
		result: { answer: "6", correct: true, vote: tally },
		kind: "first-try",
		card: "correct",
		mastery: "learned",
		answered: true,
		right: true,
	},
];

/** A finished lesson whose only tagged check has this result. */
function factsOf(result: Record<string, unknown>) {
	const record = fractionsRecord({ sessionId: "discord:g1:t1", learnerId: "u1" });
	const part = {
		type: "tool-quiz",
		toolCallId: "q",
		state: "output-available",
		input: check,
		output: { ...result, by },
	};
	return lessonFacts({
		...record,
		messages: [
			...record.messages.slice(0, 1),
			{
				id: "m1",
				role: "assistant",
				parts: [...record.messages[1]!.parts.filter((p) => p.type === "tool-plan_init"), part] as never,
			},
		],
	});
}

describe("outcomeOf: what an answer result means, the same for every reader", () => {
	it.each(rows)("$name", (row) => {
		const outcome = outcomeOf({ ...row.result, by });
		expect(outcome.kind).toBe(row.kind);
		const card = answeredCard({
			type: "answered",
			sessionId: "s",
			toolCallId: "q",
			kind: "quiz",
			quiz: check,
			result: { ...row.result, by } as never,
		});
		expect(answerOutcome(card).outcome).toBe(row.card);
		expect(checkVerdict({ ...row.result, by })).toBe(row.mastery);
		const facts = factsOf(row.result);
		expect(facts.questionsAnswered).toBe(row.answered ? 1 : 0);
		expect(facts.firstTryCorrect).toBe(row.kind === "first-try" ? 1 : 0);
		expect(facts.nodes.find((n) => n.id === "common")?.mastery).toBe(row.mastery ?? "not-yet");
		expect(answeredRight({ outcome: outcome.kind })).toBe(row.right);
	});

	it("reads a split group vote as a tally with no verdict on its card", () => {
		const result = { answer: "6", correct: true, vote: { ...tally, split: true, revote: true }, by };
		expect(outcomeOf(result)).toEqual({ kind: "first-try", tally: "split" });
		const card = answeredCard({ type: "answered", sessionId: "s", toolCallId: "q", kind: "quiz", quiz: check, result });
		expect(answerOutcome(card).outcome).toBe("plain");
		expect(card.reveal).toBeUndefined();
	});

	it("reads anything that is not an object as ungraded, never throwing", () => {
		for (const odd of [undefined, null, "text", 4, [], { correct: "yes" }]) expect(outcomeOf(odd).kind).toBe("plain");
		expect(outcomeOf({ correct: true, attempts: 2 }).kind).toBe("after-help");
		expect(outcomeOf({ correct: true, attempts: 0, hints: [] }).kind).toBe("first-try");
	});
});
