/**
 * What an answer result means, read in one place. The answered card, mastery,
 * the profile's lesson facts and the demo model all ask this function instead
 * of reading the raw AnswerResult fields (contracts/events.ts) each their own
 * way, so they cannot disagree on what counts as an answer or as help.
 *
 * The first matching rule wins:
 *   skipped:       the learner moved on instead of answering;
 *   not-sure:      the learner said they do not know (an answer: not known, never a guess);
 *   explain-again: the learner asked for another explanation instead of answering;
 *   first-try:     graded right, on the first try, with no help;
 *   after-help:    graded right after a second try, a hint or the answer shown;
 *   shown:         graded wrong with nothing answered (the learner asked to see the answer);
 *   missed:        graded wrong;
 *   pending:       typed words nobody has decided yet (`judged: "unsure"`): the grader or teacher decides;
 *   plain:         anything ungraded (an ask's answer, a result with no verdict).
 *
 * The input is read defensively (it comes from stored transcripts, maybe from a
 * newer grader): a help signal is a non-empty list, a positive count, `true` or
 * a non-empty string.
 */

/** What an answer result means (see the rules above). */
export type OutcomeKind =
	| "skipped"
	| "not-sure"
	| "explain-again"
	| "first-try"
	| "after-help"
	| "shown"
	| "missed"
	| "pending"
	| "plain";

/** An answer result's meaning; `tally` when it is a group's closed vote ("split": a revote follows, after a split or a wrong first vote; no verdict shown). */
export interface Outcome {
	kind: OutcomeKind;
	tally?: "decided" | "split";
}

/** True for a help signal: a non-empty list, a positive count, `true` or a non-empty string. */
function helped(value: unknown): boolean {
	if (Array.isArray(value)) return value.length > 0;
	if (typeof value === "number") return value > 0;
	if (typeof value === "string") return value !== "";
	return value === true;
}

/** The kind alone, from a result's fields. */
function kindOf(o: Record<string, unknown>): OutcomeKind {
	if (o.skipped === true) return "skipped";
	if (o.notSure === true) return "not-sure";
	if (o.explainAgain === true) return "explain-again";
	if (o.correct === true) {
		const help = helped(o.attempts) || helped(o.hints) || o.hinted === true || o.revealed === true;
		return help ? "after-help" : "first-try";
	}
	if (o.correct === false) return o.answer === "" ? "shown" : "missed";
	if (o.judged === "unsure") return "pending";
	return "plain";
}

/** What an answer result (an AnswerResult, or any stored tool output) means. Never throws. */
export function outcomeOf(result: unknown): Outcome {
	if (typeof result !== "object" || result === null) return { kind: "plain" };
	const o = result as Record<string, unknown>;
	const kind = kindOf(o);
	const vote = o.vote;
	if (typeof vote !== "object" || vote === null) return { kind };
	return { kind, tally: (vote as { revote?: unknown }).revote === true ? "split" : "decided" };
}

/** Graded right (on the first try or after help). */
export function isRight(outcome: Outcome): boolean {
	return outcome.kind === "first-try" || outcome.kind === "after-help";
}

/** An answer that counts (graded, or "not sure"): what mastery and the profile's answered count read. */
export function isAnswer(outcome: Outcome): boolean {
	return isRight(outcome) || outcome.kind === "missed" || outcome.kind === "shown" || outcome.kind === "not-sure";
}
