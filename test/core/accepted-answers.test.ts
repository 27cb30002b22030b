import { describe, expect, it } from "vitest";
import { INPUT_LIMITS } from "../../src/core/input-limits.ts";
import { teacherQuizInputSchema } from "../../src/core/question-core.ts";
import { parseQuizInput } from "../../src/core/tool-parts.ts";

const quiz = { question: "How many items do you check?", correctAnswer: "8" };

describe("quiz acceptedAnswers", () => {
	it("is described to the model and carried to the display type", () => {
		expect(JSON.stringify(teacherQuizInputSchema.properties.acceptedAnswers)).toMatch(
			/mean the same as `correctAnswer`/,
		);
		expect(parseQuizInput({ ...quiz, acceptedAnswers: ["all of them", "every item"] })).toEqual({
			...quiz,
			acceptedAnswers: ["all of them", "every item"],
		});
	});

	it("is bounded: more than 20 forms, or one of 500+ characters, is refused", () => {
		const many = Array.from({ length: INPUT_LIMITS.maxAcceptedAnswers + 1 }, (_, i) => `form ${i}`);
		expect(parseQuizInput({ ...quiz, acceptedAnswers: many })).toBeUndefined();
		expect(parseQuizInput({ ...quiz, acceptedAnswers: ["x".repeat(501)] })).toBeUndefined();
		expect(parseQuizInput({ ...quiz, acceptedAnswers: many.slice(0, 20) })).toBeDefined();
	});
});
