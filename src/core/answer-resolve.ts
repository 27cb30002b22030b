/**
 * Turning a learner's click or typed reply into the answer our code authors
 * as the tool result: which option, graded against correctAnswer. A typed
 * answer is judged (src/core/answer-match.ts: numbers in words, a number in a
 * sentence, units, accepted alternatives, an option by letter or text); what
 * the judge cannot decide is recorded as `judged: "unsure"` without `correct`,
 * and goes to the grading model (grade-pending.ts; the teacher judges when it
 * cannot). "I don't know" typed to a quiz is not known: `notSure`, not correct.
 */

import { DEFAULT_LOCALE, type Locale, t } from "../i18n/index.ts";
import { judgeAnswer, saysDontKnow } from "./answer-match.ts";
import { pickTypedOption } from "./answer-options.ts";
import type { AnswerResult } from "./contracts/events.ts";
import type { AskToolInput, QuizToolInput } from "./question-core.ts";

/** Longest typed answer we record (a chat message, not an essay). */
export const MAX_ANSWER_CHARS = 2000;

/** Case-fold, trim, collapse whitespace, drop wrapping quotes/backticks and a trailing period. */
export function normalizeAnswer(text: string): string {
	// Trailing runs are matched only where they start ("(?<!…)"): "X+$" alone retries from every character of a
	// long run (quadratic). Leading and trailing quotes in two steps, so the second sees what the first left.
	return text
		.normalize("NFKC")
		.trim()
		.replace(/^["'`“‘]+/, "")
		.replace(/(?<!["'`”’])["'`”’]+$/, "")
		.replace(/(?<![.!])[.!]+$/, "")
		.replace(/\s+/g, " ")
		.trim()
		.toLowerCase();
}

/** A resolved answer (without `by`), or why the value was refused. */
export type AnswerVerdict = { ok: true; result: Omit<AnswerResult, "by"> } | { ok: false; message: string };

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** The index of an option a choice names: exact text, normalized text, or a 0-based index (a click, not typing). */
function optionIndex(options: readonly string[], value: string | number): number | undefined {
	if (typeof value === "number")
		return Number.isInteger(value) && value >= 0 && value < options.length ? value : undefined;
	const exact = options.indexOf(value);
	if (exact >= 0) return exact;
	const norm = normalizeAnswer(value);
	const loose = options.findIndex((o) => normalizeAnswer(o) === norm);
	if (loose >= 0) return loose;
	if (/^\d+$/.test(value.trim())) {
		const i = Number(value.trim());
		if (i < options.length) return i;
	}
	return undefined;
}

function freeText(value: string | number, locale: Locale): AnswerVerdict | string {
	const text = String(value).trim();
	if (text === "") return { ok: false, message: t(locale, "engine.answerEmpty") };
	if (text.length > MAX_ANSWER_CHARS)
		return { ok: false, message: t(locale, "engine.answerTooLong", { max: String(MAX_ANSWER_CHARS) }) };
	return text;
}

/** "I don't know" typed to a quiz: not known (the same shape as the Not sure button), never a guess to judge. */
const NOT_SURE = (answer: string): Omit<AnswerResult, "by"> => ({ answer, correct: false, notSure: true });

/** Grade a quiz answer: a choice (text or 0-based index) or a typed reply, judged (never string-matched). */
export function resolveQuizAnswer(
	quiz: QuizToolInput,
	value: string | number,
	typed: boolean,
	locale: Locale = DEFAULT_LOCALE,
): AnswerVerdict {
	if (quiz.options !== undefined) {
		if (typed) return typedOption(quiz, quiz.options, value, locale);
		const i = optionIndex(quiz.options, value);
		const option = i === undefined ? undefined : quiz.options[i];
		if (option === undefined)
			return {
				ok: false,
				message: t(locale, "engine.pickOneOf", {
					count: quiz.options.length,
					first: "A",
					last: LETTERS[quiz.options.length - 1] ?? "",
				}),
			};
		return { ok: true, result: { answer: option, correct: option === quiz.correctAnswer } };
	}
	const text = freeText(value, locale);
	if (typeof text !== "string") return text;
	if (saysDontKnow(text, locale)) return { ok: true, result: NOT_SURE(text) };
	const judged = judgeAnswer(text, quiz.correctAnswer, quiz.acceptedAnswers ?? [], locale);
	if (judged === "unsure") return { ok: true, result: { answer: text, judged } };
	return { ok: true, result: { answer: text, correct: judged === "correct" } };
}

/**
 * The judge's own result for a typed quiz answer when it decides it (correct, incorrect, "not sure"),
 * else undefined: only then may the grader be asked (grade-pending.ts checks again before each call).
 */
export function decidedByJudge(
	quiz: QuizToolInput,
	answer: string,
	locale: Locale = DEFAULT_LOCALE,
): Omit<AnswerResult, "by"> | undefined {
	const verdict = resolveQuizAnswer(quiz, answer, true, locale);
	if (!verdict.ok) return undefined;
	const r = verdict.result;
	return typeof r.correct === "boolean" || r.notSure === true ? r : undefined;
}

/** A typed reply to a quiz with options: the option it names, else the words, for the model to judge. */
function typedOption(
	quiz: QuizToolInput,
	options: readonly string[],
	value: string | number,
	locale: Locale,
): AnswerVerdict {
	const text = freeText(value, locale);
	if (typeof text !== "string") return text;
	const exact = options.indexOf(text);
	if (exact < 0 && saysDontKnow(text, locale)) return { ok: true, result: NOT_SURE(text) };
	const pick = exact >= 0 ? { ok: true as const, index: exact } : pickTypedOption(text, options, locale);
	const option = pick.ok ? options[pick.index] : undefined;
	if (option === undefined) return { ok: true, result: { answer: text, judged: "unsure" } };
	return { ok: true, result: { answer: option, correct: option === quiz.correctAnswer } };
}

/** Resolve an ask answer: an option (value, label or 0-based index) or free text. */
export function resolveAskAnswer(
	ask: AskToolInput,
	value: string | number,
	typed: boolean,
	locale: Locale = DEFAULT_LOCALE,
): AnswerVerdict {
	const options = ask.options ?? [];
	if (options.length > 0) {
		let i = optionIndex(
			options.map((o) => o.value),
			value,
		);
		if (i === undefined && typeof value === "string") {
			const norm = normalizeAnswer(value);
			const byLabel = options.findIndex((o) => normalizeAnswer(o.label) === norm);
			if (byLabel >= 0) i = byLabel;
		}
		const option = i === undefined ? undefined : options[i];
		if (option) return { ok: true, result: { answer: option.value, label: option.label } };
		// A typed reply to an ask with options is still an answer (asks have no right answer).
		if (!typed) return { ok: false, message: t(locale, "engine.pickOne", { count: options.length }) };
	}
	const text = freeText(value, locale);
	if (typeof text !== "string") return text;
	return { ok: true, result: { answer: text } };
}
