/**
 * Struggle before the answer (pure): what the learner can ask of an open
 * quiz (a hint, another explanation, to see the answer, to try again, or
 * "not sure"), how many wrong tries a check gets before its answer shows,
 * and the words our code puts in a result so the model reads it rightly
 * ("not sure" is "does not know", never a guess). The engine keeps the tries
 * and hints of an open question in the session record (see
 * agent/engine/struggle.ts) and hands them to the model with the final result.
 */

import { type AnswerKey, leaksAnswer } from "./answer-leaks.ts";
import { HELP_KINDS, type HelpKind } from "./contracts/help.ts";

export { HELP_KINDS, type HelpKind };

/** Wrong tries of a check quiz before its answer shows: the second miss reveals it. */
export const MAX_CHECK_TRIES = 2;

/** Hints one question may get (each is a model call; more would be the answer in pieces). */
export const MAX_HINTS = 3;

/** Longest hint kept (a chat line, not an explanation). */
export const MAX_HINT_CHARS = 600;

/** One wrong try at a check quiz, as the teacher sees it in the final result. */
export interface QuizAttempt {
	answer: string;
	correct: false;
}

/** What an open question gathered before it was resolved (kept in the session record, durable). */
export interface StruggleEntry {
	attempts: QuizAttempt[];
	hints: string[];
}

/** The note on a "not sure" result, for the model: it is not knowledge and not a guess. */
export const NOT_SURE_NOTE =
	'The learner chose "Not sure": they do not know this. Treat it as not known (never as a guess or a near miss).';

/** The note on a revealed result. */
export const REVEALED_NOTE = "The correct answer was shown to the learner: they did not find it themselves.";

/** The hint shown when the model's hint would give the answer away (or no hint came). */
export const GENERIC_HINT =
	"Go back to the idea this question is about and test each option against it: which one must be true, not just likely?";

/**
 * Whether a help kind resolves the question (closing the tool call) rather than leaving it open: Show answer
 * and Not sure do; a hint, another try and another explanation never close it.
 */
export function helpResolves(kind: HelpKind): boolean {
	return kind === "show" || kind === "not-sure";
}

/**
 * A hint safe to show: trimmed and bounded, or GENERIC_HINT when it is empty or gives the answer away
 * (core/answer-leaks.ts: the answer or an accepted form in any writing the judge accepts, "eight" for
 * 8, 0.75 for 3/4, O(log(n)) for O(log n); the right option by letter, ordinal or number; every wrong
 * option ruled out). Short answers ("8", "a") are matched as whole tokens. Linear in its inputs.
 */
export function safeHint(hint: string, key: string | AnswerKey): string {
	const text = hint.trim().slice(0, MAX_HINT_CHARS).trim();
	if (text === "") return GENERIC_HINT;
	const answer = typeof key === "string" ? { correctAnswer: key } : key;
	if (answer.correctAnswer.trim() === "") return text;
	return leaksAnswer(text, answer) ? GENERIC_HINT : text;
}
