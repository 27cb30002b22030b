/**
 * The judge's table, run through the entry point the engine uses for a typed quiz answer
 * (src/core/answer-resolve.ts resolveQuizAnswer, as admit.ts and the pending grading call it): the
 * quiz's expected answer (or its options and the right one), the learner's words, the lesson's
 * language, and the verdict: correct, incorrect, undecided (the grader's) or "I don't know" (not
 * known: the Not sure button's shape). English, German and Spanish: units, the locale's number
 * style, number words, don't-know phrases, negations, math expressions, option letters and option
 * text. The rule it holds: no equivalent pair is ruled incorrect; an ambiguous form is undecided.
 */

import { describe, expect, it } from "vitest";
import { resolveQuizAnswer } from "../../src/core/answer-resolve.ts";
import type { QuizToolInput } from "../../src/core/question-core.ts";
import type { Locale } from "../../src/i18n/index.ts";

type Verdict = "correct" | "incorrect" | "undecided" | "dont-know";
/** A quiz with options: the options and the index of the right one. */
interface Choice {
	options: string[];
	correct: number;
}
/** given, expected (a free answer, or options), locale, verdict. */
type Row = readonly [string, string | Choice, Locale, Verdict];

/** The verdict the engine records for `given` typed to a quiz expecting `expected`. */
function verdictOf(given: string, expected: string | Choice, locale: Locale): Verdict {
	const quiz: QuizToolInput =
		typeof expected === "string"
			? { question: "?", correctAnswer: expected, type: "check" }
			: {
					question: "?",
					options: expected.options,
					correctAnswer: expected.options[expected.correct] ?? "",
					type: "check",
				};
	const resolved = resolveQuizAnswer(quiz, given, true, locale);
	if (!resolved.ok) throw new Error(`refused: ${resolved.message}`);
	const r = resolved.result;
	if (r.notSure === true) return "dont-know";
	if (r.judged === "unsure") return "undecided";
	if (r.correct === true) return "correct";
	if (r.correct === false) return "incorrect";
	throw new Error(`no verdict for ${given}`);
}

const UNITS: Row[] = [
	["3 km", "3000 m", "en", "correct"],
	["3000 m", "3 km", "en", "correct"],
	["300 cm", "3 m", "en", "correct"],
	["3 m", "300 cm", "en", "correct"],
	["1 hour", "60 minutes", "en", "correct"],
	["60 minutes", "1 hour", "en", "correct"],
	["0.5 kg", "500 g", "en", "correct"],
	["500 g", "0.5 kg", "en", "correct"],
	["2 h", "120 min", "en", "correct"],
	["120 min", "2 h", "en", "correct"],
	["7200 seconds", "2 hours", "en", "correct"],
	["1.5 l", "1500 ml", "en", "correct"],
	["250 ml", "0.25 litres", "en", "correct"],
	["10 mm", "1 cm", "en", "correct"],
	["2 days", "48 hours", "en", "correct"],
	["1 week", "7 days", "en", "correct"],
	["5280 feet", "1 mile", "en", "correct"],
	["3 ft", "1 yard", "en", "correct"],
	["8 cm", "8 cm", "en", "correct"],
	["8", "8 cm", "en", "correct"],
	["3km", "3000 m", "en", "correct"],
	["it is 3 km", "3000 m", "en", "correct"],
	["3 km", "300 m", "en", "incorrect"],
	["30 cm", "3 m", "en", "incorrect"],
	["8 mm", "8 cm", "en", "incorrect"],
	["2 h", "100 min", "en", "incorrect"],
	["3 kg", "3000 m", "en", "undecided"],
	["3 hours", "3 km", "en", "undecided"],
	["500 g", "500 ml", "en", "undecided"],
	["2 ounces", "50 g", "en", "incorrect"],
	["3 acres", "3 m", "en", "undecided"],
	["1 byte", "8 bits", "en", "correct"],
	["1 kb", "1024 bytes", "en", "undecided"],
	["1 kb", "1000 bytes", "en", "undecided"],
	["90 degrees", "90°", "en", "correct"],
	["3 m", "3 min", "en", "undecided"],
	["3 Kilometer", "3000 Meter", "de", "correct"],
	["2 Stunden", "120 Minuten", "de", "correct"],
	["1 Stunde", "60 Minuten", "de", "correct"],
	["300 Zentimeter", "3 Meter", "de", "correct"],
	["0,5 kg", "500 g", "de", "correct"],
	["1,5 Liter", "1500 ml", "de", "correct"],
	["3 km", "3.000 m", "de", "correct"],
	["2 Tage", "48 Stunden", "de", "correct"],
	["2 horas", "120 minutos", "es", "correct"],
	["1 hora", "60 minutos", "es", "correct"],
	["3 kilómetros", "3000 metros", "es", "correct"],
	["300 centímetros", "3 metros", "es", "correct"],
	["0,5 kg", "500 gramos", "es", "correct"],
	["2 días", "48 horas", "es", "correct"],
	["3 kilómetros", "300 metros", "es", "incorrect"],
	["3 kg", "3000 metros", "es", "undecided"],
];

const LOCALE_NUMBERS: Row[] = [
	["1.000", "1000", "de", "correct"],
	["1.000", "1000", "es", "correct"],
	["1 000", "1000", "de", "correct"],
	["1 000", "1000", "es", "correct"],
	["1\u202f000", "1000", "de", "correct"],
	["1\u2009000", "1000", "es", "correct"],
	["1.000.000", "1000000", "de", "correct"],
	["0,5", "0.5", "de", "correct"],
	["0,5", "0.5", "es", "correct"],
	["3,14", "3.14", "de", "correct"],
	["1.000,5", "1000.5", "de", "correct"],
	["0,5", "0,5", "de", "correct"],
	["0.5", "0,5", "de", "correct"],
	["1.5", "1.5", "de", "correct"],
	["0,25", "0.5", "de", "incorrect"],
	["1.000", "100", "de", "incorrect"],
	["1,000", "1000", "en", "correct"],
	["1,000,000", "1000000", "en", "correct"],
	["0.5", "0.5", "en", "correct"],
	["1.000", "1000", "en", "undecided"],
	["1.000", "1", "en", "undecided"],
	["1.000", "5", "en", "incorrect"],
	["1,5", "1.5", "en", "undecided"],
	["0,5", "0.5", "en", "undecided"],
	["1,000", "1000", "de", "undecided"],
	["1,000", "1", "de", "undecided"],
	["2.000", "2000", "es", "correct"],
	["2,5", "2.5", "es", "correct"],
	["es 2,5", "2.5", "es", "correct"],
	["das sind 1.000", "1000", "de", "correct"],
];

const NUMBER_WORDS: Row[] = [
	["eight", "8", "en", "correct"],
	["twenty-one", "21", "en", "correct"],
	["one hundred and two", "102", "en", "correct"],
	["three quarters", "0.75", "en", "correct"],
	["seven", "8", "en", "incorrect"],
	["acht", "8", "de", "correct"],
	["Acht", "8", "de", "correct"],
	["null", "0", "de", "correct"],
	["elf", "11", "de", "correct"],
	["zwölf", "12", "de", "correct"],
	["siebzehn", "17", "de", "correct"],
	["zwanzig", "20", "de", "correct"],
	["einundzwanzig", "21", "de", "correct"],
	["siebenundvierzig", "47", "de", "correct"],
	["neunundneunzig", "99", "de", "correct"],
	["hundert", "100", "de", "correct"],
	["hundertzwei", "102", "de", "correct"],
	["einhundertzwei", "102", "de", "correct"],
	["zweihundertdreiundvierzig", "243", "de", "correct"],
	["tausend", "1000", "de", "correct"],
	["zweitausenddreihundert", "2300", "de", "correct"],
	["eine Million", "1000000", "de", "correct"],
	["zwei Millionen", "2000000", "de", "correct"],
	["die Antwort ist acht", "8", "de", "correct"],
	["acht Meter", "8 m", "de", "correct"],
	["sieben", "8", "de", "incorrect"],
	["einundzwanzig", "12", "de", "incorrect"],
	["eineinhalb", "1.5", "de", "correct"],
	["zweieinhalb", "2.5", "de", "correct"],
	["die Hälfte", "0.5", "de", "correct"],
	["halb", "0.5", "de", "correct"],
	["drei Viertel", "0.75", "de", "correct"],
	["ein Viertel", "0.25", "de", "correct"],
	["zwei Drittel", "2/3", "de", "correct"],
	["ocho", "8", "es", "correct"],
	["cero", "0", "es", "correct"],
	["once", "11", "es", "correct"],
	["quince", "15", "es", "correct"],
	["dieciséis", "16", "es", "correct"],
	["veinte", "20", "es", "correct"],
	["veintiuno", "21", "es", "correct"],
	["veintidós", "22", "es", "correct"],
	["treinta y uno", "31", "es", "correct"],
	["noventa y nueve", "99", "es", "correct"],
	["cien", "100", "es", "correct"],
	["ciento dos", "102", "es", "correct"],
	["doscientos cuarenta y tres", "243", "es", "correct"],
	["quinientos", "500", "es", "correct"],
	["mil", "1000", "es", "correct"],
	["dos mil trescientos", "2300", "es", "correct"],
	["3 mil", "3000", "es", "correct"],
	["un millón", "1000000", "es", "correct"],
	["la respuesta es ocho", "8", "es", "correct"],
	["siete", "8", "es", "incorrect"],
	["treinta y uno", "13", "es", "incorrect"],
	["la mitad", "0.5", "es", "correct"],
	["medio", "0.5", "es", "correct"],
	["tres cuartos", "0.75", "es", "correct"],
	["un cuarto", "0.25", "es", "correct"],
	["dos y medio", "2.5", "es", "correct"],
	["el cuarto", "4", "es", "undecided"],
	["la mitad de 8", "8", "es", "undecided"],
	["la mitad de 8", "4", "es", "undecided"],
	["die Hälfte von 8", "8", "de", "undecided"],
	["dos y tres", "5", "es", "undecided"],
	// Only English and the lesson's language: false friends stay words.
	["once", "11", "en", "undecided"],
	["once", "11", "de", "undecided"],
	["elf", "11", "en", "undecided"],
	["elf", "11", "es", "undecided"],
	["acht", "8", "es", "undecided"],
	["ocho", "8", "de", "undecided"],
	["eight", "8", "de", "correct"],
	["eight", "8", "es", "correct"],
	["8", "acht", "de", "correct"],
	["ocho", "ocho", "es", "correct"],
];

const NEGATIONS: Row[] = [
	["8 is wrong", "8", "en", "undecided"],
	["8 is incorrect", "8", "en", "undecided"],
	["not 8", "8", "en", "undecided"],
	["8 ist falsch", "8", "de", "undecided"],
	["nicht 8", "8", "de", "undecided"],
	["acht ist falsch", "8", "de", "undecided"],
	["8 es incorrecto", "8", "es", "undecided"],
	["no es 8", "8", "es", "undecided"],
	["ocho no", "8", "es", "undecided"],
	["less than 8", "8", "en", "incorrect"],
	["weniger als 8", "8", "de", "incorrect"],
	["about 3 km", "3000 m", "en", "undecided"],
	["etwa acht", "8", "de", "undecided"],
	["binary search is wrong", "binary search", "en", "undecided"],
	["3 km or 4 km", "3000 m", "en", "undecided"],
	["120 min or more", "2 h", "en", "undecided"],
	["8 min", "8", "en", "undecided"],
];

const EXPRESSIONS: Row[] = [
	["2cos(2x)", "2*cos(2*x)", "en", "correct"],
	["2*cos(2*x)", "2cos(2x)", "en", "correct"],
	["2 cos 2x", "2cos(2x)", "en", "correct"],
	["1/2", "0.5", "en", "correct"],
	["0.5", "1/2", "en", "correct"],
	["0,5", "1/2", "de", "correct"],
	["x^2+2x+1", "(x+1)^2", "en", "correct"],
	["(x+1)^2", "x^2 + 2x + 1", "en", "correct"],
	["(x + 1)²", "x^2+2x+1", "en", "correct"],
	["x(x+1)", "x^2 + x", "en", "correct"],
	["2x", "x*2", "en", "correct"],
	["√2/2", "1/√2", "en", "correct"],
	["e^x", "exp(x)", "en", "correct"],
	["n log n", "n*log(n)", "en", "correct"],
	["O(log(n))", "O(log n)", "en", "correct"],
	["2πr", "2*pi*r", "en", "correct"],
	["y = 2x + 1", "2x+1", "en", "correct"],
	["2x + 1", "y = 2x+1", "en", "correct"],
	["2y = 4x + 2", "y = 2x + 1", "en", "correct"],
	["x/2", "$\\frac{x}{2}$", "en", "correct"],
	["0,5x", "x/2", "es", "correct"],
	["x^2+2x+2", "(x+1)^2", "en", "incorrect"],
	["sin(x)", "cos(x)", "en", "incorrect"],
	["x^2+1", "x^2", "en", "incorrect"],
	["1/2x", "x/2", "en", "undecided"],
	["e^2x", "e^(2x)", "en", "undecided"],
	["ln(x)", "log10(x)", "en", "undecided"],
	["x + C", "x", "en", "undecided"],
	["sin(30)", "1/2", "en", "undecided"],
	["3*4", "12", "en", "undecided"],
	["√16", "4", "en", "undecided"],
	["2^3", "8", "en", "undecided"],
	["x = 7", "8", "en", "incorrect"],
	["not 2cos(2x)", "2cos(2x)", "en", "undecided"],
	["logarithmic", "O(log n)", "en", "undecided"],
];

const ABC = (correct: number, ...options: string[]): Choice => ({ options, correct });

const OPTIONS: Row[] = [
	["B", ABC(1, "3", "6", "9"), "en", "correct"],
	["b", ABC(1, "3", "6", "9"), "en", "correct"],
	["(b)", ABC(1, "3", "6", "9"), "en", "correct"],
	["option b", ABC(1, "3", "6", "9"), "en", "correct"],
	["option 2", ABC(1, "3", "6", "9"), "en", "correct"],
	["I'd go with B", ABC(1, "3", "6", "9"), "en", "correct"],
	["A", ABC(1, "3", "6", "9"), "en", "incorrect"],
	["c)", ABC(1, "3", "6", "9"), "en", "incorrect"],
	["six", ABC(1, "3", "6", "9"), "en", "correct"],
	["sechs", ABC(1, "3", "6", "9"), "de", "correct"],
	["seis", ABC(1, "3", "6", "9"), "es", "correct"],
	["nine", ABC(1, "3", "6", "9"), "en", "incorrect"],
	["binary search", ABC(0, "Binary search", "Linear search", "Hashing"), "en", "correct"],
	["it's binary search!", ABC(0, "Binary search", "Linear search", "Hashing"), "en", "correct"],
	["linear search", ABC(0, "Binary search", "Linear search", "Hashing"), "en", "incorrect"],
	["hashing", ABC(0, "Binary search", "Linear search", "Hashing"), "en", "incorrect"],
	["binary search tree", ABC(0, "Binary search", "Linear search", "Hashing"), "en", "undecided"],
	["not binary search", ABC(0, "Binary search", "Linear search", "Hashing"), "en", "undecided"],
	["binary or linear search", ABC(0, "Binary search", "Linear search", "Hashing"), "en", "undecided"],
	["A or B", ABC(0, "Binary search", "Linear search", "Hashing"), "en", "undecided"],
	["3000 m", ABC(1, "300 m", "3 km", "30 km"), "en", "correct"],
	["2*cos(2*x)", ABC(0, "2cos(2x)", "cos(2x)", "-2sin(2x)"), "en", "correct"],
	["-2 sin(2x)", ABC(0, "2cos(2x)", "cos(2x)", "-2sin(2x)"), "en", "incorrect"],
	["keine Ahnung", ABC(0, "2cos(2x)", "cos(2x)", "-2sin(2x)"), "de", "dont-know"],
	["no sé", ABC(1, "3", "6", "9"), "es", "dont-know"],
	["I don't know", ABC(1, "3", "6", "9"), "en", "dont-know"],
	["something else entirely", ABC(1, "3", "6", "9"), "en", "undecided"],
];

const DONT_KNOW: Row[] = [
	["I don't know", "8", "en", "dont-know"],
	["no idea", "8", "en", "dont-know"],
	["not sure", "8", "en", "dont-know"],
	["weiß nicht", "8", "de", "dont-know"],
	["Weiss nicht", "8", "de", "dont-know"],
	["ich weiß es nicht", "8", "de", "dont-know"],
	["Ich weiß nicht.", "8", "de", "dont-know"],
	["keine Ahnung", "8", "de", "dont-know"],
	["ich habe keine Ahnung", "8", "de", "dont-know"],
	["nicht sicher", "8", "de", "dont-know"],
	["ich bin mir nicht sicher", "8", "de", "dont-know"],
	["leider weiß ich nicht", "8", "de", "dont-know"],
	["sorry, keine Ahnung", "8", "de", "dont-know"],
	["I don't know", "8", "de", "dont-know"],
	["no sé", "8", "es", "dont-know"],
	["No lo sé", "8", "es", "dont-know"],
	["ni idea", "8", "es", "dont-know"],
	["no tengo ni idea", "8", "es", "dont-know"],
	["no estoy seguro", "8", "es", "dont-know"],
	["no estoy segura", "8", "es", "dont-know"],
	["lo siento, no sé", "8", "es", "dont-know"],
	["no sé bien", "8", "es", "dont-know"],
	["weiß ich nicht genau", "8", "de", "dont-know"],
	["no idea", "8", "es", "dont-know"],
	["no sé", "8", "en", "undecided"],
	["weiß nicht", "8", "en", "undecided"],
	["keine Ahnung", "8", "es", "undecided"],
	["ni idea", "8", "de", "undecided"],
	["nicht sicher, vielleicht acht", "8", "de", "undecided"],
	["no sé, tal vez ocho", "8", "es", "undecided"],
	["weiß nicht 8", "8", "de", "undecided"],
];

const TABLE: Array<readonly [string, Row[]]> = [
	["units", UNITS],
	["numbers in the lesson's locale", LOCALE_NUMBERS],
	["number words", NUMBER_WORDS],
	["negations", NEGATIONS],
	["expressions", EXPRESSIONS],
	["options by letter, text and value", OPTIONS],
	["don't-know phrases", DONT_KNOW],
];

describe("the judge's table (resolveQuizAnswer, as the engine judges a typed answer)", () => {
	const rows = TABLE.flatMap(([, r]) => r);

	it("holds at least 150 pairs with their verdicts", () => {
		expect(rows.length).toBeGreaterThanOrEqual(150);
	});

	for (const [name, group] of TABLE)
		describe(name, () => {
			it.each(group.map((r) => [r[0], typeof r[1] === "string" ? r[1] : r[1].options.join(" | "), r[2], r[3], r[1]]))(
				"%s for %s (%s) is %s",
				(given, _shown, locale, verdict, expected) => {
					expect(verdictOf(given as string, expected as string | Choice, locale as Locale)).toBe(verdict);
				},
			);
		});

	it("never rules an equivalent pair incorrect, either way round", () => {
		const equivalent = rows.filter(
			(r): r is readonly [string, string, Locale, Verdict] => r[3] === "correct" && typeof r[1] === "string",
		);
		for (const [given, expected, locale] of equivalent)
			expect(verdictOf(expected, given, locale), `${expected} for ${given} (${locale})`).not.toBe("incorrect");
	});
});
