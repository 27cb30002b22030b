/**
 * Turning a learner's click or typed reply into the answer our code authors
 * as the tool result: which option, graded against correctAnswer. Free
 * answers compare after trimming, case folding, whitespace collapsing and
 * number normalizing ("0.50" = ".5" = "1/2").
 */

import type { AnswerResult } from "../../core/contracts/events.ts";
import type { AskToolInput, QuizToolInput } from "../../core/question-core.ts";

/** Longest typed answer we record (a chat message, not an essay). */
export const MAX_ANSWER_CHARS = 2000;

/** Case-fold, trim, collapse whitespace, drop wrapping quotes/backticks and a trailing period. */
export function normalizeAnswer(text: string): string {
	return text
		.normalize("NFKC")
		.trim()
		.replace(/^["'`“‘]+|["'`”’]+$/g, "")
		.replace(/[.!]+$/, "")
		.replace(/\s+/g, " ")
		.trim()
		.toLowerCase();
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

/** A number written as a decimal, an exponent or a fraction `a/b`; undefined otherwise. */
export function parseAnswerNumber(text: string): number | undefined {
	const t = normalizeAnswer(text).replace(/\s+/g, "");
	if (NUMBER.test(t)) return Number(t);
	const fraction = /^([+-]?\d+)\/(\d+)$/.exec(t);
	if (fraction) {
		const den = Number(fraction[2]);
		return den === 0 ? undefined : Number(fraction[1]) / den;
	}
	return undefined;
}

/** Do two free answers say the same thing (text or number)? */
export function answersMatch(given: string, expected: string): boolean {
	const a = normalizeAnswer(given);
	const b = normalizeAnswer(expected);
	if (a === b) return a !== "";
	const x = parseAnswerNumber(a);
	const y = parseAnswerNumber(b);
	if (x === undefined || y === undefined) return false;
	return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}

/** A resolved answer (without `by`), or why the value was refused. */
export type AnswerVerdict = { ok: true; result: Omit<AnswerResult, "by"> } | { ok: false; message: string };

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** The index of an option the value names: exact text, normalized text, or (for typed replies) a letter. */
function optionIndex(options: readonly string[], value: string | number, allowLetter: boolean): number | undefined {
	if (typeof value === "number")
		return Number.isInteger(value) && value >= 0 && value < options.length ? value : undefined;
	const exact = options.indexOf(value);
	if (exact >= 0) return exact;
	const norm = normalizeAnswer(value);
	const loose = options.findIndex((o) => normalizeAnswer(o) === norm);
	if (loose >= 0) return loose;
	if (allowLetter && /^[a-z]$/i.test(value.trim())) {
		const i = LETTERS.indexOf(value.trim().toUpperCase());
		if (i < options.length) return i;
	}
	if (/^\d+$/.test(value.trim())) {
		const i = Number(value.trim());
		if (i < options.length) return i;
	}
	return undefined;
}

function freeText(value: string | number): AnswerVerdict | string {
	const text = String(value).trim();
	if (text === "") return { ok: false, message: "The answer is empty." };
	if (text.length > MAX_ANSWER_CHARS)
		return { ok: false, message: `The answer is too long; keep it under ${MAX_ANSWER_CHARS} characters.` };
	return text;
}

/** Grade a quiz answer: a choice (text or 0-based index) or a typed reply. */
export function resolveQuizAnswer(quiz: QuizToolInput, value: string | number, typed: boolean): AnswerVerdict {
	if (quiz.options !== undefined) {
		const i = optionIndex(quiz.options, value, typed);
		const option = i === undefined ? undefined : quiz.options[i];
		if (option === undefined)
			return {
				ok: false,
				message: `Pick one of the ${quiz.options.length} options (A-${LETTERS[quiz.options.length - 1]}).`,
			};
		return { ok: true, result: { answer: option, correct: option === quiz.correctAnswer } };
	}
	const text = freeText(value);
	if (typeof text !== "string") return text;
	return { ok: true, result: { answer: text, correct: answersMatch(text, quiz.correctAnswer) } };
}

/** Resolve an ask answer: an option (value, label or 0-based index) or free text. */
export function resolveAskAnswer(ask: AskToolInput, value: string | number, typed: boolean): AnswerVerdict {
	const options = ask.options ?? [];
	if (options.length > 0) {
		let i = optionIndex(
			options.map((o) => o.value),
			value,
			false,
		);
		if (i === undefined && typeof value === "string") {
			const norm = normalizeAnswer(value);
			const byLabel = options.findIndex((o) => normalizeAnswer(o.label) === norm);
			if (byLabel >= 0) i = byLabel;
		}
		const option = i === undefined ? undefined : options[i];
		if (option) return { ok: true, result: { answer: option.value, label: option.label } };
		// A typed reply to an ask with options is still an answer (asks have no right answer).
		if (!typed) return { ok: false, message: `Pick one of the ${options.length} options.` };
	}
	const text = freeText(value);
	if (typeof text !== "string") return text;
	return { ok: true, result: { answer: text } };
}
