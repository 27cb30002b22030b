/**
 * Math answers compared as math: equivalent expressions are the same answer, another expression in the
 * same variables is conclusively another, and anything written two ways, in other variables, or not math
 * at all is left undecided. Bounded: long, deep or hostile inputs finish at once.
 */

import { describe, expect, it } from "vitest";
import { compareMath, MAX_EXPRESSION_CHARS, readMath } from "../../src/core/answer-expressions.ts";
import { judgeAnswer } from "../../src/core/answer-match.ts";
import { pickTypedOption } from "../../src/core/answer-options.ts";
import type { Locale } from "../../src/i18n/index.ts";
import { finishesWithin } from "../fixtures/time-bound.ts";

type MathVerdict = "same" | "different" | undefined;

const CASES: Array<readonly [string, string, MathVerdict, Locale?]> = [
	["2cos(2x)", "2*cos(2*x)", "same"],
	["2*cos(2*x)", "2cos(2x)", "same"],
	["x^2+2x+1", "(x+1)^2", "same"],
	["(x+1)^2", "x^2+2x+1", "same"],
	["x² + 2x + 1", "(x+1)^2", "same"],
	["0.5", "1/2", "same"],
	["√2/2", "1/√2", "same"],
	["a+b", "b+a", "same"],
	["x(x+1)", "x^2+x", "same"],
	["2 sin x cos x", "sin(2x)", "same"],
	["e^x", "exp(x)", "same"],
	["n log n", "n*log(n)", "same"],
	["O(log(n))", "O(log n)", "same"],
	["2πr", "2*pi*r", "same"],
	["y = 2x + 1", "2x+1", "same"],
	["2x+1", "y = 2x + 1", "same"],
	["2y = 4x + 2", "y = 2x + 1", "same"],
	["f(x) = x^2", "x^2", "same"],
	["0,5x", "x/2", "same", "de"],
	["1/2 x", "x/2", undefined],
	["$\\frac{1}{2}x$", "x/2", "same"],
	["\\sqrt{x}", "sqrt(x)", "same"],
	["e^{2x}", "exp(2x)", "same"],
	// Another expression in the same variables: conclusive.
	["x^2+2x+2", "(x+1)^2", "different"],
	["sin(x)", "cos(x)", "different"],
	["x^2+1", "x^2", "different"],
	["sqrt(x^2)", "x", "different"],
	// Written two ways, or not decidable: the grader's.
	["1/2x", "x/2", undefined],
	["1/2x", "1/(2x)", undefined],
	["e^2x", "e^(2x)", undefined],
	["x^1/2", "sqrt(x)", undefined],
	["ln(x)", "log(x)", undefined],
	["log10(x)", "log(x)", undefined],
	["O(2n)", "O(n)", undefined],
	["x + C", "x", undefined],
	["sin(30)", "1/2", undefined],
	["3*4", "12", undefined],
	["12", "12", undefined],
	["binary search", "binary search", undefined],
	["a", "b", undefined],
	["not x^2", "x^2", undefined],
	["x^2 is wrong", "x^2", undefined],
	["x > 3", "x > 3", undefined],
	["x!", "x", undefined],
	["[1, 2]", "[1, 2]", undefined],
	["a.b", "a.b", undefined],
	["f(x) = x^2", "f(x) = x^2 = y", undefined],
];

describe("math answers compared as math", () => {
	it.each(CASES.map((c) => [...c]))("%s for %s is %s", (given, expected, verdict, locale) => {
		expect(compareMath(given as string, expected as string, (locale ?? "en") as Locale)).toBe(verdict);
	});

	it("judges typed answers by it: the same expression correct, another in the same variables incorrect", () => {
		expect(judgeAnswer("2cos(2x)", "2*cos(2*x)")).toBe("correct");
		expect(judgeAnswer("(x+1)^2", "x^2 + 2x + 1")).toBe("correct");
		expect(judgeAnswer("x^2+2x+2", "(x+1)^2")).toBe("incorrect");
		expect(judgeAnswer("1/2x", "x/2")).toBe("unsure");
		expect(judgeAnswer("x + C", "x")).toBe("unsure");
		expect(judgeAnswer("not 2cos(2x)", "2*cos(2*x)")).toBe("unsure");
		// An unclear number stays unclear: 1.000 in English may be a thousand.
		expect(judgeAnswer("1.000x", "1000x")).toBe("unsure");
	});

	it("picks the option that is the same math", () => {
		const options = ["2cos(2x)", "cos(2x)", "-2sin(2x)"];
		expect(pickTypedOption("2*cos(2*x)", options)).toEqual({ ok: true, index: 0 });
		expect(pickTypedOption("-2 sin(2x)", options)).toEqual({ ok: true, index: 2 });
		expect(pickTypedOption("B", options)).toEqual({ ok: true, index: 1 });
		expect(pickTypedOption("sin(x)", options)).toEqual({ ok: false, why: "none" });
	});

	it("reads nothing longer than the cap, and no text mathjs would read as something else", () => {
		expect(readMath(`${"x+".repeat(MAX_EXPRESSION_CHARS)}x`)).toBeUndefined();
		expect(readMath("3 km")).toBeUndefined();
		expect(readMath("'abc'")).toBeUndefined();
		expect(readMath("x = 2; y = 3")).toBeUndefined();
		expect(readMath("import('fs')")).toBeUndefined();
		expect(readMath("f(x) = x^2")?.equation?.named).toBe("f");
	});

	it("finishes at once on hostile inputs (deep nesting, towers, long numbers, many bare arguments)", () => {
		const hostile = [
			`${"(".repeat(60)}x${")".repeat(60)}`,
			`${"(".repeat(119)}`,
			`${"x^".repeat(59)}x`,
			"9".repeat(119),
			`1e${"9".repeat(100)}x`,
			"sin ".repeat(30),
			`sin${" ".repeat(110)}9`,
			"2x".repeat(60),
			`${"sqrt(".repeat(24)}x${")".repeat(24)}`,
			`${"-".repeat(119)}x`,
			"ε".repeat(42),
			"\\frac{".repeat(20),
		];
		finishesWithin(() => {
			for (const h of hostile) {
				for (const other of ["x", "(x+1)^2", h]) compareMath(h, other);
				judgeAnswer(h, "2cos(2x)");
			}
		}, 500);
	});
});
