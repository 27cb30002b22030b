/**
 * The demo model's grader: it answers grading requests (structured output
 * named GRADE_OUTPUT_NAME) from fixed rules, so grading is deterministic on
 * the demo. It only runs on answers the deterministic judge left undecided:
 * a number-word with a typo (`eigth` for 8) is correct, a hedge between the
 * expected number and another (`4 or 8?`) is incorrect, words sharing most of
 * a text answer's words are correct, and anything else stays unsure. Its reasons (shown on the answered card) are in the lesson's language: the
 * grading request's system prompt names it ("Write the reason in German.").
 */

import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { expectedNumber, readAnswer } from "../../core/answer-match.ts";
import { DEFAULT_LOCALE, LANGUAGE_NAMES, LOCALES, type Locale, t } from "../../i18n/index.ts";

/** A grading verdict as the grader sends it. */
export interface DemoVerdict {
	verdict: "correct" | "incorrect" | "unsure";
	reason: string;
}

const NUMBER_WORDS =
	"zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split(
		" ",
	);
const STOP_WORDS = new Set("the a an is are it its of to in on at and or be by for with that this".split(" "));

/** True when `a` and `b` differ by at most one edit (insert, delete, substitute) or one swap of neighbours. */
export function oneEditApart(a: string, b: string): boolean {
	if (a === b) return true;
	if (Math.abs(a.length - b.length) > 1) return false;
	if (a.length === b.length) {
		const diff: number[] = [];
		for (let i = 0; i < a.length && diff.length <= 2; i++) if (a[i] !== b[i]) diff.push(i);
		if (diff.length === 1) return true;
		const [i, j] = diff;
		return diff.length === 2 && j === (i ?? 0) + 1 && a[i ?? 0] === b[j] && a[j] === b[i ?? 0];
	}
	const [short, long] = a.length < b.length ? [a, b] : [b, a];
	let i = 0;
	while (i < short.length && short[i] === long[i]) i++;
	return short.slice(i) === long.slice(i + 1);
}

/** The language a grading request asks its reason in (agent/grader.ts says it in the system prompt); English when none. */
export function graderLocale(prompt: LanguageModelV3Prompt): Locale {
	const system = prompt.find((m) => m.role === "system");
	const named = system?.role === "system" ? /Write the reason in (\w+)\./.exec(system.content)?.[1] : undefined;
	return LOCALES.find((l) => LANGUAGE_NAMES[l].english === named) ?? DEFAULT_LOCALE;
}

/** Decide a grading request (the JSON the engine sends), its reason in `locale`; unreadable requests are unsure. */
export function demoGrade(requestText: string, locale: Locale = DEFAULT_LOCALE): DemoVerdict {
	let request: { answer?: unknown; expected?: unknown; accepted?: unknown };
	try {
		request = JSON.parse(requestText) as typeof request;
	} catch {
		return { verdict: "unsure", reason: t(locale, "demo.graderUnreadable") };
	}
	const answer = typeof request.answer === "string" ? request.answer.slice(0, 2000) : "";
	const expected = typeof request.expected === "string" ? request.expected : "";
	const given = readAnswer(answer);
	const want = readAnswer(expected);
	const number = expectedNumber(want);
	if (number !== undefined) {
		const values = [...new Set(given.numbers.map((m) => m.value))];
		// Reasons of verdicts that are not `correct` never name the expected answer (it may not be shown yet).
		if (values.includes(number.value) && values.length > 1)
			return { verdict: "incorrect", reason: t(locale, "demo.graderHedges", { count: values.length }) };
		const word = NUMBER_WORDS[number.value];
		const typo = word !== undefined ? given.words.find((w) => w.length >= 3 && oneEditApart(w, word)) : undefined;
		if (values.length === 0 && typo !== undefined)
			return {
				verdict: "correct",
				reason: t(locale, "demo.graderTypo", { typo, word: word ?? "", number: number.value }),
			};
		return { verdict: "unsure", reason: t(locale, "demo.graderNoNumber") };
	}
	const content = (words: string[]) => new Set(words.filter((w) => w.length > 2 && !STOP_WORDS.has(w)));
	const wanted = content(want.words);
	const said = content(given.words);
	const shared = [...wanted].filter((w) => said.has(w)).length;
	if (wanted.size > 0 && shared * 2 >= wanted.size + 1 && given.hedges === 0)
		return { verdict: "correct", reason: t(locale, "demo.graderOtherWords", { expected }) };
	return { verdict: "unsure", reason: t(locale, "demo.graderNoMatch") };
}
