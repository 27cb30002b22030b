import { describe, expect, it } from "vitest";
import {
	CATALOGUES,
	formatDuration,
	formatNumber,
	LOCALES,
	pickLocale,
	placeholders,
	resolveLocale,
	t,
	tn,
} from "../../src/i18n/index.ts";

const english = CATALOGUES.en;
const keys = Object.keys(english).sort();

describe("the message catalogue", () => {
	it("has at least three complete languages", () => {
		expect(LOCALES.length).toBeGreaterThanOrEqual(3);
	});

	for (const locale of LOCALES) {
		it(`${locale}: every English key, no extra key, the same placeholders, no empty text`, () => {
			const catalogue = CATALOGUES[locale] as Record<string, string>;
			expect(Object.keys(catalogue).sort()).toEqual(keys);
			for (const key of keys) {
				const text = catalogue[key] ?? "";
				expect(text.trim(), `${locale} ${key}`).not.toBe("");
				expect(placeholders(text), `${locale} ${key}`).toEqual(placeholders(english[key as keyof typeof english]));
			}
		});
	}

	it("the test itself notices a missing key and a changed placeholder", () => {
		const broken: Record<string, string> = { ...CATALOGUES.de };
		delete broken["card.answerButton"];
		expect(Object.keys(broken).sort()).not.toEqual(keys);
		expect(placeholders("Nur {lerner} kann")).not.toEqual(placeholders(english["refuse.endNotAllowed"]));
	});

	it("translations differ from English where words are shown", () => {
		expect(t("de", "card.answerButton")).toBe("Antworten");
		expect(t("es", "card.answerButton")).toBe("Responder");
		expect(t("en", "card.answerButton")).toBe("Answer");
	});
});

describe("formatting", () => {
	it("fills placeholders and formats numbers for the locale", () => {
		expect(t("en", "budget.perDay", { tokens: 50_000 })).toBe("50,000 tokens per day");
		expect(t("de", "budget.perDay", { tokens: 50_000 })).toBe("50.000 Tokens pro Tag");
		expect(formatNumber("es", 1_234_567)).toBe("1.234.567");
	});

	it("picks plural forms with Intl.PluralRules", () => {
		expect(tn("en", "count.lessons", 1)).toBe("1 lesson");
		expect(tn("en", "count.lessons", 3)).toBe("3 lessons");
		expect(tn("de", "count.lessons", 1)).toBe("1 Lektion");
		expect(tn("de", "count.lessons", 2)).toBe("2 Lektionen");
		expect(tn("es", "count.steps", 0)).toBe("0 pasos");
	});

	it("formats durations with Intl", () => {
		expect(formatDuration("en", 192)).toMatch(/3 hr.*12 min/);
		expect(formatDuration("de", 5)).toMatch(/5 Min/);
	});
});

describe("locale resolution", () => {
	it("maps platform tags to supported locales", () => {
		expect(resolveLocale("de")).toBe("de");
		expect(resolveLocale("de-DE")).toBe("de");
		expect(resolveLocale("es-419")).toBe("es");
		expect(resolveLocale("es-ES")).toBe("es");
		expect(resolveLocale("en-US")).toBe("en");
		expect(resolveLocale("pt_BR")).toBeUndefined();
		expect(resolveLocale(42)).toBeUndefined();
		expect(resolveLocale(undefined)).toBeUndefined();
	});

	it("an explicit choice wins; unsupported ones fall back to English", () => {
		expect(pickLocale("es", "de")).toBe("es");
		expect(pickLocale(undefined, "de-AT")).toBe("de");
		expect(pickLocale("ja", "ko")).toBe("en");
		expect(pickLocale()).toBe("en");
	});
});
