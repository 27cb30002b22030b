/**
 * Unit words after a number: `8 cm` against an expected `8 cm`, `8 mm`, `8`.
 * A bare number matches a number with a unit; two known, different units do
 * not match; a word we do not know as a unit ("8 steps", "8 because") is
 * not held against the answer.
 */

/** Known units, by canonical name: each line lists the singular spellings. */
const UNIT_SPELLINGS: Record<string, string> = {
	mm: "mm millimeter millimetre",
	cm: "cm centimeter centimetre",
	m: "m meter metre",
	km: "km kilometer kilometre",
	ft: "ft foot feet",
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

const UNITS = new Map<string, string>(
	Object.entries(UNIT_SPELLINGS).flatMap(([canonical, spellings]) => spellings.split(" ").map((s) => [s, canonical])),
);

/** The canonical unit a word names (`centimetres` → `cm`), or undefined when it is not a unit we know. */
export function knownUnit(word: string): string | undefined {
	const w = word.toLowerCase();
	if (UNITS.has(w)) return UNITS.get(w);
	if (w.length > 2 && w.endsWith("es") && UNITS.has(w.slice(0, -2))) return UNITS.get(w.slice(0, -2));
	if (w.length > 1 && w.endsWith("s")) return UNITS.get(w.slice(0, -1));
	return undefined;
}

const singular = (w: string): string => (w.length > 3 && w.endsWith("s") ? w.slice(0, -1) : w);

/** Does a given unit word agree with the expected one? `unclear` when only the given one is a known unit. */
export function unitsAgree(given: string | undefined, expected: string | undefined): "agree" | "differ" | "unclear" {
	if (given === undefined || expected === undefined) return "agree";
	const g = knownUnit(given);
	const e = knownUnit(expected);
	if (g !== undefined && e !== undefined) return g === e ? "agree" : "differ";
	if (g === undefined && e === undefined) return "agree";
	if (e !== undefined) return "agree"; // "8 because…": the word after the number is not a unit
	return singular(given) === singular(expected) ? "agree" : "unclear";
}
