/**
 * The judge's table: typed answers against expected ones in English, German and Spanish, with units,
 * the locale's number style, number words, don't-know phrases and negations, each with its verdict.
 * The rule it holds: no equivalent pair is ruled incorrect; an ambiguous form is for the grader.
 */

import { describe, expect, it } from "vitest";
import { judgeAnswer, saysDontKnow } from "../../src/core/answer-match.ts";
import { pickTypedOption } from "../../src/core/answer-options.ts";
import type { Locale } from "../../src/i18n/index.ts";

type Verdict = "correct" | "incorrect" | "unsure";
/** given, expected, locale, verdict. */
type Row = readonly [string, string, Locale, Verdict];

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
	["3 kg", "3000 m", "en", "unsure"],
	["3 hours", "3 km", "en", "unsure"],
	["500 g", "500 ml", "en", "unsure"],
	["2 ounces", "50 g", "en", "incorrect"],
	["3 acres", "3 m", "en", "unsure"],
	["1 byte", "8 bits", "en", "correct"],
	["1 kb", "1024 bytes", "en", "unsure"],
	["1 kb", "1000 bytes", "en", "unsure"],
	["90 degrees", "90°", "en", "correct"],
	["3 m", "3 min", "en", "unsure"],
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
	["3 kg", "3000 metros", "es", "unsure"],
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
	["1.000", "1000", "en", "unsure"],
	["1.000", "1", "en", "unsure"],
	["1.000", "5", "en", "incorrect"],
	["1,5", "1.5", "en", "unsure"],
	["0,5", "0.5", "en", "unsure"],
	["1,000", "1000", "de", "unsure"],
	["1,000", "1", "de", "unsure"],
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
	["el cuarto", "4", "es", "unsure"],
	["la mitad de 8", "8", "es", "unsure"],
	["la mitad de 8", "4", "es", "unsure"],
	["die Hälfte von 8", "8", "de", "unsure"],
	["dos y tres", "5", "es", "unsure"],
	// Only English and the lesson's language: false friends stay words.
	["once", "11", "en", "unsure"],
	["once", "11", "de", "unsure"],
	["elf", "11", "en", "unsure"],
	["elf", "11", "es", "unsure"],
	["acht", "8", "es", "unsure"],
	["ocho", "8", "de", "unsure"],
	["eight", "8", "de", "correct"],
	["eight", "8", "es", "correct"],
	["8", "acht", "de", "correct"],
	["ocho", "ocho", "es", "correct"],
];

const NEGATIONS: Row[] = [
	["8 is wrong", "8", "en", "unsure"],
	["8 is incorrect", "8", "en", "unsure"],
	["not 8", "8", "en", "unsure"],
	["8 ist falsch", "8", "de", "unsure"],
	["nicht 8", "8", "de", "unsure"],
	["acht ist falsch", "8", "de", "unsure"],
	["8 es incorrecto", "8", "es", "unsure"],
	["no es 8", "8", "es", "unsure"],
	["ocho no", "8", "es", "unsure"],
	["less than 8", "8", "en", "incorrect"],
	["weniger als 8", "8", "de", "incorrect"],
	["about 3 km", "3000 m", "en", "unsure"],
	["etwa acht", "8", "de", "unsure"],
	["binary search is wrong", "binary search", "en", "unsure"],
	["3 km or 4 km", "3000 m", "en", "unsure"],
	["120 min or more", "2 h", "en", "unsure"],
	["8 min", "8", "en", "unsure"],
];

const TABLE: Array<readonly [string, Row[]]> = [
	["units", UNITS],
	["numbers in the lesson's locale", LOCALE_NUMBERS],
	["number words", NUMBER_WORDS],
	["negations", NEGATIONS],
];

/** Don't-know phrases: [typed, locale, says don't know]. */
const DONT_KNOW: Array<readonly [string, Locale, boolean]> = [
	["I don't know", "en", true],
	["no idea", "en", true],
	["not sure", "en", true],
	["weiß nicht", "de", true],
	["Weiss nicht", "de", true],
	["ich weiß es nicht", "de", true],
	["Ich weiß nicht.", "de", true],
	["keine Ahnung", "de", true],
	["ich habe keine Ahnung", "de", true],
	["nicht sicher", "de", true],
	["ich bin mir nicht sicher", "de", true],
	["leider weiß ich nicht", "de", true],
	["sorry, keine Ahnung", "de", true],
	["I don't know", "de", true],
	["no sé", "es", true],
	["No lo sé", "es", true],
	["ni idea", "es", true],
	["no tengo ni idea", "es", true],
	["no estoy seguro", "es", true],
	["no estoy segura", "es", true],
	["lo siento, no sé", "es", true],
	["no sé bien", "es", true],
	["weiß ich nicht genau", "de", true],
	["no idea", "es", true],
	["no sé", "en", false],
	["weiß nicht", "en", false],
	["keine Ahnung", "es", false],
	["ni idea", "de", false],
	["nicht sicher, vielleicht acht", "de", false],
	["no sé, tal vez ocho", "es", false],
	["weiß nicht 8", "de", false],
];

describe("the judge's table", () => {
	const rows = TABLE.flatMap(([, r]) => r);

	it("holds at least 150 pairs with their verdicts", () => {
		expect(rows.length + DONT_KNOW.length).toBeGreaterThanOrEqual(150);
	});

	for (const [name, group] of TABLE)
		describe(name, () => {
			it.each(group.map((r) => [...r]))("%s for %s (%s) is %s", (given, expected, locale, verdict) => {
				expect(judgeAnswer(given, expected, [], locale as Locale)).toBe(verdict);
			});
		});

	it.each(DONT_KNOW.map((r) => [...r]))("'%s' in %s says don't know: %s", (typed, locale, says) => {
		expect(saysDontKnow(typed as string, locale as Locale)).toBe(says);
	});

	it("never rules an equivalent pair incorrect (each pair both ways)", () => {
		const equivalent = rows.filter((r) => r[3] === "correct" && /^\d/.test(r[1]) && /^\d/.test(r[0]));
		for (const [given, expected, locale] of equivalent)
			expect(judgeAnswer(expected, given, [], locale), `${expected} for ${given}`).not.toBe("incorrect");
	});

	it("picks a numeric option named in the lesson's language", () => {
		expect(pickTypedOption("acht", ["6", "8", "10"], "de")).toEqual({ ok: true, index: 1 });
		expect(pickTypedOption("ocho", ["6", "8", "10"], "es")).toEqual({ ok: true, index: 1 });
		expect(pickTypedOption("3 km", ["300 m", "3000 m"], "en")).toEqual({ ok: true, index: 1 });
		expect(pickTypedOption("ocho", ["6", "8", "10"], "de")).toEqual({ ok: false, why: "none" });
	});
});
