/**
 * Tokenizing a typed answer: one left-to-right pass over the characters, no
 * regex with nested quantifiers, so the work is linear in the text length.
 * What the matcher needs is kept (words, number literals with their value,
 * the symbols that carry meaning in math); punctuation only separates.
 * Numbers are read in the lesson's locale: `1,000.5` in English, `1.000,5`
 * and `1 000` in German and Spanish; a form the other convention reads
 * differently (`1.000` in English) keeps that other value as `alternative`.
 */

import type { Locale } from "../i18n/index.ts";

/** One token of a typed answer. */
export interface AnswerToken {
	kind: "word" | "num" | "sym";
	/** Lower-cased, Latin accents removed, apostrophes dropped; a number as written without grouping commas. */
	text: string;
	/** num: its value (a fraction divided out; a percent sign is a separate `%` token). */
	value?: number;
	/** num: written with a decimal point, with this many decimals. */
	decimals?: number;
	/** num: what the other convention reads (`1.000` in English: 1, or 1000 as Germans write it). */
	alternative?: number;
	/** num: written as an ordinal (`8th`, `2nd`). */
	ordinal?: boolean;
	/** Preceded by the start, a space or punctuation; false when glued to the token before (`8cm`, `f(a)`). */
	spaced: boolean;
	/** word: a single letter typed in upper case (`B`), a candidate option letter. */
	upper?: boolean;
	/** Set when a pause (`,` `.` `;` `:` `!` `?` `…` or a dash) separates it from the token before. */
	pause?: true;
}

/** Symbols that carry meaning in an answer (`x^2`, `a+b`, `50%`, `~8`, `≤ 8`); other punctuation only separates. */
const SYMBOLS = new Set([
	"+",
	"-",
	"*",
	"/",
	"^",
	"=",
	"<",
	">",
	"(",
	")",
	"[",
	"]",
	"%",
	"√",
	"π",
	"×",
	"÷",
	"|",
	"~",
	"≈",
	"≤",
	"≥",
	"≠",
]);
/** Punctuation that ends a phrase: a word after it does not extend the words before it. */
const PAUSES = new Set([",", ".", ";", ":", "!", "?", "…", "—", "–"]);
const APOSTROPHES = new Set(["'", "’", "ʼ"]);
const LETTER = /\p{L}/u;
const WORDISH = /[\p{L}\p{M}\p{N}]/u;
const COMBINING_ACCENT = /[\u0300-\u036f]/g;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isLetter = (c: string | undefined): boolean => c !== undefined && LETTER.test(c);
const isWordish = (c: string | undefined): boolean => c !== undefined && WORDISH.test(c);

/** `≠`, `≮`, `≯` decompose to `=`, `<`, `>` plus a combining stroke: kept as what they mean, not stripped. */
const NEGATED_RELATION = /([=<>])\u0338/g;
const UNNEGATED: Record<string, string> = { "=": "≠", "<": "≥", ">": "≤" };

/** The answer as compared: NFKC, Latin accents stripped (é = e), the Unicode fraction slash as `/`. */
export function foldAnswerText(text: string): string {
	return text
		.normalize("NFKD")
		.replace(NEGATED_RELATION, (_m, relation: string) => UNNEGATED[relation] ?? relation)
		.replace(COMBINING_ACCENT, "")
		.normalize("NFKC")
		.replaceAll("⁄", "/");
}

/** Reads a run of ASCII digits from `i`; returns the index after it. */
function digitsEnd(s: string, i: number): number {
	let j = i;
	while (isDigit(s[j])) j++;
	return j;
}

/** How a locale writes numbers: the decimal mark and the thousands separators. */
interface NumberStyle {
	decimal: "." | ",";
	groups: ReadonlySet<string>;
}

/** Thin, narrow no-break and no-break spaces group thousands in every locale (SI style). */
const SPACES = ["\u2009", "\u202f", "\u00a0"];
const STYLES: Record<"dot" | "comma", NumberStyle> = {
	dot: { decimal: ".", groups: new Set([",", ...SPACES]) },
	comma: { decimal: ",", groups: new Set([".", " ", ...SPACES]) },
};
/** The number style of a lesson language: English a decimal point; German and Spanish a decimal comma. */
const styleOf = (locale: Locale): NumberStyle => (locale === "en" ? STYLES.dot : STYLES.comma);

/** Three digits after a group separator at `j`, not followed by another digit. */
const groupAt = (s: string, j: number): boolean => digitsEnd(s, j + 1) === j + 4;

/** A number literal starting at `i` (sign, digits, grouping, decimals, exponent, ordinal suffix, `a/b`). */
function readNumber(
	s: string,
	i: number,
	style: NumberStyle,
): { token: Omit<AnswerToken, "spaced">; end: number } | undefined {
	let j = i;
	let sign = "";
	if (s[j] === "-" || s[j] === "+" || s[j] === "−") {
		sign = s[j] === "+" ? "" : "-";
		j++;
	}
	const intStart = j;
	j = digitsEnd(s, j);
	let intText = s.slice(intStart, j);
	// 1,000,000 (1.000.000, 1 000 000): groups of exactly three digits after a 1-3 digit head, one separator.
	let grouped = 0;
	const separator = s[j] ?? "";
	if (intText.length >= 1 && intText.length <= 3 && style.groups.has(separator))
		while (s[j] === separator && groupAt(s, j)) {
			intText += s.slice(j + 1, j + 4);
			j += 4;
			grouped++;
		}
	let decimals: number | undefined;
	let fracText = "";
	// The locale's decimal mark; a point also where it cannot be a group (1.5 in German is one and a half).
	const mark = s[j] === style.decimal || (s[j] === "." && grouped === 0) ? s[j] : undefined;
	if (mark !== undefined && isDigit(s[j + 1])) {
		const end = digitsEnd(s, j + 1);
		fracText = s.slice(j + 1, end);
		decimals = fracText.length;
		j = end;
	}
	// 1.000 in English, 1,000 in German: three decimals the other convention reads as a thousands group.
	let alternative: number | undefined;
	const head = intText.length <= 3 && intText !== "0" && intText !== "";
	if (grouped === 0 && mark === style.decimal && decimals === 3 && head && s[j] !== mark)
		alternative = Number(`${sign}${intText}${fracText}`);
	if (intText === "" && fracText === "") return undefined;
	let text = `${sign}${intText || "0"}${fracText ? `.${fracText}` : ""}`;
	if (s[j] === "e" || s[j] === "E") {
		const k = s[j + 1] === "-" || s[j + 1] === "+" ? j + 2 : j + 1;
		const end = digitsEnd(s, k);
		if (end > k && !isWordish(s[end])) {
			text += `e${s.slice(j + 1, end)}`;
			j = end;
		}
	}
	let value = Number(text);
	const suffix = s.slice(j, j + 2).toLowerCase();
	if (decimals === undefined && ["st", "nd", "rd", "th"].includes(suffix) && !isLetter(s[j + 2]))
		return { token: { kind: "num", text: `${text}${suffix}`, value, ordinal: true }, end: j + 2 };
	if (decimals === undefined && s[j] === "/" && isDigit(s[j + 1])) {
		const end = digitsEnd(s, j + 1);
		const den = Number(s.slice(j + 1, end));
		if (den !== 0 && s[end] !== ".") {
			value /= den;
			text += `/${den}`;
			j = end;
		}
	}
	const extra = {
		...(decimals !== undefined ? { decimals } : {}),
		...(alternative !== undefined ? { alternative } : {}),
	};
	return { token: { kind: "num", text, value, ...extra }, end: j };
}

/** Reads a word from `i`: letters, marks, digits, inner apostrophes (dropped) and inner hyphens (kept). */
function readWord(s: string, i: number): { text: string; end: number } {
	let j = i;
	let text = "";
	while (j < s.length) {
		const c = s[j]!;
		if (isWordish(c)) text += c;
		else if (APOSTROPHES.has(c) && isWordish(s[j + 1]) && text !== "") {
			// it's = its, don't = dont
		} else if (c === "-" && isLetter(s[j + 1]) && text !== "") text += c;
		else break;
		j++;
	}
	return { text, end: j };
}

/** Not glued to the character before: the start, a space, or punctuation that is not a symbol. */
function spacedAt(s: string, i: number): boolean {
	const before = i === 0 ? undefined : s[i - 1];
	return before === undefined || !(isWordish(before) || SYMBOLS.has(before === "−" ? "-" : before));
}

/** Splits an answer into tokens, in one linear pass; numbers in the lesson locale's style. */
export function tokenizeAnswer(raw: string, locale: Locale = "en"): AnswerToken[] {
	const style = styleOf(locale);
	const s = foldAnswerText(raw);
	const tokens: AnswerToken[] = [];
	let paused = false;
	const push = (token: AnswerToken): void => {
		if (paused && tokens.length > 0) token.pause = true;
		paused = false;
		tokens.push(token);
	};
	let i = 0;
	while (i < s.length) {
		const c = s[i]!;
		const next = s[i + 1];
		// "!=" is "≠", not a pause before "=".
		if (c === "!" && next === "=") {
			push({ kind: "sym", text: "≠", spaced: spacedAt(s, i) });
			i += 2;
			continue;
		}
		const afterWord = i > 0 && (isWordish(s[i - 1]) || s[i - 1] === ".");
		const signStart = (c === "-" || c === "+" || c === "−") && !afterWord && (isDigit(next) || next === ".");
		const dotStart = c === "." && isDigit(next) && !afterWord;
		if (isDigit(c) || signStart || dotStart) {
			const read = readNumber(s, i, style);
			if (read) {
				push({ ...read.token, spaced: spacedAt(s, i) });
				i = read.end;
				continue;
			}
		}
		if (isWordish(c)) {
			const word = readWord(s, i);
			const lower = word.text.toLowerCase();
			const upper = word.text.length === 1 && lower !== word.text;
			push({ kind: "word", text: lower, spaced: spacedAt(s, i), ...(upper ? { upper } : {}) });
			i = word.end;
			continue;
		}
		const symbol = c === "−" ? "-" : c;
		if (SYMBOLS.has(symbol)) push({ kind: "sym", text: symbol, spaced: spacedAt(s, i) });
		else if (PAUSES.has(c)) paused = true;
		i += 1;
	}
	return tokens;
}
