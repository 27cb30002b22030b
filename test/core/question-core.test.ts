import { describe, expect, it } from "vitest";
import {
	askInputProblems,
	askOptionProblems,
	explainInputProblems,
	QUESTION_LIMITS,
	quizInputProblems,
} from "../../src/core/question-core.ts";

const quiz = { question: "Which?", options: ["a", "b"], correctAnswer: "a" };

describe("quizInputProblems", () => {
	it("is empty for a good quiz and a good free-answer quiz", () => {
		expect(quizInputProblems(quiz)).toEqual([]);
		expect(quizInputProblems({ question: "2+2?", correctAnswer: "4" })).toEqual([]);
	});
	it("names a blank question", () => {
		expect(quizInputProblems({ ...quiz, question: "  " })).toEqual([expect.stringMatching(/question.*blank/)]);
	});
	it("wants 2 to 25 options", () => {
		expect(quizInputProblems({ ...quiz, options: ["a"] }).join()).toMatch(/give 2 to 25/);
		const many = Array.from({ length: 26 }, (_, i) => `o${i}`);
		expect(quizInputProblems({ ...quiz, options: many, correctAnswer: "o1" }).join()).toMatch(/26 entries/);
	});
	it("wants unique, non-blank options", () => {
		expect(quizInputProblems({ ...quiz, options: ["a", "A ", "b"] }).join()).toMatch(/repeats/);
		expect(quizInputProblems({ ...quiz, options: ["a", " "] }).join()).toMatch(/blank/);
	});
	it("wants correctAnswer among the options", () => {
		expect(quizInputProblems({ ...quiz, correctAnswer: "c" }).join()).toMatch(/not one of the options/);
	});
	it("wants a free answer when there are no options", () => {
		expect(quizInputProblems({ question: "q", correctAnswer: "" }).join()).toMatch(/correctAnswer.*blank/);
	});
	it("keeps texts within what a chat message can show", () => {
		const long = "x".repeat(QUESTION_LIMITS.questionMaxChars + 1);
		expect(quizInputProblems({ ...quiz, question: long }).join()).toMatch(/keep it under/);
		const longOption = "y".repeat(QUESTION_LIMITS.optionMaxChars + 1);
		expect(quizInputProblems({ ...quiz, options: ["a", longOption] }).join()).toMatch(/keep options under/);
	});
});

describe("ask refinements", () => {
	it("treats no options as free text", () => {
		expect(askOptionProblems([])).toEqual([]);
		expect(askInputProblems({ question: "Why?" })).toEqual([]);
	});
	it("names duplicate values and blank labels", () => {
		const problems = askOptionProblems([
			{ value: "a", label: "A" },
			{ value: "a", label: " " },
		]);
		expect(problems.join()).toMatch(/appears twice/);
		expect(problems.join()).toMatch(/blank `label`/);
	});
	it("names a blank question", () => {
		expect(askInputProblems({ question: "" }).join()).toMatch(/blank/);
	});
});

describe("explainInputProblems", () => {
	it("names a blank or oversized body", () => {
		expect(explainInputProblems({ body: "" }).join()).toMatch(/blank/);
		expect(explainInputProblems({ body: "z".repeat(QUESTION_LIMITS.explainBodyMaxChars + 1) }).join()).toMatch(
			/split it/,
		);
		expect(explainInputProblems({ body: "fine", title: "t" })).toEqual([]);
	});
});
