/**
 * Does a text (a hint, the grader's reason) give a quiz's answer away? It
 * does when it names the right option (by letter, "option A", "the first
 * one", "die erste", "la primera", "option 1"), rules out every other option
 * by letter, or says the answer or an accepted form of it in any way the
 * judge would accept: the same number in other words ("eight" for 8, 0.75 or
 * 75% for 3/4), the same words with other spacing or brackets (O(log(n)) for
 * O(log n)). Token-based, linear in the text; never throws.
 */

import { expectedNumber, readAnswer, sameNumber, tokenRunStarts } from "./answer-match.ts";
import { numberMentions } from "./answer-numbers.ts";
import { type AnswerToken, tokenizeAnswer } from "./answer-tokens.ts";

/** What a text must not give away: the answer, its accepted forms, and the options (if any). */
export interface AnswerKey {
	correctAnswer: string;
	acceptedAnswers?: readonly string[] | undefined;
	options?: readonly string[] | undefined;
}

/** Brackets only group: `O(log(n))` says what `O(log n)` says. */
const BRACKETS = new Set(["(", ")", "[", "]"]);
const unbracketed = (tokens: readonly AnswerToken[]): string[] =>
	tokens.filter((t) => !(t.kind === "sym" && BRACKETS.has(t.text))).map((t) => t.text);

/** Words that name an option ("option A", "the first one", "die erste Antwort", "la primera opción"). */
const OPTION_NOUNS = new Set(
	"option options choice choices answer answers alternative one antwort moglichkeit wahl opcion respuesta alternativa eleccion".split(
		" ",
	),
);
const LETTER_MARKERS = new Set(["option", "answer", "choice", "letter", "antwort", "opcion", "respuesta", "letra"]);
/** Words before a number that count options from 1 ("option 2"); "the answer 2" is a value, not an option. */
const NUMBER_MARKERS = new Set(["option", "choice", "alternative", "opcion", "alternativa"]);
const ARTICLES = new Set(["the", "die", "der", "das", "den", "dem", "la", "el", "lo", "los", "las"]);
/** Ordinal words, English, German and Spanish (accents folded), by position from 1; `last` is the last option. */
const ORDINALS = new Map<string, number>([
	...["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"].map((w, i) => [w, i + 1] as const),
	...["erste", "zweite", "dritte", "vierte", "funfte", "sechste"].flatMap((w, i) =>
		["", "n", "r", "s", "m"].map((end) => [`${w}${end}`, i + 1] as const),
	),
	...["primer", "primero", "primera", "segundo", "segunda", "tercer", "tercero", "tercera"].map(
		(w) => [w, w.startsWith("prim") ? 1 : w.startsWith("seg") ? 2 : 3] as const,
	),
	...["cuarto", "cuarta", "quinto", "quinta"].map((w) => [w, w.startsWith("cuart") ? 4 : 5] as const),
	...["last", "letzte", "letzten", "letzter", "ultimo", "ultima"].map((w) => [w, 0] as const),
]);
const CARDINAL_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight"];
/** Words after a capital letter that make it an option, not the article "A" ("A is right", "B can't be"). */
const LETTER_FOLLOWERS = new Set(
	"is was looks seems can cannot cant could should would must isnt wasnt and or ist es".split(" "),
);

/** The option (0-based) an ordinal token names, or undefined. */
function ordinalIndex(t: AnswerToken, count: number): number | undefined {
	const n = t.kind === "num" && t.ordinal ? t.value : t.kind === "word" ? ORDINALS.get(t.text) : undefined;
	if (n === undefined) return undefined;
	return n === 0 ? count - 1 : n - 1;
}

/** Option indexes a text names by letter, ordinal or "option N" (any option, right or wrong). */
export function optionsNamed(tokens: readonly AnswerToken[], count: number): Set<number> {
	const named = new Set<number>();
	const add = (i: number | undefined): void => {
		if (i !== undefined && Number.isInteger(i) && i >= 0 && i < count) named.add(i);
	};
	tokens.forEach((t, i) => {
		const before = tokens[i - 1];
		const after = tokens[i + 1];
		const afterJoined = after !== undefined && !after.pause;
		// "option A", "(b)", "b)", "It's B.", "C is wrong"
		if (t.kind === "word" && t.text.length === 1 && t.text >= "a" && t.text <= "z") {
			const index = t.text.charCodeAt(0) - 97;
			const marked = before !== undefined && !t.pause && LETTER_MARKERS.has(before.text);
			const bracketed = before?.text === "(" && after?.text === ")";
			const closed = t.spaced && after?.text === ")";
			const ends = after === undefined || after.pause === true;
			const capital =
				t.upper === true &&
				((t.text !== "a" && t.text !== "i") || ends || (afterJoined && LETTER_FOLLOWERS.has(after.text)));
			if (marked || bracketed || closed || capital) add(index);
		}
		// "option 2", "option two", "choice #1"
		if (before !== undefined && NUMBER_MARKERS.has(before.text) && !t.pause) {
			if (t.kind === "num" && !t.ordinal && t.value !== undefined) add(t.value - 1);
			const word = CARDINAL_WORDS.indexOf(t.text);
			if (word >= 0) add(word);
		}
		// "the first option", "the first one", "die erste", "la primera opción", "the last."
		const ordinal = ordinalIndex(t, count);
		if (ordinal !== undefined) {
			const nounAfter = afterJoined && OPTION_NOUNS.has(after.text);
			const standsAlone = before !== undefined && ARTICLES.has(before.text) && (after === undefined || after.pause);
			if (nounAfter || standsAlone) add(ordinal);
		}
	});
	return named;
}

/** The text says `form`: its number (in any writing), or its words as a run (brackets and spacing aside). */
function saysForm(tokens: readonly AnswerToken[], words: readonly string[], form: string): boolean {
	const read = readAnswer(form);
	if (read.tokens.length === 0) return false;
	const n = expectedNumber(read);
	if (n !== undefined) {
		// A lone "one" or a word ordinal ("first") is too common in a hint to be this answer.
		return numberMentions(tokens).some(
			(m) => !(m.weak && tokens[m.start]?.kind === "word") && (sameNumber(m, n) || sameNumber(n, m)),
		);
	}
	return tokenRunStarts(words, unbracketed(read.tokens)).length > 0;
}

const fold = (s: string): string => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();

/** The answer as plain text inside the text (the check the hint filter always made), whole words for short ones. */
function containsVerbatim(text: string, answer: string): boolean {
	const a = fold(answer);
	if (a === "") return false;
	const body = fold(text);
	if (a.length > 2) return body.includes(a);
	return body.split(/[^\p{L}\p{N}]+/u).includes(a);
}

/** True when `text` gives away the answer of the quiz `key` describes (see the module comment). */
export function leaksAnswer(text: string, key: AnswerKey): boolean {
	const tokens = tokenizeAnswer(text);
	const words = unbracketed(tokens);
	const forms = [key.correctAnswer, ...(key.acceptedAnswers ?? [])];
	if (containsVerbatim(text, key.correctAnswer)) return true;
	if (forms.some((f) => saysForm(tokens, words, f))) return true;
	const options = key.options ?? [];
	if (options.length === 0) return false;
	const right = options.findIndex((o) => fold(o) === fold(key.correctAnswer));
	const named = optionsNamed(tokens, options.length);
	if (right >= 0 && named.has(right)) return true;
	// Naming every other option ("not B or C") leaves only the right one.
	return options.length >= 2 && right >= 0 && named.size >= options.length - 1;
}
