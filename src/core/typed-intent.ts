/**
 * What a line typed in a lesson's thread is, while a question is open there, when its words say so
 * for sure (deterministic, no model): a request for help with the open quiz (a hint, another
 * explanation, the answer), or a question of the learner's own. Anything else is read as an answer
 * attempt (the judge decides it, or the grader decides both whether it is an answer and whether it
 * is right: engine/grade-pending.ts). Words per language live in src/i18n/intent-words.ts; English
 * is always read besides the lesson's language. Linear in the text (bounded before any matching).
 */

import type { Locale } from "../i18n/index.ts";
import { INTENT_WORDS } from "../i18n/intent-words.ts";
import type { HelpKind } from "./contracts/help.ts";

/** What the words say the text is (undefined: nothing for sure; judge it as an answer). */
export type TypedIntent = { kind: "help"; help: Extract<HelpKind, "hint" | "explain" | "show"> } | { kind: "question" };

/** Longer texts are never a bare request: only their opening words are read. */
const READ_CHARS = 400;

/** Lower case, Latin accents and apostrophes dropped, ß as ss, everything but letters and digits a space. */
export function foldIntent(text: string): string {
	return text
		.slice(0, READ_CHARS)
		.normalize("NFKD")
		.replace(/\p{M}/gu, "")
		.toLowerCase()
		.replaceAll("ß", "ss")
		.replace(/['’‘`]/g, "")
		.replace(/[^\p{L}\p{N}]+/gu, " ")
		.trim();
}

const folded = new Map<
	Locale,
	{ questions: string[]; help: Array<[string, TypedIntent]>; fillers: ReadonlySet<string> }
>();

/** Most filler words skipped at the start. */
const MAX_FILLERS = 3;

/** The text without the filler words it opens with (in any of `locales`). */
function withoutFillers(folded: string, locales: readonly Locale[]): string {
	const words = folded.split(" ");
	let i = 0;
	while (i < MAX_FILLERS && i < words.length - 1 && locales.some((l) => phrasesOf(l).fillers.has(words[i] ?? ""))) i++;
	return words.slice(i).join(" ");
}

function phrasesOf(locale: Locale) {
	let entry = folded.get(locale);
	if (!entry) {
		const words = INTENT_WORDS[locale];
		const help: Array<[string, TypedIntent]> = [
			...words.hint.map((p): [string, TypedIntent] => [foldIntent(p), { kind: "help", help: "hint" }]),
			...words.explain.map((p): [string, TypedIntent] => [foldIntent(p), { kind: "help", help: "explain" }]),
			...words.show.map((p): [string, TypedIntent] => [foldIntent(p), { kind: "help", help: "show" }]),
		];
		entry = { questions: words.questions.map(foldIntent), help, fillers: new Set(words.fillers.map(foldIntent)) };
		folded.set(locale, entry);
	}
	return entry;
}

/** `text` starts with `phrase` as whole words. */
const opensWith = (text: string, phrase: string): boolean =>
	phrase !== "" && (text === phrase || text.startsWith(`${phrase} `));

/** Help requests are short: the phrase is (nearly) the whole text. */
const MAX_EXTRA_HELP_WORDS = 4;

/** What the text says it is, for sure, in `locale` or English; undefined when the words do not say. */
export function readTypedIntent(text: string, locale: Locale): TypedIntent | undefined {
	const locales: Locale[] = locale === "en" ? ["en"] : [locale, "en"];
	const f = withoutFillers(foldIntent(text), locales);
	if (f === "") return undefined;
	const words = f.split(" ").length;
	for (const l of locales)
		for (const [phrase, intent] of phrasesOf(l).help) {
			if (!opensWith(f, phrase)) continue;
			// Asking for another explanation opens a question of any length; a hint or the answer is asked briefly.
			if (intent.kind === "help" && intent.help === "explain") return intent;
			if (words - phrase.split(" ").length <= MAX_EXTRA_HELP_WORDS) return intent;
		}
	for (const l of locales) if (phrasesOf(l).questions.some((p) => opensWith(f, p))) return { kind: "question" };
	return undefined;
}

/** The text is put as a question (ends with `?`, or opens with Spanish `¿`): a tentative answer or a question. */
export const putAsQuestion = (text: string): boolean => /[?？]\s*$/.test(text.slice(-READ_CHARS)) || /^\s*¿/.test(text);
