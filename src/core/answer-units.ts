/**
 * Unit words after a number: `8 cm` against an expected `8 cm`, `0.08 m`,
 * `8`. Units we know (English, and the lesson language's words from
 * src/i18n/answer-words.ts) are converted with mathjs's unit table, so `3 km`
 * is `3000 m` and `1 hour` is `60 minutes`; a unit of another dimension is
 * for the grader, not wrong. A bare number matches a number with a unit; a
 * word that is no unit ("8 steps", "8 because") is not held against the
 * answer. mathjs is only asked to build a unit from a number and a name from
 * our own table (or a short letters-only word): it never evaluates text.
 */

import type { Unit } from "mathjs";
import type { Locale } from "../i18n/index.ts";
import { localeUnit } from "./answer-words.ts";
import { unit as mathUnit } from "./math-engine.ts";

/** Known units, by canonical name: each line lists the singular spellings. */
const UNIT_SPELLINGS: Record<string, string> = {
	mm: "mm millimeter millimetre",
	cm: "cm centimeter centimetre",
	m: "m meter metre",
	km: "km kilometer kilometre",
	in: "inch",
	ft: "ft foot feet",
	yd: "yd yard",
	mi: "mi mile",
	mg: "mg milligram milligramme",
	g: "g gram gramme",
	kg: "kg kilo kilogram kilogramme",
	lb: "lb lbs pound",
	ml: "ml milliliter millilitre",
	l: "l liter litre",
	ms: "ms millisecond",
	s: "s sec second",
	min: "min minute",
	h: "h hr hour",
	day: "day",
	week: "week",
	year: "yr year",
	deg: "deg degree °",
	rad: "rad radian",
	bit: "bit",
	byte: "byte",
	kb: "kb kilobyte",
	mb: "mb megabyte",
	gb: "gb gigabyte",
};

/** Our canonical names as mathjs spells them (where they differ). */
const MATHJS_NAMES: Record<string, string> = { lb: "lbm", ml: "mL", l: "L", byte: "B", kb: "kB", mb: "MB", gb: "GB" };

/** Data sizes whose prefix people read as 1000 or 1024. */
const BINARY_AMBIGUOUS = new Set(["kb", "mb", "gb"]);

const UNITS = new Map<string, string>(
	Object.entries(UNIT_SPELLINGS).flatMap(([canonical, spellings]) => spellings.split(" ").map((s) => [s, canonical])),
);

/** The canonical unit a word names (`centimetres` → `cm`, `Stunden` → `h` in German), or undefined. */
export function knownUnit(word: string, locale: Locale = "en"): string | undefined {
	const w = word.toLowerCase();
	const local = localeUnit(w, locale);
	if (local !== undefined) return local;
	if (UNITS.has(w)) return UNITS.get(w);
	if (w.length > 2 && w.endsWith("es") && UNITS.has(w.slice(0, -2))) return UNITS.get(w.slice(0, -2));
	if (w.length > 1 && w.endsWith("s")) return UNITS.get(w.slice(0, -1));
	return undefined;
}

/** Longest unit name handed to mathjs (`kilograms` is 9): past it a word is not a unit. */
const MAX_UNIT_NAME = 16;

/** A quantity in mathjs, or undefined when the name is not one of its units (never throws). */
function quantity(value: number, name: string): Unit | undefined {
	if (name.length > MAX_UNIT_NAME || !Number.isFinite(value)) return undefined;
	try {
		return mathUnit(value, MATHJS_NAMES[name] ?? name);
	} catch {
		return undefined;
	}
}

/** mathjs unit names that are words first ("8 are right", Spanish "3 mil" is 3000, not 3 thousandths of an inch). */
const WORDS_FIRST = new Set(
	"are mil hand link bar rod chain stone grain cup cycle line pole perch drop knot".split(" "),
);

/** A word we do not know that mathjs does (`ounces`, `acres`): 3+ letters only ("in", "at" are words first). */
function otherUnit(word: string): string | undefined {
	if (word.length < 3 || word.length > MAX_UNIT_NAME || WORDS_FIRST.has(word)) return undefined;
	for (let i = 0; i < word.length; i++) if (word[i]! < "a" || word[i]! > "z") return undefined;
	return quantity(1, word) === undefined ? undefined : word;
}

/** A unit word as a name mathjs converts: ours, or one of mathjs's own. */
export function unitName(word: string | undefined, locale: Locale = "en"): string | undefined {
	if (word === undefined) return undefined;
	return knownUnit(word, locale) ?? otherUnit(word.toLowerCase());
}

/**
 * `value` in `from` expressed in `to` (`3`, km, m → 3000), `"other"` when the two units measure different
 * things (kg and m), undefined when either is not a unit.
 */
export function convertUnit(value: number, from: string, to: string): number | "other" | undefined {
	if (from === to) return value;
	// A kilobyte is 1000 bytes to mathjs and 1024 to many learners: either reading is the grader's call.
	if (BINARY_AMBIGUOUS.has(from) || BINARY_AMBIGUOUS.has(to)) return "other";
	const given = quantity(value, from);
	const target = quantity(1, to);
	if (!given || !target) return undefined;
	if (!given.equalBase(target)) return "other";
	try {
		return given.toNumber(MATHJS_NAMES[to] ?? to);
	} catch {
		return undefined;
	}
}

const singular = (w: string): string => (w.length > 3 && w.endsWith("s") ? w.slice(0, -1) : w);

/**
 * Does a given unit word agree with the expected one (after conversion)? `unclear` when only the given one
 * is a unit, or the two measure different things.
 */
export function unitsAgree(
	given: string | undefined,
	expected: string | undefined,
	locale: Locale = "en",
): "agree" | "unclear" {
	if (given === undefined || expected === undefined) return "agree";
	const g = unitName(given, locale);
	const e = knownUnit(expected, locale);
	if (g !== undefined && e !== undefined) return typeof convertUnit(1, g, e) === "number" ? "agree" : "unclear";
	if (g === undefined && e === undefined) return "agree";
	if (e !== undefined) return "agree"; // "8 because…": the word after the number is not a unit
	return singular(given) === singular(expected) ? "agree" : "unclear";
}
