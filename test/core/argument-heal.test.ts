import fc from "fast-check";
import { Value } from "typebox/value";
import { describe, expect, it } from "vitest";
import { healEncodedArguments } from "../../src/core/argument-heal.ts";
import { probeDoneInputSchema } from "../../src/core/contracts/probe.ts";
import { askInputSchema, quizDisplayInputSchema, teacherQuizInputSchema } from "../../src/core/question-core.ts";

const quiz = { question: "2+2?", options: ["3", "4"], correctAnswer: "4", type: "check" };

describe("healEncodedArguments", () => {
	it("returns valid input unchanged, as the same object", () => {
		expect(healEncodedArguments(quiz, quizDisplayInputSchema)).toBe(quiz);
	});

	it("heals the whole argument object sent as a JSON string", () => {
		expect(healEncodedArguments(JSON.stringify(quiz), quizDisplayInputSchema)).toEqual(quiz);
	});

	it("heals a JSON-encoded string in a literal field", () => {
		const healed = healEncodedArguments({ ...quiz, type: '"predict"' }, quizDisplayInputSchema);
		expect(healed).toEqual({ ...quiz, type: "predict" });
	});

	it("heals a doubly encoded literal", () => {
		const twice = JSON.stringify(JSON.stringify("predict"));
		expect(healEncodedArguments({ ...quiz, type: twice }, quizDisplayInputSchema)).toEqual({
			...quiz,
			type: "predict",
		});
	});

	it("heals an array sent as a JSON string", () => {
		expect(healEncodedArguments({ ...quiz, options: '["3","4"]' }, quizDisplayInputSchema)).toEqual(quiz);
		const ask = { question: "Pick", options: '[{"value":"a","label":"A"},{"value":"b","label":"B"}]' };
		expect(healEncodedArguments(ask, askInputSchema)).toEqual({
			question: "Pick",
			options: [
				{ value: "a", label: "A" },
				{ value: "b", label: "B" },
			],
		});
	});

	it("heals a nested object sent as a JSON string", () => {
		const assessment = { strands: [{ strand: "limits", assessment: "solid" }] };
		expect(healEncodedArguments({ assessment: JSON.stringify(assessment) }, probeDoneInputSchema)).toEqual({
			assessment,
		});
	});

	it("leaves what it cannot heal as it was", () => {
		const bad = { ...quiz, type: '"nonsense"' };
		expect(healEncodedArguments(bad, quizDisplayInputSchema)).toBe(bad);
		expect(healEncodedArguments("not json", quizDisplayInputSchema)).toBe("not json");
		expect(healEncodedArguments({ assessment: "a prose assessment" }, probeDoneInputSchema)).toEqual({
			assessment: "a prose assessment",
		});
		expect(healEncodedArguments(null, quizDisplayInputSchema)).toBeNull();
	});

	it("never rewrites a plain string field that is valid as it is", () => {
		const quoted = { ...quiz, question: '"Quoted" question?' };
		expect(healEncodedArguments(quoted, quizDisplayInputSchema)).toBe(quoted);
	});

	const validQuiz = fc.record(
		{
			question: fc.string(),
			options: fc.array(fc.string(), { maxLength: 5 }),
			correctAnswer: fc.string(),
			type: fc.constantFrom("predict", "check"),
			nodeId: fc.string(),
		},
		{ requiredKeys: ["question", "correctAnswer"] },
	);

	it("property: identity on valid input", () => {
		fc.assert(
			fc.property(validQuiz, (q) => {
				expect(Value.Check(teacherQuizInputSchema, q)).toBe(true);
				expect(healEncodedArguments(q, teacherQuizInputSchema)).toBe(q);
			}),
		);
	});

	it("property: idempotent on wobbly input", () => {
		const wobble = validQuiz.chain((q) =>
			fc.constantFrom<unknown>(
				q,
				JSON.stringify(q),
				{ ...q, type: JSON.stringify(q.type ?? "check") },
				{ ...q, options: JSON.stringify(q.options ?? []) },
				{ ...q, correctAnswer: 17 },
				{ ...q, type: "bogus" },
			),
		);
		fc.assert(
			fc.property(wobble, (input) => {
				const once = healEncodedArguments(input, teacherQuizInputSchema);
				expect(healEncodedArguments(once, teacherQuizInputSchema)).toEqual(once);
			}),
		);
	});
});
