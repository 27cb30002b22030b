/** Every lesson language brings its own answer words: number words, unit words and don't-know phrases. */

import { describe, expect, it } from "vitest";
import { tokenizeAnswer } from "../../src/core/answer-tokens.ts";
import { knownUnit } from "../../src/core/answer-units.ts";
import { foldWords, readLocaleNumber } from "../../src/core/answer-words.ts";
import { ANSWER_WORDS, LOCALES } from "../../src/i18n/index.ts";

describe("answer words per language", () => {
	it("every locale has its number words, don't-know phrases and fillers", () => {
		for (const locale of LOCALES) {
			const words = ANSWER_WORDS[locale];
			expect(words, locale).toBeDefined();
			expect(Object.keys(words.numbers.units).length, locale).toBeGreaterThanOrEqual(20);
			expect(Object.keys(words.numbers.tens).length, locale).toBeGreaterThanOrEqual(8);
			expect(words.numbers.hundred.length, locale).toBeGreaterThan(0);
			expect(Object.keys(words.numbers.scales).length, locale).toBeGreaterThan(0);
			expect(Object.keys(words.numbers.fractions).length, locale).toBeGreaterThan(0);
			expect(words.dontKnow.length, locale).toBeGreaterThanOrEqual(5);
		}
		expect(Object.keys(ANSWER_WORDS).sort()).toEqual([...LOCALES].sort());
	});

	it("every unit word names a unit the judge converts", () => {
		for (const locale of LOCALES)
			for (const [word, unit] of Object.entries(ANSWER_WORDS[locale].units)) {
				expect(knownUnit(unit), `${locale} ${word} → ${unit}`).toBe(unit);
				expect(knownUnit(foldWords(word), locale), `${locale} ${word}`).toBe(unit);
			}
	});

	it("every cardinal of each language reads as its value there", () => {
		for (const locale of LOCALES) {
			if (locale === "en") continue;
			const { units, tens } = ANSWER_WORDS[locale].numbers;
			for (const [word, value] of Object.entries({ ...units, ...tens }))
				expect(readLocaleNumber(tokenizeAnswer(word, locale), 0, locale)?.value, `${locale} ${word}`).toBe(value);
		}
	});

	it("a long run of number parts is read in bounded work (a word past the cap is no number)", () => {
		const long = "einundzwanzig".repeat(200);
		expect(readLocaleNumber(tokenizeAnswer(long, "de"), 0, "de")).toBeUndefined();
		const many = Array.from({ length: 5000 }, () => "treinta y").join(" ");
		expect(readLocaleNumber(tokenizeAnswer(many, "es"), 0, "es")?.value).toBe(30);
	});
});
