import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	parseAskInput,
	parseExplainInput,
	parseProbeDoneInput,
	parseQuizInput,
	validateToolInput,
} from "../../src/core/tool-parts.ts";

const quiz = { question: "Which is prime?", options: ["16", "17"], correctAnswer: "17" };
const assessment = { strands: [{ strand: "fractions", assessment: "adds like denominators; stuck on unlike ones" }] };

describe("parseQuizInput", () => {
	it("converts correctAnswer 17 (a number) to the option '17', as the boundary does", () => {
		expect(parseQuizInput({ ...quiz, correctAnswer: 17 })?.correctAnswer).toBe("17");
	});
	it('heals type: "\\"predict\\"" to predict', () => {
		expect(parseQuizInput({ ...quiz, type: '"predict"' })?.type).toBe("predict");
	});
	it("drops the teacher's nodeId from the display shape", () => {
		const parsed = parseQuizInput({ ...quiz, nodeId: "primes" });
		expect(parsed).toBeDefined();
		expect(parsed).not.toHaveProperty("nodeId");
	});
	it("refuses a wrong quiz type", () => {
		expect(parseQuizInput({ ...quiz, type: "exam" })).toBeUndefined();
	});
	it("refuses what could never have been posed, quietly", () => {
		expect(parseQuizInput({ ...quiz, correctAnswer: "18" })).toBeUndefined();
		expect(parseQuizInput({ question: "x" })).toBeUndefined();
		expect(parseQuizInput("garbage")).toBeUndefined();
		expect(parseQuizInput(null)).toBeUndefined();
		expect(parseQuizInput([quiz])).toBeUndefined();
	});
	it("does not mutate the raw record", () => {
		const raw = { ...quiz, correctAnswer: 17 };
		parseQuizInput(raw);
		expect(raw.correctAnswer).toBe(17);
	});
});

describe("parseAskInput", () => {
	it("accepts a free-text ask and one with options", () => {
		expect(parseAskInput({ question: "Why?" })).toEqual({ question: "Why?" });
		expect(
			parseAskInput({
				question: "Which?",
				options: [
					{ value: "a", label: "A" },
					{ value: "b", label: "B" },
				],
			}),
		).toBeDefined();
	});
	it("refuses duplicate option values", () => {
		expect(
			parseAskInput({
				question: "Which?",
				options: [
					{ value: "a", label: "A" },
					{ value: "a", label: "B" },
				],
			}),
		).toBeUndefined();
	});
});

describe("parseExplainInput", () => {
	it("parses an explanation and drops nodeId", () => {
		const parsed = parseExplainInput({ body: "**Idea**", role: "concept", nodeId: "n1" });
		expect(parsed).toEqual({ body: "**Idea**", role: "concept" });
	});
	it("refuses a blank body and an unknown role", () => {
		expect(parseExplainInput({ body: "  " })).toBeUndefined();
		expect(parseExplainInput({ body: "x", role: "lecture" })).toBeUndefined();
	});
});

describe("parseProbeDoneInput", () => {
	it("parses a structured assessment", () => {
		expect(parseProbeDoneInput({ assessment })).toEqual({ assessment });
	});
	it("returns undefined, never throws, for an assessment sent as prose", () => {
		expect(parseProbeDoneInput({ assessment: "the learner knows fractions" })).toBeUndefined();
	});
	it("heals an assessment sent as a JSON string", () => {
		expect(parseProbeDoneInput({ assessment: JSON.stringify(assessment) })).toEqual({ assessment });
	});
	it("refuses an empty strand list", () => {
		expect(parseProbeDoneInput({ assessment: { strands: [] } })).toBeUndefined();
	});
});

describe("validateToolInput: the boundary", () => {
	it("accepts what display parses, with the same value", () => {
		const raw = { ...quiz, correctAnswer: 17, type: '"check"', nodeId: "primes" };
		const verdict = validateToolInput("teacherQuiz", raw);
		expect(verdict).toEqual({ ok: true, value: { ...quiz, type: "check", nodeId: "primes" } });
		expect(parseQuizInput(raw)).toEqual({ ...quiz, type: "check" });
	});
	it("explains a schema failure with the path", () => {
		const verdict = validateToolInput("teacherQuiz", { question: "x", options: "nope" });
		expect(verdict.ok).toBe(false);
		if (!verdict.ok) expect(verdict.error).toMatch(/Invalid arguments/);
	});
	it("explains a refinement failure in words the model can act on", () => {
		const verdict = validateToolInput("proberQuiz", { ...quiz, correctAnswer: "18" });
		expect(verdict).toEqual({ ok: false, error: expect.stringMatching(/not one of the options/) });
	});
	it("refuses non-object arguments", () => {
		expect(validateToolInput("ask", "[1,2]").ok).toBe(false);
		expect(validateToolInput("probeDone", 5).ok).toBe(false);
	});
	it("prober quiz strips an unknown nodeId but keeps a valid type", () => {
		const verdict = validateToolInput("proberQuiz", { ...quiz, nodeId: "x", type: "predict" });
		expect(verdict).toEqual({ ok: true, value: { ...quiz, type: "predict" } });
	});
});

describe("boundary = display (property)", () => {
	const text = fc.string({ maxLength: 12 });
	const quizArb = fc
		.record(
			{
				question: text,
				options: fc.array(text, { maxLength: 4 }),
				correctAnswer: fc.oneof(text, fc.integer({ min: 0, max: 20 })),
				type: fc.constantFrom("predict", "check", "quiz", '"predict"', '"check"'),
				nodeId: fc.oneof(text, fc.integer()),
				explanation: text,
			},
			{ requiredKeys: ["question", "correctAnswer"] },
		)
		.chain((q) =>
			fc.constantFrom<unknown>(
				q,
				JSON.stringify(q),
				{ ...q, options: JSON.stringify(q.options ?? []) },
				{ ...q, correctAnswer: q.options?.[0] ?? q.correctAnswer },
				{ ...q, correctAnswer: Number(q.options?.[1]) },
			),
		);

	it("every quiz the teacher's or prober's boundary accepts parses for display", () => {
		fc.assert(
			fc.property(quizArb, (raw) => {
				for (const kind of ["teacherQuiz", "proberQuiz"] as const) {
					if (validateToolInput(kind, raw).ok) expect(parseQuizInput(raw)).toBeDefined();
				}
			}),
			{ numRuns: 500 },
		);
	});

	it("every ask, explain and probe_done the boundary accepts parses for display", () => {
		const ask = fc.record(
			{ question: text, options: fc.array(fc.record({ value: text, label: text }), { maxLength: 3 }) },
			{ requiredKeys: ["question"] },
		);
		const explain = fc.record(
			{ body: text, title: text, role: fc.constantFrom("intro", "recap", '"recap"', "lecture"), nodeId: text },
			{ requiredKeys: ["body"] },
		);
		const probe = fc.record({
			assessment: fc.oneof(
				text,
				fc.record({ strands: fc.array(fc.record({ strand: text, assessment: text }), { maxLength: 2 }) }),
			),
		});
		fc.assert(
			fc.property(ask, explain, probe, (a, e, p) => {
				if (validateToolInput("ask", a).ok) expect(parseAskInput(a)).toBeDefined();
				if (validateToolInput("explain", e).ok) expect(parseExplainInput(e)).toBeDefined();
				if (validateToolInput("probeDone", p).ok) expect(parseProbeDoneInput(p)).toBeDefined();
				const encoded = JSON.stringify(p);
				if (validateToolInput("probeDone", encoded).ok) expect(parseProbeDoneInput(encoded)).toBeDefined();
			}),
			{ numRuns: 500 },
		);
	});

	it("the generators reach accepted inputs (so the properties above are not vacuous)", () => {
		const accepted = fc.sample(quizArb, 500).filter((raw) => validateToolInput("teacherQuiz", raw).ok);
		expect(accepted.length).toBeGreaterThan(10);
	});
});
