import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	answersMatch,
	normalizeAnswer,
	parseAnswerNumber,
	resolveAskAnswer,
	resolveQuizAnswer,
} from "../../../src/agent/engine/grading.ts";

describe("free answers", () => {
	it("compare after trimming, case folding and whitespace collapsing", () => {
		expect(normalizeAnswer("  The   Chain\tRule. ")).toBe("the chain rule");
		expect(answersMatch("the chain rule", "The Chain Rule")).toBe(true);
		expect(answersMatch("`x^2`", "x^2")).toBe(true);
		expect(answersMatch("chain", "chain rule")).toBe(false);
		expect(answersMatch("", "")).toBe(false);
	});
	it("compare numbers by value: 0.50 = .5 = 1/2", () => {
		expect(parseAnswerNumber("0.50")).toBe(0.5);
		expect(parseAnswerNumber(".5")).toBe(0.5);
		expect(parseAnswerNumber("1/2")).toBe(0.5);
		expect(parseAnswerNumber("1/0")).toBeUndefined();
		expect(parseAnswerNumber("half")).toBeUndefined();
		expect(answersMatch("0.50", "1/2")).toBe(true);
		expect(answersMatch("10", "10.0")).toBe(true);
		expect(answersMatch("-3", "3")).toBe(false);
		expect(answersMatch("1e3", "1000")).toBe(true);
	});
	it("an answer always matches itself (when not blank)", () => {
		fc.assert(fc.property(fc.string(), (s) => answersMatch(s, s) === (normalizeAnswer(s) !== "")));
	});
});

const quiz = { question: "Pick", options: ["Alpha", "Beta", "Gamma"], correctAnswer: "Beta" };

describe("quiz answers", () => {
	it("take the option text or a 0-based index, and grade it", () => {
		expect(resolveQuizAnswer(quiz, 1, false)).toEqual({ ok: true, result: { answer: "Beta", correct: true } });
		expect(resolveQuizAnswer(quiz, "Alpha", false)).toEqual({ ok: true, result: { answer: "Alpha", correct: false } });
		expect(resolveQuizAnswer(quiz, " beta ", false)).toMatchObject({ result: { answer: "Beta", correct: true } });
		expect(resolveQuizAnswer(quiz, 3, false)).toMatchObject({ ok: false });
		expect(resolveQuizAnswer(quiz, 1.5, false)).toMatchObject({ ok: false });
		expect(resolveQuizAnswer(quiz, "Delta", false)).toMatchObject({ ok: false });
	});
	it("a typed reply may name an option by letter", () => {
		expect(resolveQuizAnswer(quiz, "c", true)).toMatchObject({ result: { answer: "Gamma", correct: false } });
		expect(resolveQuizAnswer(quiz, "c", false)).toMatchObject({ ok: false });
	});
	it("a free-answer quiz grades the typed text", () => {
		const free = { question: "1/2 + 1/4?", correctAnswer: "3/4" };
		expect(resolveQuizAnswer(free, "0.75", true)).toEqual({ ok: true, result: { answer: "0.75", correct: true } });
		expect(resolveQuizAnswer(free, "   ", true)).toMatchObject({ ok: false, message: "The answer is empty." });
		expect(resolveQuizAnswer(free, "x".repeat(3000), true)).toMatchObject({ ok: false });
	});
});

describe("ask answers", () => {
	const ask = {
		question: "How sure are you?",
		options: [
			{ value: "low", label: "Not sure" },
			{ value: "high", label: "Very sure" },
		],
	};
	it("take the option value, its label or an index, with the label", () => {
		expect(resolveAskAnswer(ask, "high", false)).toEqual({ ok: true, result: { answer: "high", label: "Very sure" } });
		expect(resolveAskAnswer(ask, 0, false)).toEqual({ ok: true, result: { answer: "low", label: "Not sure" } });
		expect(resolveAskAnswer(ask, "not sure", true)).toMatchObject({ result: { answer: "low" } });
		expect(resolveAskAnswer(ask, "medium", false)).toMatchObject({ ok: false });
	});
	it("a typed reply to an ask with options is still an answer; free asks take text", () => {
		expect(resolveAskAnswer(ask, "somewhere between", true)).toEqual({
			ok: true,
			result: { answer: "somewhere between" },
		});
		expect(resolveAskAnswer({ question: "Why?" }, " because ", true)).toEqual({
			ok: true,
			result: { answer: "because" },
		});
	});
});
