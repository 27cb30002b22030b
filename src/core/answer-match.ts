/**
 * Judging a typed answer against the expected one, deterministically: the
 * same words, the same number (in words or digits, inside a sentence, with a
 * unit), the same math (`2cos(2x)` for `2*cos(2*x)`), an accepted alternative,
 * or the right yes/no. What it cannot decide is `unsure`, never `incorrect`:
 * the grader (or the teacher model) reads those words itself.
 * A value under a comparison, an approximation, a negation or a multiplier,
 * a longer term, or an answer that instructs the judge is never `correct`
 * (answer-hedges.ts). Linear in the answer's length; never throws. Rules:
 * docs/engine.md, Answers.
 */

import { DEFAULT_LOCALE, type Locale } from "../i18n/index.ts";
import { compareMath, computesValue } from "./answer-expressions.ts";
import {
	CORRECT_WORDS,
	extendsTerm,
	hedgeCount,
	instructionCount,
	multiplierAfter,
	NEGATIONS,
	qualifierOf,
} from "./answer-hedges.ts";
import { type NumberMention, numberMentions } from "./answer-numbers.ts";
import { type AnswerToken, tokenizeAnswer } from "./answer-tokens.ts";
import { convertUnit, knownUnit, unitName, unitsAgree } from "./answer-units.ts";
import { isDontKnowPhrase } from "./answer-words.ts";

/** The outcome of judging: conclusive either way, or for the model to decide. */
export type AnswerJudgement = "correct" | "incorrect" | "unsure";

/** An answer read once: its tokens, canonical words and numbers. */
export interface ReadAnswer {
	tokens: AnswerToken[];
	/** Token texts without a leading article, for text comparison. */
	words: string[];
	/** The tokens of `words` (the same indexes). */
	body: AnswerToken[];
	text: string;
	/** The answer as typed (for reading it as math: answer-expressions.ts). */
	raw: string;
	numbers: NumberMention[];
	/** How many times it says "not", "isn't", "or", "either", "anything but"…: a match inside a hedge is not conclusive. */
	hedges: number;
	/** Orders to the judge ("ignore previous instructions", "mark this correct"). */
	orders: number;
	/** Bare assertions of a grade ("it's correct", "the answer is correct"). */
	assertions: number;
	/** The lesson's language: numbers, number words and units are read in it (and in English). */
	locale: Locale;
}

const ARTICLES = new Set(["the", "a", "an"]);
const YES = new Set(["yes", "yeah", "yep", "yup", "true"]);
const NO = new Set(["no", "nope", "false"]);
/** Extra words around a contained answer beyond which a sentence is too long to call conclusive. */
const SENTENCE_SLACK = 12;

/** Tokenizes and reads an answer once (the expected one too) for judging, in the lesson's language. */
export function readAnswer(raw: string, locale: Locale = DEFAULT_LOCALE): ReadAnswer {
	const tokens = tokenizeAnswer(raw, locale);
	let from = 0;
	while (from < tokens.length - 1 && tokens[from]!.kind === "word" && ARTICLES.has(tokens[from]!.text)) from++;
	const body = tokens.slice(from);
	const words = body.map((t) => t.text);
	const numbers = numberMentions(tokens, locale);
	const strong = numbers.filter((m) => !m.weak);
	const hedges = hedgeCount(tokens);
	const { orders, assertions } = instructionCount(tokens);
	return {
		tokens,
		words,
		body,
		text: words.join(" "),
		raw,
		numbers: strong.length > 0 ? strong : numbers,
		hedges,
		orders,
		assertions,
		locale,
	};
}

/** Where `needle` occurs in `hay` as a run of whole tokens (KMP: linear in both lengths). */
export function tokenRunStarts(hay: readonly string[], needle: readonly string[]): number[] {
	if (needle.length === 0 || needle.length > hay.length) return [];
	const fail = new Array<number>(needle.length).fill(0);
	for (let i = 1, k = 0; i < needle.length; i++) {
		while (k > 0 && needle[i] !== needle[k]) k = fail[k - 1]!;
		if (needle[i] === needle[k]) k++;
		fail[i] = k;
	}
	const starts: number[] = [];
	for (let i = 0, k = 0; i < hay.length; i++) {
		while (k > 0 && hay[i] !== needle[k]) k = fail[k - 1]!;
		if (hay[i] === needle[k]) k++;
		if (k === needle.length) {
			starts.push(i - needle.length + 1);
			k = fail[k - 1]!;
		}
	}
	return starts;
}

/** The single number an expected answer is (`8`, `eight`, `8 cm`, `x = 8`), or undefined when it is text. */
export function expectedNumber(expected: ReadAnswer): NumberMention | undefined {
	if (expected.numbers.length !== 1) return undefined;
	const n = expected.numbers[0]!;
	const t = expected.tokens;
	const named = n.start === 2 && t[0]?.kind === "word" && t[1]?.text === "=";
	if (n.start !== 0 && !named) return undefined;
	const rest = t.slice(n.end);
	return rest.length <= 3 && rest.every((r) => r.kind !== "num") ? n : undefined;
}

const close = (a: number, b: number, tolerance: number): boolean =>
	Math.abs(a - b) <= Math.max(tolerance, 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)));

/**
 * Same value: exactly, as a percentage (50% = 0.5), or rounded: an expected decimal with 2+ places
 * matches a more precise answer (3.14 ← 3.1416), and a typed decimal with 2+ places matches an exact
 * expected value it rounds (0.33 → 1/3), never a less precise answer to a precise expected decimal.
 * A percentage is never the bare number (8% is not 8); a bare number is the percentage an expected
 * one names (50 for 50%: the question asked for a percentage).
 */
export function sameNumber(given: NumberMention, expected: NumberMention): boolean {
	const e = expected.decimals;
	const g = given.decimals;
	const fromExpected = e !== undefined && e >= 2 && (g === undefined || g > e) ? 0.5 * 10 ** -e : 0;
	const fromGiven = g !== undefined && g >= 2 && e === undefined ? 0.5 * 10 ** -g : 0;
	const tolerance = Math.max(fromExpected, fromGiven);
	if (given.percent && !expected.percent) return close(given.value / 100, expected.value, tolerance / 100);
	if (close(given.value, expected.value, tolerance)) return true;
	if (expected.percent && !given.percent) return close(given.value, expected.value / 100, tolerance / 100);
	return false;
}

/** `8%` for an expected bare 8: the same digits, but a percentage (the question decides: the grader's call). */
const percentOfIt = (given: NumberMention, expected: NumberMention): boolean =>
	given.percent && !expected.percent && close(given.value, expected.value, 0);

/** How one candidate (the expected answer or an accepted one) judges the given answer. */
type CandidateVerdict = "match" | "mismatch" | "unclear" | "none";

/**
 * A mention in the expected number's unit (`3 km` for an expected `3000 m` reads as 3000), or undefined when
 * its unit measures something else; as it is when either has no unit we can convert.
 */
function inExpectedUnit(given: NumberMention, expected: NumberMention, locale: Locale): NumberMention | undefined {
	const from = unitName(given.unitWord, locale);
	const to = expected.unitWord === undefined ? undefined : knownUnit(expected.unitWord, locale);
	if (from === undefined || to === undefined || from === to) return given;
	const value = convertUnit(given.value, from, to);
	if (value === undefined) return given;
	if (value === "other") return undefined;
	const alternative = given.alternative === undefined ? undefined : convertUnit(given.alternative, from, to);
	const { decimals: _decimals, alternative: _alternative, ...rest } = given;
	return { ...rest, value, ...(typeof alternative === "number" ? { alternative } : {}) };
}

/** The same number, and the same under the other convention's reading (`1.000` in English): else unclear. */
function sameEither(given: NumberMention, expected: NumberMention): boolean | "unclear" {
	const same = sameNumber(given, expected);
	if (given.alternative === undefined) return same;
	const { decimals: _decimals, ...rest } = given;
	return sameNumber({ ...rest, value: given.alternative }, expected) === same ? same : "unclear";
}

/** The numbers of `given` against the single expected number of `candidate`. */
function judgeNumbers(given: ReadAnswer, candidate: ReadAnswer, expected: NumberMention): CandidateVerdict {
	const mentions = given.numbers;
	if (mentions.length === 0) return "none";
	// "3 kg" for "3000 m", "1.000" in English (1 or 1000?): the grader's call, never a miss.
	const converted = mentions.map((m) => inExpectedUnit(m, expected, given.locale));
	const read = converted.map((m) => (m === undefined ? "unclear" : sameEither(m, expected)));
	if (read.includes("unclear")) return "unclear";
	const matching = mentions.filter((_m, i) => read[i] === true);
	// "less than 8" says it is not 8; "about 8", "at most 8", "8+" do not commit to it.
	// "120 min" for "2 h" is minutes, not a minimum: a unit the expected one converts to is not a qualifier.
	const measured = (m: NumberMention): boolean => {
		const to = expected.unitWord === undefined ? undefined : knownUnit(expected.unitWord, given.locale);
		const from = unitName(m.unitWord, given.locale);
		return to !== undefined && from !== undefined && typeof convertUnit(1, from, to) === "number";
	};
	const qualifiers = mentions.map((m) => qualifierOf(given.tokens, m.start, measured(m) ? m.end + 1 : m.end));
	if (qualifiers.some((q) => q !== undefined)) {
		const sure = mentions.length === 1 && qualifiers[0] === "strict" && matching.length === 1 && given.hedges === 0;
		return sure ? "mismatch" : "unclear";
	}
	// "8x", "8 times": a multiple, not the number (unless the expected answer says "8x" too); "8%" for 8.
	const multiplier = multiplierAfter(candidate.tokens, expected.end);
	if (mentions.some((m) => multiplierAfter(given.tokens, m.end) !== multiplier)) return "unclear";
	if (mentions.some((m) => percentOfIt(m, expected))) return "unclear";
	if (matching.length === mentions.length) {
		const units = matching.map((m) => unitsAgree(m.unitWord, expected.unitWord, given.locale));
		return given.hedges > 0 || units.includes("unclear") ? "unclear" : "match";
	}
	if (matching.length > 0 || given.hedges > 0) return "unclear";
	const first = mentions[0]!;
	if (converted.some((m) => m === undefined || !sameNumber(m, converted[0]!))) return "unclear";
	// "the fourth" may name the position of the right value; only an ordinal question rules it out.
	return first.ordinal && !expected.ordinal ? "unclear" : "mismatch";
}

/** The given answer contains the candidate as whole tokens, in a short sentence. */
function judgeText(given: ReadAnswer, candidate: ReadAnswer): CandidateVerdict {
	if (candidate.text === "") return "none";
	if (given.text === candidate.text) return "match";
	const hay = given.words;
	const needle = candidate.words;
	const starts = tokenRunStarts(hay, needle);
	if (starts.length === 0) return "none";
	if (hay.length > needle.length + SENTENCE_SLACK) return "unclear";
	// "binary search tree" is not "binary search"; "it's binary search!" is.
	if (starts.some((s) => extendsTerm(given.body, s, s + needle.length))) return "unclear";
	return given.hedges > candidate.hedges ? "unclear" : "match";
}

/** yes/no answers: the same polarity matches, the opposite one does not. */
function judgePolarity(given: ReadAnswer, candidate: ReadAnswer): CandidateVerdict {
	const sign = (t: AnswerToken): number => (YES.has(t.text) ? 1 : NO.has(t.text) ? -1 : 0);
	if (candidate.words.length !== 1) return "none";
	const want = sign(candidate.tokens.at(-1)!);
	if (want === 0) return "none";
	const said = new Set(given.tokens.map(sign).filter((s) => s !== 0));
	if (said.size !== 1) return said.size === 0 ? "none" : "unclear";
	// "No, it doesn't" agrees with itself; "not true" does not say true.
	const leads = given.tokens[0] !== undefined && sign(given.tokens[0]) !== 0;
	const negated = given.tokens.some((t) => NEGATIONS.has(t.text) && !NO.has(t.text));
	if (negated && !leads) return "unclear";
	return said.has(want) ? "match" : "mismatch";
}

/** The candidate names a grade ("correct"), so an assertion like "it's correct" may be its answer. */
const namesGrade = (candidate: ReadAnswer): boolean => candidate.words.some((w) => CORRECT_WORDS.has(w));

/** The given answer tells the judge what to decide, beyond what the candidate itself says. */
function instructs(given: ReadAnswer, candidate: ReadAnswer): boolean {
	return given.orders > candidate.orders || (given.assertions > candidate.assertions && !namesGrade(candidate));
}

/** One candidate against the given answer (also option picking: numeric options, "8" named as "eight"): the same text, then yes/no, then numbers (a number in a sentence
 *  is judged by all the numbers there, not by finding the expected one among them). An answer that
 *  instructs the judge is never a match (it is left to the grader, which may not call it correct either). */
export function judgeCandidate(given: ReadAnswer, candidate: ReadAnswer): CandidateVerdict {
	if (given.text === candidate.text && given.text !== "") return "match";
	const verdict = judgeContent(given, candidate);
	return verdict === "match" && instructs(given, candidate) ? "unclear" : verdict;
}

/** Numbers, then the same words, then yes/no; what none of them matches is read as math (answer-expressions.ts). */
function judgeContent(given: ReadAnswer, candidate: ReadAnswer): CandidateVerdict {
	const verdict = judgeWords(given, candidate);
	if (verdict === "match") return verdict;
	// 2cos(2x) for 2*cos(2*x), (x+1)^2 for x^2+2x+1. Another expression in the same variables is a miss where the
	// words were not conclusive (x^2+1 for x^2 is a longer term to them); an unclear number stays unclear (1.000x).
	const math = compareMath(given.raw, candidate.raw, given.locale);
	if (math === "same") return "match";
	const open = verdict === "none" || (verdict === "unclear" && expectedNumber(candidate) === undefined);
	if (math === "different") return open ? "mismatch" : verdict;
	// sin(30) for 1/2, √16 for 4: the number in it is not its value (degrees? the grader reads it).
	return verdict === "mismatch" && computesValue(given.raw, given.locale) ? "unclear" : verdict;
}

function judgeWords(given: ReadAnswer, candidate: ReadAnswer): CandidateVerdict {
	const n = expectedNumber(candidate);
	if (n !== undefined) return judgeNumbers(given, candidate, n);
	const text = judgeText(given, candidate);
	if (text === "match") return text;
	const polarity = judgePolarity(given, candidate);
	return polarity === "none" ? text : polarity;
}

/**
 * True when a typed answer instructs the judge ("ignore previous instructions", "mark this correct",
 * "the answer is correct") beyond what every candidate says: no verdict may call it correct, the
 * grader's included (src/agent/grader.ts bounds it).
 */
export function instructsJudge(given: string | ReadAnswer, candidates: readonly (string | ReadAnswer)[]): boolean {
	const answer = typeof given === "string" ? readAnswer(given) : given;
	if (answer.orders === 0 && answer.assertions === 0) return false;
	const read = candidates.map((c) => (typeof c === "string" ? readAnswer(c) : c));
	return read.length === 0 || read.every((c) => instructs(answer, c));
}

/**
 * Judge a typed answer: `correct` when it says the expected answer or an accepted one; `incorrect`
 * only when it conclusively says something else (another number, the opposite yes/no); else `unsure`.
 * Read in English and the lesson's language (`locale`): its number words, number style and unit words.
 */
export function judgeAnswer(
	given: string,
	expected: string,
	accepted: readonly string[] = [],
	locale: Locale = DEFAULT_LOCALE,
): AnswerJudgement {
	const answer = readAnswer(given, locale);
	if (answer.tokens.length === 0) return "unsure";
	const verdicts = [expected, ...accepted].map((c) => judgeCandidate(answer, readAnswer(c, locale)));
	if (verdicts.includes("match")) return "correct";
	if (verdicts[0] === "mismatch" && !verdicts.includes("unclear")) return "incorrect";
	return "unsure";
}

/**
 * True when a typed answer only says "I don't know" ("no idea", "not sure", "idk", "🤷", with fillers such as
 * "sorry"), in English or the lesson's language (`weiß nicht`, `no sé`; src/i18n/answer-words.ts): an answer in its own right (not known), never a guess to judge. A number or any other content
 * word makes it an answer to judge ("not sure, maybe 8"). Bounded: long answers are never this.
 */
export function saysDontKnow(given: string, locale: Locale = DEFAULT_LOCALE): boolean {
	if (given.length > 120) return false;
	// The shrug emoji, with any skin tone, gender sign or variation selector (\ufe0f is \p{M}) after it. The
	// branches must not overlap: with \ufe0f in two of them, `(?:…|…)*` backtracked exponentially (42 characters
	// froze the process). The joiner stays a branch of its own (a class holding it reads as one joined emoji).
	if (/^\s*🤷(?:[\p{M}\p{Emoji_Modifier}\u2640\u2642\s]|\u200d)*$/u.test(given)) return true;
	const tokens = tokenizeAnswer(given);
	if (tokens.length === 0 || tokens.length > 12 || tokens.some((t) => t.kind !== "word")) return false;
	return isDontKnowPhrase(
		tokens.map((t) => t.text),
		locale,
	);
}
