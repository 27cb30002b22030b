/**
 * The lesson language's words for the judge: number words read as numbers
 * (German compounds such as `einundzwanzig` and `zweihundertdrei`, Spanish
 * `treinta y uno`, `doscientos`, fractions such as `drei Viertel`, `la
 * mitad`), unit words, and don't-know phrases, all from src/i18n/answer-words.ts
 * folded the way answers are. English is read by answer-numbers.ts; this adds
 * the lesson's language beside it (only that one: `once` is 11 in Spanish).
 * Each token is split into known parts by longest match (bounded length), and
 * the parts run through a small state machine: linear in the answer.
 */

import { ANSWER_WORDS, type Locale } from "../i18n/index.ts";
import { type AnswerToken, tokenizeAnswer } from "./answer-tokens.ts";

type PartKind = "unit" | "tens" | "hundred" | "hundreds" | "scale" | "and" | "andAHalf" | "fraction" | "article";

interface Part {
	kind: PartKind;
	value: number;
	/** The token it came from is this part alone (`y` between words, not `und` inside `einundzwanzig`). */
	whole?: boolean;
	/** A fraction word that also names a position (`cuarto`). */
	position?: boolean;
}

/** A locale's words, folded, with the longest part length for segmenting. */
interface Lexicon {
	parts: Map<string, Part[]>;
	longest: number;
	units: Map<string, string>;
	dontKnow: Set<string>;
	leading: Set<string>;
	trailing: Set<string>;
}

/** Folds a phrase the way the tokenizer folds answers (accents and apostrophes dropped, lower case): its words. */
export const foldWords = (phrase: string): string =>
	tokenizeAnswer(phrase)
		.filter((t) => t.kind === "word")
		.map((t) => t.text)
		.join(" ");

function lexiconOf(locale: Locale): Lexicon {
	const words = ANSWER_WORDS[locale];
	const n = words.numbers;
	const parts = new Map<string, Part[]>();
	const add = (word: string, part: Part): void => {
		const key = foldWords(word);
		parts.set(key, [...(parts.get(key) ?? []), part]);
	};
	for (const [w, v] of Object.entries(n.units)) add(w, { kind: "unit", value: v });
	for (const [w, v] of Object.entries(n.tens)) add(w, { kind: "tens", value: v });
	for (const w of n.hundred) add(w, { kind: "hundred", value: 100 });
	for (const [w, v] of Object.entries(n.hundreds)) add(w, { kind: "hundreds", value: v });
	for (const [w, v] of Object.entries(n.scales)) add(w, { kind: "scale", value: v });
	for (const w of n.and.inWord) add(w, { kind: "and", value: 0 });
	for (const w of n.and.between) add(w, { kind: "and", value: 0, whole: true });
	const positions = new Set(n.positions.map(foldWords));
	for (const [w, v] of Object.entries(n.fractions))
		add(w, { kind: "fraction", value: v, ...(positions.has(foldWords(w)) ? { position: true } : {}) });
	for (const w of n.articles) add(w, { kind: "article", value: 0 });
	// "y medio" is two words: its last word is a fraction after "y"; one-word forms ("einhalb") are parts.
	for (const w of n.andAHalf) if (!foldWords(w).includes(" ")) add(w, { kind: "andAHalf", value: 0.5 });
	let longest = 0;
	for (const key of parts.keys()) longest = Math.max(longest, key.length);
	const fold = (list: readonly string[]): Set<string> => new Set(list.map(foldWords));
	return {
		parts,
		longest,
		units: new Map(Object.entries(words.units).map(([w, u]) => [foldWords(w), u])),
		dontKnow: fold(words.dontKnow),
		leading: fold(words.fillers.leading),
		trailing: fold(words.fillers.trailing),
	};
}

const LEXICONS = new Map<Locale, Lexicon>();
const lexicon = (locale: Locale): Lexicon => {
	let found = LEXICONS.get(locale);
	if (!found) {
		found = lexiconOf(locale);
		LEXICONS.set(locale, found);
	}
	return found;
};

/** Longest word we try to split into number parts (`zweihundertdreiundvierzigtausend` is 32). */
const MAX_WORD = 48;

/** A word split into number parts (the longest that still lets the rest split), or undefined when it does not split. */
function segment(word: string, lex: Lexicon): Part[][] | undefined {
	const direct = lex.parts.get(word);
	if (direct) return [direct];
	if (word.length > MAX_WORD) return undefined;
	// splits[i]: word.slice(i) splits into parts (filled from the end: at most MAX_WORD x longest lookups).
	const splits = new Array<boolean>(word.length + 1).fill(false);
	splits[word.length] = true;
	for (let i = word.length - 1; i >= 0; i--)
		for (let length = 1; length <= lex.longest && i + length <= word.length && !splits[i]; length++)
			splits[i] = splits[i + length]! && inWord(lex, word.slice(i, i + length)).length > 0;
	if (!splits[0]) return undefined;
	const out: Part[][] = [];
	let i = 0;
	while (i < word.length) {
		let length = Math.min(lex.longest, word.length - i);
		while (length > 0 && !(splits[i + length] && inWord(lex, word.slice(i, i + length)).length > 0)) length--;
		out.push(inWord(lex, word.slice(i, i + length)));
		i += length;
	}
	return out;
}

/** The parts a piece of a longer word may be: no article, no word that stands only between words (`y`). */
const inWord = (lex: Lexicon, piece: string): Part[] =>
	(lex.parts.get(piece) ?? []).filter((p) => p.kind !== "article" && !p.whole);

type Last = "none" | "article" | "unit" | "tens" | "hundred" | "scale" | "and" | "done";

interface State {
	last: Last;
	total: number;
	current: number;
	/** What stood before "and" (`und` joins a unit to a ten, `y` a ten to a unit). */
	beforeAnd?: Last;
	/** A finished reading (a fraction ends the number). */
	value?: number;
	/** A fraction word that is also an ordinal, with no count before it (`el cuarto`): maybe the fourth. */
	lone?: boolean;
	parts: number;
}

const complete = (s: State): boolean =>
	s.last === "unit" || s.last === "tens" || s.last === "hundred" || s.last === "scale";

/** One part applied to the state; undefined when it does not continue the number. */
function step(s: State, p: Part): State | undefined {
	if (s.last === "done") return undefined;
	const next = { ...s, parts: s.parts + 1 };
	const fresh = s.current % 100 === 0 && (s.last === "none" || s.last === "hundred" || s.last === "scale");
	switch (p.kind) {
		case "unit":
			if (fresh) return { ...next, current: s.current + p.value, last: "unit" };
			if (s.last === "and" && s.beforeAnd === "tens" && p.value > 0 && p.value < 10)
				return { ...next, current: s.current + p.value, last: "unit" };
			return undefined;
		case "tens":
			if (fresh) return { ...next, current: s.current + p.value, last: "tens" };
			if (s.last === "and" && s.beforeAnd === "unit" && s.current % 100 < 10)
				return { ...next, current: s.current + p.value, last: "tens" };
			return undefined;
		case "and": {
			// German joins inside a word (ein-und-zwanzig); Spanish between words (treinta y uno).
			const ok = p.whole
				? s.last === "tens" || s.last === "unit" || s.last === "hundred"
				: s.last === "unit" && s.current % 100 > 0 && s.current % 100 < 10;
			return ok ? { ...next, last: "and", beforeAnd: s.last } : undefined;
		}
		case "hundred": {
			const head = s.current % 1000;
			if (s.last === "none" || s.last === "scale") return { ...next, current: 100, last: "hundred" };
			if (s.last === "unit" && head > 0 && head < 10) return { ...next, current: head * 100, last: "hundred" };
			return undefined;
		}
		case "hundreds":
			return fresh && s.current === 0 ? { ...next, current: p.value, last: "hundred" } : undefined;
		case "scale": {
			if (s.last === "and" || s.last === "scale" || s.last === "article") return undefined;
			const base = s.last === "none" ? 1 : s.current;
			if (base <= 0 || (s.total !== 0 && s.total <= p.value * 999)) return undefined;
			return { ...next, total: s.total + base * p.value, current: 0, last: "scale" };
		}
		case "article":
			return s.last === "none" ? { ...next, last: "article", parts: s.parts } : undefined;
		case "fraction": {
			// "Viertel", "die Hälfte", "drei Viertel", "tres cuartos"; "dos y medio" after "y".
			if (s.last === "none" || s.last === "article")
				return { ...next, last: "done", value: 1 / p.value, lone: p.position === true };
			if (s.last === "and" && s.beforeAnd !== undefined && p.value === 2)
				return { ...next, last: "done", value: s.total + s.current + 0.5 };
			if ((s.last === "unit" || s.last === "tens") && s.total === 0 && s.current < 100)
				return { ...next, last: "done", value: s.current / p.value };
			return undefined;
		}
		case "andAHalf":
			return s.last === "unit" || s.last === "tens" || s.last === "hundred" || s.last === "scale"
				? { ...next, last: "done", value: s.total + s.current + 0.5 }
				: undefined;
	}
}

/** Every state reachable by the parts of one word (a word may be two kinds: `un` is an article and 1). */
function advance(states: State[], word: Part[][]): State[] {
	let now = states;
	for (const options of word) {
		const after: State[] = [];
		for (const s of now)
			for (const p of options) {
				const n = step(s, p);
				if (n) after.push(n);
			}
		// A few readings at most (article or number): keep the work bounded.
		now = after.slice(0, 4);
		if (now.length === 0) return now;
	}
	return now;
}

/** A number read in the lesson's language. */
export interface LocaleNumber {
	value: number;
	/** The token after it. */
	end: number;
	/** A lone `ein`/`un`: often an article, so it yields to other numbers. */
	weak: boolean;
	/** An ordinal-like fraction alone (`el cuarto`): it may name a position, so a miss is not conclusive. */
	position: boolean;
}

/** A number in the lesson's language starting at token `i`: its value, the token after it, and whether it is a lone "ein"/"un". */
export function readLocaleNumber(tokens: readonly AnswerToken[], i: number, locale: Locale): LocaleNumber | undefined {
	if (locale === "en") return undefined;
	const lex = lexicon(locale);
	let states: State[] = [{ last: "none", total: 0, current: 0, parts: 0 }];
	let best: LocaleNumber | undefined;
	for (let j = i; j < tokens.length && j < i + 12; j++) {
		const token = tokens[j]!;
		if (token.kind !== "word" || (j > i && token.pause)) break;
		const word = segment(token.text, lex);
		if (!word) break;
		states = advance(states, word);
		if (states.length === 0) break;
		for (const s of states) {
			const value = s.last === "done" ? s.value : complete(s) ? s.total + s.current : undefined;
			if (value === undefined) continue;
			best = { value, end: j + 1, weak: s.parts === 1 && value === 1, position: s.lone === true };
			break;
		}
		if (states.every((s) => s.last === "done")) break;
	}
	return best;
}

/** What a scale word of the lesson's language multiplies by after digits (`3 mil`, `2 Millionen`). */
export function localeScale(word: string, locale: Locale): number | undefined {
	if (locale === "en") return undefined;
	const parts = lexicon(locale).parts.get(word) ?? [];
	return parts.find((p) => p.kind === "scale")?.value;
}

/** The judge's unit name for a unit word of the lesson's language (`Stunden` → `h`), if it is one. */
export function localeUnit(word: string, locale: Locale): string | undefined {
	return locale === "en" ? undefined : lexicon(locale).units.get(word);
}

/** A short answer's words, fillers of English and the lesson's language dropped, says "I don't know". */
export function isDontKnowPhrase(words: readonly string[], locale: Locale): boolean {
	const lexes = locale === "en" ? [lexicon("en")] : [lexicon("en"), lexicon(locale)];
	const w = [...words];
	const lead = (x: string): boolean => lexes.some((l) => l.leading.has(x));
	const trail = (x: string): boolean => lexes.some((l) => l.trailing.has(x));
	while (w.length > 1 && lead(w[0]!)) w.shift();
	while (w.length > 1 && trail(w.at(-1)!)) w.pop();
	const phrase = w.join(" ");
	return lexes.some((l) => l.dontKnow.has(phrase));
}
