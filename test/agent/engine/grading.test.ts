import { describe, expect, it } from "vitest";
import { normalizeAnswer, resolveAskAnswer, resolveQuizAnswer } from "../../../src/core/answer-resolve.ts";
import { finishesWithin } from "../../fixtures/time-bound.ts";

describe("normalized choices", () => {
	it("trim, case-fold and collapse whitespace", () => {
		expect(normalizeAnswer("  The   Chain\tRule. ")).toBe("the chain rule");
		expect(normalizeAnswer("`x^2`")).toBe("x^2");
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
	it("a typed reply may name an option by letter or text; a click may not name a letter", () => {
		expect(resolveQuizAnswer(quiz, "c", true)).toMatchObject({ result: { answer: "Gamma", correct: false } });
		expect(resolveQuizAnswer(quiz, "I'd say beta", true)).toEqual({
			ok: true,
			result: { answer: "Beta", correct: true },
		});
		expect(resolveQuizAnswer(quiz, "c", false)).toMatchObject({ ok: false });
	});
	it("a typed reply that names no option, or two, is recorded for the model to judge", () => {
		expect(resolveQuizAnswer(quiz, "beta or gamma", true)).toEqual({
			ok: true,
			result: { answer: "beta or gamma", judged: "unsure" },
		});
		expect(resolveQuizAnswer(quiz, "the second letter of the alphabet", true)).toMatchObject({
			result: { judged: "unsure" },
		});
		// A typed digit is not a 0-based index: "2" names no option here.
		expect(resolveQuizAnswer(quiz, "2", true)).toMatchObject({ result: { answer: "2", judged: "unsure" } });
	});
	it("a free-answer quiz judges the typed text, with accepted alternatives", () => {
		const free = { question: "1/2 + 1/4?", correctAnswer: "3/4" };
		expect(resolveQuizAnswer(free, "0.75", true)).toEqual({ ok: true, result: { answer: "0.75", correct: true } });
		expect(resolveQuizAnswer(free, "three quarters", true)).toMatchObject({ result: { correct: true } });
		expect(resolveQuizAnswer(free, "2/3", true)).toEqual({ ok: true, result: { answer: "2/3", correct: false } });
		expect(resolveQuizAnswer(free, "3/4 or 2/3", true)).toEqual({
			ok: true,
			result: { answer: "3/4 or 2/3", judged: "unsure" },
		});
		const worst = { question: "Worst case?", correctAnswer: "8", acceptedAnswers: ["all of them"] };
		expect(resolveQuizAnswer(worst, "All of them.", true)).toMatchObject({ result: { correct: true } });
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

describe("hostile typed answers", () => {
	// 🤷, 40 variation selectors and a letter: the don't-know check backtracked exponentially on it (never ended).
	const shrug = `🤷${"\ufe0f".repeat(40)}x`;

	it("a free answer is judged at once, typed or from the form", () => {
		const free = { question: "How many?", correctAnswer: "8" };
		for (const typed of [true, false])
			expect(finishesWithin(() => resolveQuizAnswer(free, shrug, typed), 1_000)).toMatchObject({
				ok: true,
				result: { answer: shrug },
			});
	});

	it("a typed reply to a quiz with options is judged at once", () => {
		expect(finishesWithin(() => resolveQuizAnswer(quiz, shrug, true), 1_000)).toEqual({
			ok: true,
			result: { answer: shrug, judged: "unsure" },
		});
	});
});

describe("typed answers in the lesson's language", () => {
	const open = { question: "How many legs has a spider?", correctAnswer: "8" };
	const distance = { question: "How far?", correctAnswer: "3000 m" };
	it("reads number words, units and don't-know phrases in the locale it is given", () => {
		expect(resolveQuizAnswer(open, "acht", true, "de")).toEqual({
			ok: true,
			result: { answer: "acht", correct: true },
		});
		expect(resolveQuizAnswer(open, "ocho", true, "es")).toEqual({
			ok: true,
			result: { answer: "ocho", correct: true },
		});
		expect(resolveQuizAnswer(distance, "3 km", true, "en")).toMatchObject({ result: { correct: true } });
		expect(resolveQuizAnswer(open, "weiß nicht", true, "de")).toMatchObject({ result: { notSure: true } });
		expect(resolveQuizAnswer(open, "no sé", true, "es")).toMatchObject({ result: { notSure: true } });
		const options = { question: "Legs?", options: ["6", "8"], correctAnswer: "8" };
		expect(resolveQuizAnswer(options, "acht", true, "de")).toMatchObject({ result: { answer: "8", correct: true } });
		expect(resolveQuizAnswer(options, "keine Ahnung", true, "de")).toMatchObject({ result: { notSure: true } });
	});
	it("never counts '8 is wrong' as 8", () => {
		expect(resolveQuizAnswer(open, "8 is wrong", true)).toMatchObject({ result: { judged: "unsure" } });
	});
});
