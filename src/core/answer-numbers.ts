/**
 * The numbers a typed answer mentions, written in digits or in English words
 * ("twenty-one", "one hundred and five", "three quarters", "a half", "eighth"),
 * each with the unit word that follows it, and in the lesson's language
 * (answer-words.ts: `einundzwanzig`, `treinta y uno`). The English words come
 * from src/i18n/answer-words.ts. A small state machine over the tokens: each
 * token is looked at a bounded number of times, so it is linear.
 */

import { ANSWER_WORDS, type Locale } from "../i18n/index.ts";
import type { AnswerToken } from "./answer-tokens.ts";
import { localeScale, readLocaleNumber } from "./answer-words.ts";

/** A number the answer mentions. */
export interface NumberMention {
	value: number;
	/** Written as an ordinal (`eighth`, `8th`): it may name a position rather than a value. */
	ordinal: boolean;
	/** Followed by `%` or `percent`. */
	percent: boolean;
	/** What the other number convention reads (`1.000` in English: maybe 1000): a verdict must hold for both. */
	alternative?: number;
	/** Written with this many decimals (`0.33`), for rounding tolerance. */
	decimals?: number;
	/** A lone `one` or an ordinal: often a pronoun or a position ("the middle one"), so it yields to other numbers. */
	weak: boolean;
	/** The word right after the number (`cm`, `items`), when there is one. */
	unitWord?: string;
	/** Token range [start, end). */
	start: number;
	end: number;
}

const ENGLISH = ANSWER_WORDS.en.numbers;
const CARDINALS = new Map(Object.entries(ENGLISH.units));
const TENS = new Map(Object.entries(ENGLISH.tens));
const SCALES = new Map(Object.entries(ENGLISH.scales));
const ORDINAL_WORDS =
	"first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth";
const ORDINALS = new Map<string, number>([
	...ORDINAL_WORDS.split(" ").map((w, i) => [w, i + 1] as const),
	..."twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth"
		.split(" ")
		.map((w, i) => [w, (i + 2) * 10] as const),
	["hundredth", 100],
	["thousandth", 1000],
]);
const HALVES = new Map(Object.entries(ENGLISH.fractions));
const NEGATIVE = new Set(["minus", "negative"]);

type Last = "none" | "sign" | "article" | "cardinal" | "tens" | "hundred" | "scale" | "and" | "point" | "decimal";

interface WordState {
	last: Last;
	total: number;
	current: number;
	sign: number;
	decimals: string;
	/** A terminal reading: the phrase is complete (an ordinal or a fraction). */
	done?: { value: number; ordinal: boolean };
}

const ordinalOf = (part: string): number | undefined => ORDINALS.get(part) ?? ORDINALS.get(part.replace(/s$/, ""));
const cardinalLast = (l: Last): boolean => l === "cardinal" || l === "tens" || l === "hundred" || l === "scale";
const phraseValue = (s: WordState): number =>
	s.sign * (s.total + s.current + (s.decimals ? Number(`0.${s.decimals}`) : 0));

/** One number-word part applied to the state; undefined when it does not continue the number. */
function step(s: WordState, part: string): WordState | undefined {
	const unit = CARDINALS.get(part);
	const fresh =
		s.last === "none" || s.last === "sign" || s.last === "hundred" || s.last === "scale" || s.last === "and";
	if (s.last === "point" || s.last === "decimal")
		return unit !== undefined && unit < 10 ? { ...s, last: "decimal", decimals: s.decimals + unit } : undefined;
	if (unit !== undefined) {
		if (fresh) return { ...s, current: s.current + unit, last: "cardinal" };
		if (s.last === "tens" && unit > 0 && unit < 10) return { ...s, current: s.current + unit, last: "cardinal" };
		return undefined;
	}
	const tens = TENS.get(part);
	if (tens !== undefined) return fresh ? { ...s, current: s.current + tens, last: "tens" } : undefined;
	if (part === "hundred") {
		const base = s.last === "article" ? 1 : s.current;
		const ok = (s.last === "article" || s.last === "cardinal" || s.last === "tens") && base > 0 && base < 100;
		return ok ? { ...s, current: base * 100, last: "hundred" } : undefined;
	}
	const scale = SCALES.get(part);
	if (scale !== undefined) {
		const base = s.last === "article" ? 1 : s.current;
		const ok = (s.last === "article" || cardinalLast(s.last)) && base > 0 && s.last !== "scale";
		return ok && (s.total === 0 || s.total > scale * 999)
			? { ...s, total: s.total + base * scale, current: 0, last: "scale" }
			: undefined;
	}
	if (part === "and") return cardinalLast(s.last) ? { ...s, last: "and" } : undefined;
	if ((part === "a" || part === "an") && (s.last === "none" || s.last === "and")) return { ...s, last: "article" };
	if (part === "point") return cardinalLast(s.last) || s.current === 0 ? { ...s, last: "point" } : undefined;
	if (NEGATIVE.has(part) && s.last === "none") return { ...s, sign: -1, last: "sign" };
	const whole = s.total + s.current;
	const plural = part.endsWith("s");
	const halves = HALVES.get(part);
	if (halves !== undefined) {
		// half, a half, one and a half, three quarters
		if ((s.last === "none" || s.last === "sign") && !plural) return done(s, 1 / halves, false);
		if (s.last === "article" && !plural) return done(s, whole + 1 / halves, false);
		if ((s.last === "cardinal" || s.last === "tens") && s.total === 0) return done(s, s.current / halves, false);
		return undefined;
	}
	const ordinal = ordinalOf(part);
	if (ordinal === undefined) return undefined;
	// a third, one third, two thirds: a fraction; the third, twenty-third, hundred and first: a position.
	if (ordinal >= 3) {
		if (s.last === "article" && !plural) return done(s, whole + 1 / ordinal, false);
		if ((s.last === "cardinal" || s.last === "tens") && (plural || s.current === 1) && s.total === 0)
			return done(s, s.current / ordinal, false);
	}
	if (plural) return undefined;
	const afterHundreds = (s.last === "hundred" || s.last === "scale" || s.last === "and") && whole >= 100;
	if (s.last === "none" || afterHundreds || (s.last === "tens" && ordinal < 10)) return done(s, whole + ordinal, true);
	return undefined;
}

/** The phrase is complete: a fraction or an ordinal ends a number. */
function done(s: WordState, value: number, ordinal: boolean): WordState {
	return { ...s, last: "decimal", done: { value: s.sign * value, ordinal } };
}

/** A number written in words starting at token `i`: its value and the token after it. */
export function readWordNumber(
	tokens: readonly AnswerToken[],
	i: number,
): { value: number; ordinal: boolean; end: number } | undefined {
	let state: WordState = { last: "none", total: 0, current: 0, sign: 1, decimals: "" };
	let best: { value: number; ordinal: boolean; end: number } | undefined;
	// Bounded: a number phrase longer than this is not one a learner types.
	for (let j = i; j < tokens.length && j < i + 24; j++) {
		const token = tokens[j]!;
		if (token.kind !== "word") break;
		let next: WordState | undefined = state;
		for (const part of token.text.split("-")) {
			next = next?.done ? undefined : next && step(next, part);
			if (!next) break;
		}
		if (!next) break;
		state = next;
		if (state.done) return { ...state.done, end: j + 1 };
		const complete = cardinalLast(state.last) || state.last === "decimal";
		if (complete) best = { value: phraseValue(state), ordinal: false, end: j + 1 };
	}
	return best;
}

const PERCENT_WORDS = new Set(["percent", "pct"]);
const isPercentAt = (tokens: readonly AnswerToken[], j: number): number => {
	const t = tokens[j];
	if (t?.kind === "sym" && t.text === "%") return 1;
	if (t?.kind === "word" && PERCENT_WORDS.has(t.text)) return 1;
	if (t?.text === "per" && tokens[j + 1]?.text === "cent") return 2;
	return 0;
};

/** Every number the tokens mention, in order, each with its unit word: English and the lesson's language. */
export function numberMentions(tokens: readonly AnswerToken[], locale: Locale = "en"): NumberMention[] {
	const mentions: NumberMention[] = [];
	let i = 0;
	while (i < tokens.length) {
		const token = tokens[i]!;
		let read:
			| { value: number; ordinal: boolean; end: number; decimals?: number; alternative?: number; weak?: boolean }
			| undefined;
		if (token.kind === "num" && token.value !== undefined && Number.isFinite(token.value)) {
			read = { value: token.value, ordinal: token.ordinal === true, end: i + 1 };
			if (token.decimals !== undefined) read.decimals = token.decimals;
			if (token.alternative !== undefined) read.alternative = token.alternative;
			// 2 million, 1.5 thousand
			const word = tokens[i + 1]?.kind === "word" ? tokens[i + 1]!.text : undefined;
			const scale = word === undefined ? undefined : (SCALES.get(word) ?? localeScale(word, locale));
			const hundred = tokens[i + 1]?.text === "hundred" ? 100 : undefined;
			if (!read.ordinal && (scale ?? hundred) !== undefined) {
				read = { value: read.value * (scale ?? hundred)!, ordinal: false, end: i + 2 };
			}
		} else if (token.kind === "word") {
			read = readWordNumber(tokens, i);
			const local = readLocaleNumber(tokens, i, locale);
			if (local && (!read || local.end > read.end))
				read = { value: local.value, ordinal: local.position, end: local.end, weak: local.weak };
		}
		if (!read) {
			i++;
			continue;
		}
		const percent = isPercentAt(tokens, read.end);
		const after = tokens[read.end + percent];
		// A lone `one` (or `ein`, `un`) or an English ordinal yields; a Spanish `cuarto` that may be a position does not.
		const weak = read.weak ?? (read.ordinal || (read.end === i + 1 && token.text === "one"));
		mentions.push({
			value: read.value,
			ordinal: read.ordinal,
			percent: percent > 0,
			...(read.decimals !== undefined ? { decimals: read.decimals } : {}),
			...(read.alternative !== undefined ? { alternative: read.alternative } : {}),
			weak,
			...(percent === 0 && after?.kind === "word" ? { unitWord: after.text } : {}),
			start: i,
			end: read.end + percent,
		});
		i = read.end + percent;
	}
	return mentions;
}
