import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AnswerKey, leaksAnswer, optionsNamed } from "../../src/core/answer-leaks.ts";
import { tokenizeAnswer } from "../../src/core/answer-tokens.ts";
import { GENERIC_HINT, safeHint } from "../../src/core/struggle.ts";

const EIGHT: AnswerKey = { correctAnswer: "8" };
const THREE_QUARTERS: AnswerKey = { correctAnswer: "3/4" };
const LOG: AnswerKey = { correctAnswer: "O(log n)", acceptedAnswers: ["logarithmic"] };
const COS: AnswerKey = { correctAnswer: "cos(x)" };
const SEARCH: AnswerKey = { correctAnswer: "binary search" };
const SORTS: AnswerKey = { correctAnswer: "Merge sort", options: ["Merge sort", "Bubble sort", "Insertion sort"] };

/** Seventeen hints that give the answer away. The first five were caught before; the other twelve were shown. */
const LEAKING: Array<[hint: string, key: AnswerKey]> = [
	["Count the 8 items.", EIGHT],
	["It is COS(x), of course.", COS],
	["The answer is binary search.", SEARCH],
	["Think 3/4 of the way.", THREE_QUARTERS],
	["It's O(log n), like halving.", LOG],
	// shown before
	["Pick option A.", SORTS],
	["It's the first option.", SORTS],
	["The first one.", SORTS],
	["Die erste Option.", SORTS],
	["La primera opción.", SORTS],
	["It's not B or C.", SORTS],
	["Think about eight.", EIGHT],
	["It's 0.75 of the whole.", THREE_QUARTERS],
	["Three quarters of it.", THREE_QUARTERS],
	["75% of the pie.", THREE_QUARTERS],
	["Think O(log(n)).", LOG],
	["It grows in a logarithmic way.", LOG],
];

/** Hints that give nothing away stay as they are. */
const FINE: Array<[hint: string, key: AnswerKey]> = [
	["Match the denominators first.", THREE_QUARTERS],
	["Halve the range each time: how often can you halve it?", LOG],
	["Compare the middle element first.", SEARCH],
	["Which one must be true, not just likely?", SORTS],
	["A sorted list helps: think about splitting it.", SORTS],
	["Think of 18 or a8.", EIGHT],
	["How many items could the last one be?", EIGHT],
	["Which of these splits the work in halves?", SORTS],
];

describe("safeHint: a hint that gives the answer away is replaced by the generic hint", () => {
	it.each(LEAKING)("%j leaks", (hint, key) => {
		expect(safeHint(hint, key)).toBe(GENERIC_HINT);
		expect(leaksAnswer(hint, key)).toBe(true);
	});

	it.each(FINE)("%j is kept", (hint, key) => {
		expect(safeHint(hint, key)).toBe(hint);
	});

	it("still takes the answer alone (the old call)", () => {
		expect(safeHint("Think about eight.", "8")).toBe(GENERIC_HINT);
		expect(safeHint("Match the denominators first.", "3/4")).toBe("Match the denominators first.");
	});
});

describe("optionsNamed", () => {
	it.each([
		["Pick option A.", [0]],
		["(b) is tempting", [1]],
		["b) looks close", [1]],
		["It's C.", [2]],
		["A is right", [0]],
		["A sorted list", []],
		["option 2", [1]],
		["option two", [1]],
		["the second one", [1]],
		["the last option", [2]],
		["die zweite Antwort", [1]],
		["la tercera", [2]],
		["the first step is to compare", []],
	] as Array<[string, number[]]>)("%j names %j", (text, named) => {
		expect([...optionsNamed(tokenizeAnswer(text), 3)].sort()).toEqual(named);
	});
});

describe("properties (seeded)", () => {
	it("a hint that states the number, in digits or as a decimal, always leaks", () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 2, max: 9 }), (n, d) => {
				const key = { correctAnswer: `${n}/${d}` };
				const decimal = (n / d).toFixed(4);
				expect(leaksAnswer(`Think ${decimal} of it.`, key)).toBe(true);
				expect(leaksAnswer(`Think ${n}/${d}.`, key)).toBe(true);
			}),
			{ seed: 17, numRuns: 200 },
		);
	});

	it("brackets and spacing do not hide a term", () => {
		const term = fc.constantFrom("O(log n)", "O(n log n)", "f(g(x))", "cos(x)");
		const spaced = (t: string, extra: boolean): string =>
			extra
				? t.replaceAll("(", "( ").replaceAll(")", " )")
				: t.replaceAll(" ", "(").concat(")".repeat(t.split(" ").length - 1));
		fc.assert(
			fc.property(term, fc.boolean(), (t, extra) => {
				expect(leaksAnswer(`Think ${spaced(t, extra)} here.`, { correctAnswer: t })).toBe(true);
			}),
			{ seed: 18, numRuns: 50 },
		);
	});

	it("never throws and stays linear on long hostile text", () => {
		const hostile = ["option a ".repeat(300), "(b) ".repeat(600), "the first one ".repeat(150), "8.".repeat(1000)];
		for (const text of hostile) expect(typeof leaksAnswer(text, SORTS)).toBe("boolean");
		fc.assert(
			fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 40 }), (text, answer) => {
				expect(typeof leaksAnswer(text, { correctAnswer: answer, options: [answer, "x"] })).toBe("boolean");
			}),
			{ seed: 19, numRuns: 300 },
		);
	});
});
