/**
 * Judging a typed answer against the expected one, deterministically: the
 * same words, the same number (in words or digits, inside a sentence, with a
 * unit), an accepted alternative, or the right yes/no. What it cannot decide
 * is `unsure`, never `incorrect`: the teacher model reads those words itself.
 * Linear in the answer's length; never throws. Rules: docs/engine.md, Answers.
 */

import { type NumberMention, numberMentions } from "./answer-numbers.ts";
import { type AnswerToken, tokenizeAnswer } from "./answer-tokens.ts";
import { unitsAgree } from "./answer-units.ts";

/** The outcome of judging: conclusive either way, or for the model to decide. */
export type AnswerJudgement = "correct" | "incorrect" | "unsure";

/** An answer read once: its tokens, canonical words and numbers. */
export interface ReadAnswer {
	tokens: AnswerToken[];
	/** Token texts without a leading article, for text comparison. */
	words: string[];
	text: string;
	numbers: NumberMention[];
	/** How many times it says "not", "isn't", "or", "either"…: a match inside a hedge is not conclusive. */
	hedges: number;
}

const ARTICLES = new Set(["the", "a", "an"]);
const NEGATIONS = new Set(
	"not no never nor neither dont doesnt didnt isnt arent wasnt werent cant cannot wont wouldnt shouldnt couldnt hasnt havent aint".split(
		" ",
	),
);
const ALTERNATIVES = new Set(["or", "either", "vs", "versus", "between", "unless", "except"]);
const YES = new Set(["yes", "yeah", "yep", "yup", "true"]);
const NO = new Set(["no", "nope", "false"]);
/** Extra words around a contained answer beyond which a sentence is too long to call conclusive. */
const SENTENCE_SLACK = 12;

/** Tokenizes and reads an answer once (the expected one too) for judging. */
export function readAnswer(raw: string): ReadAnswer {
	const tokens = tokenizeAnswer(raw);
	let from = 0;
	while (from < tokens.length - 1 && tokens[from]!.kind === "word" && ARTICLES.has(tokens[from]!.text)) from++;
	const words = tokens.slice(from).map((t) => t.text);
	const numbers = numberMentions(tokens);
	const strong = numbers.filter((m) => !m.weak);
	const hedges = tokens.filter((t) => t.kind === "word" && (NEGATIONS.has(t.text) || ALTERNATIVES.has(t.text))).length;
	return { tokens, words, text: words.join(" "), numbers: strong.length > 0 ? strong : numbers, hedges };
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
 */
export function sameNumber(given: NumberMention, expected: NumberMention): boolean {
	const e = expected.decimals;
	const g = given.decimals;
	const fromExpected = e !== undefined && e >= 2 && (g === undefined || g > e) ? 0.5 * 10 ** -e : 0;
	const fromGiven = g !== undefined && g >= 2 && e === undefined ? 0.5 * 10 ** -g : 0;
	const tolerance = Math.max(fromExpected, fromGiven);
	if (close(given.value, expected.value, tolerance)) return true;
	if (given.percent && !expected.percent) return close(given.value / 100, expected.value, tolerance / 100);
	if (expected.percent && !given.percent) return close(given.value, expected.value / 100, tolerance / 100);
	return false;
}

/** How one candidate (the expected answer or an accepted one) judges the given answer. */
type CandidateVerdict = "match" | "mismatch" | "unclear" | "none";

/** The numbers of `given` against the single expected number. */
function judgeNumbers(given: ReadAnswer, expected: NumberMention): CandidateVerdict {
	const mentions = given.numbers;
	if (mentions.length === 0) return "none";
	const matching = mentions.filter((m) => sameNumber(m, expected));
	if (matching.length === mentions.length) {
		const units = matching.map((m) => unitsAgree(m.unitWord, expected.unitWord));
		if (units.includes("differ")) return given.hedges > 0 ? "unclear" : "mismatch";
		return given.hedges > 0 || units.includes("unclear") ? "unclear" : "match";
	}
	if (matching.length > 0 || given.hedges > 0) return "unclear";
	const first = mentions[0]!;
	if (mentions.some((m) => !sameNumber(m, first))) return "unclear";
	// "the fourth" may name the position of the right value; only an ordinal question rules it out.
	return first.ordinal && !expected.ordinal ? "unclear" : "mismatch";
}

/** The given answer contains the candidate as whole tokens, in a short sentence. */
function judgeText(given: ReadAnswer, candidate: ReadAnswer): CandidateVerdict {
	if (candidate.text === "") return "none";
	if (given.text === candidate.text) return "match";
	const hay = given.words;
	const needle = candidate.words;
	if (tokenRunStarts(hay, needle).length === 0) return "none";
	if (hay.length > needle.length + SENTENCE_SLACK) return "unclear";
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

/** One candidate against the given answer: the same text, then yes/no, then numbers (a number in a sentence
 *  is judged by all the numbers there, not by finding the expected one among them). */
function judgeCandidate(given: ReadAnswer, candidate: ReadAnswer): CandidateVerdict {
	const n = expectedNumber(candidate);
	if (n !== undefined) return given.text === candidate.text ? "match" : judgeNumbers(given, n);
	const text = judgeText(given, candidate);
	if (text === "match") return text;
	const polarity = judgePolarity(given, candidate);
	return polarity === "none" ? text : polarity;
}

/**
 * Judge a typed answer: `correct` when it says the expected answer or an accepted one; `incorrect`
 * only when it conclusively says something else (another number, the opposite yes/no); else `unsure`.
 */
export function judgeAnswer(given: string, expected: string, accepted: readonly string[] = []): AnswerJudgement {
	const answer = readAnswer(given);
	if (answer.tokens.length === 0) return "unsure";
	const verdicts = [expected, ...accepted].map((c) => judgeCandidate(answer, readAnswer(c)));
	if (verdicts.includes("match")) return "correct";
	if (verdicts[0] === "mismatch" && !verdicts.includes("unclear")) return "incorrect";
	return "unsure";
}

/** One candidate's verdict, for option picking (numeric options: "8" named as "eight"). */
export function judgeAgainst(given: ReadAnswer, candidate: ReadAnswer): CandidateVerdict {
	return judgeCandidate(given, candidate);
}

/** What a learner types to say they do not know (after fillers are dropped), as token words. */
const DONT_KNOW = new Set([
	"i dont know",
	"dont know",
	"i do not know",
	"do not know",
	"i really dont know",
	"i dont really know",
	"i dont know yet",
	"i have no idea",
	"no idea",
	"i have no clue",
	"no clue",
	"not a clue",
	"clueless",
	"idk",
	"dunno",
	"i dunno",
	"not sure",
	"im not sure",
	"i am not sure",
	"im unsure",
	"i am unsure",
	"unsure",
	"no clue at all",
	"no idea at all",
	"i give up",
	"pass",
	"cant say",
	"i cant say",
	"i cant tell",
	"not known",
]);
const LEADING_FILLERS = new Set(["honestly", "sorry", "um", "umm", "uh", "hmm", "hm", "well", "oh", "ah", "tbh", "so"]);
const TRAILING_FILLERS = new Set(["sorry", "honestly", "tbh", "really", "yet", "here", "lol"]);

/**
 * True when a typed answer only says "I don't know" ("no idea", "not sure", "idk", "🤷", with fillers such as
 * "sorry"): an answer in its own right (not known), never a guess to judge. A number or any other content
 * word makes it an answer to judge ("not sure, maybe 8"). Bounded: long answers are never this.
 */
export function saysDontKnow(given: string): boolean {
	if (given.length > 120) return false;
	// The shrug emoji, with any skin tone, gender sign or variation selector (\ufe0f is \p{M}) after it. The
	// branches must not overlap: with \ufe0f in two of them, `(?:…|…)*` backtracked exponentially (42 characters
	// froze the process). The joiner stays a branch of its own (a class holding it reads as one joined emoji).
	if (/^\s*🤷(?:[\p{M}\p{Emoji_Modifier}\u2640\u2642\s]|\u200d)*$/u.test(given)) return true;
	const tokens = tokenizeAnswer(given);
	if (tokens.length === 0 || tokens.length > 12 || tokens.some((t) => t.kind !== "word")) return false;
	const words = tokens.map((t) => t.text);
	while (words.length > 1 && LEADING_FILLERS.has(words[0] ?? "")) words.shift();
	while (words.length > 1 && TRAILING_FILLERS.has(words.at(-1) ?? "")) words.pop();
	return DONT_KNOW.has(words.join(" "));
}
