/**
 * Every core parser that sees model text is bounded: adversarial inputs
 * (long runs of spaces and dashes, nested brackets, 100 KB strings, JSON
 * nested 10,000 deep) each finish well within a time bound and answer with a
 * verdict or a refusal, never a throw. The bound is generous (noisy machines);
 * the backtracking edge pattern this replaces took seconds.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { healEncodedArguments } from "../../src/core/argument-heal.ts";
import { ARGUMENT_SHAPE_LIMITS, INPUT_LIMITS } from "../../src/core/input-limits.ts";
import { MAX_PLAN_SOURCE_CHARS, parsePlanMermaid } from "../../src/core/plan-mermaid.ts";
import { quizDisplayInputSchema } from "../../src/core/question-core.ts";
import {
	parseAskInput,
	parseExplainInput,
	parseProbeDoneInput,
	parseQuizInput,
	type ToolInputKind,
	validateToolInput,
} from "../../src/core/tool-parts.ts";
import { timed } from "../fixtures/time-bound.ts";

const SEED = 20_250_611;

/** Runs of what trips regex engines and recursive parsers, up to 100 KB. */
const fragment = fc.constantFrom(
	" ",
	"-",
	"--",
	"-- ",
	"-->",
	"[",
	"[[",
	"(",
	"{",
	"]",
	'"',
	"|",
	"&",
	";",
	"%%",
	"\t",
	"a",
	"\n",
);
const adversarial = fc
	.tuple(fc.array(fragment, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 100_000 }), fc.string())
	.map(([parts, length, tail]) => {
		const unit = parts.join("");
		return unit.repeat(Math.ceil(length / unit.length)).slice(0, length) + tail;
	});

const nested = (depth: number, open: string, close: string, inner = ""): string =>
	open.repeat(depth) + inner + close.repeat(depth);
const deepJson = [
	nested(10_000, "[", "]"),
	nested(10_000, '{"a":', "}", "1"),
	`{"question":"q","correctAnswer":"a","options":${nested(10_000, "[", "]")}}`,
	`{"assessment":{"strands":${nested(10_000, "[", "]")}}}`,
];

describe("plan mermaid parser: bounded", () => {
	it("parses the old cubic input (`a -- ` and thousands of spaces) at once", () => {
		for (const tail of ["x", "-", "-- x", "|"]) {
			const result = timed(() => parsePlanMermaid(`graph TD\na -- ${" ".repeat(8_000)}${tail}`));
			expect(result.ok).toBe(false);
		}
		// The labelled edge it had to read still reads.
		expect(timed(() => parsePlanMermaid(`graph TD\na -- ${" ".repeat(8_000)}text -->  b`)).ok).toBe(true);
	});

	it("refuses an over-long source before reading it, naming the limit", () => {
		const result = timed(() => parsePlanMermaid(`graph TD\n${"a --> b\n".repeat(10_000)}`));
		expect(result).toEqual({ ok: false, error: expect.stringContaining(`under ${MAX_PLAN_SOURCE_CHARS}`) });
	});

	it("property: any adversarial line answers a verdict in time, with an error quoting at most a short excerpt", () => {
		fc.assert(
			fc.property(adversarial, fc.constantFrom("", "graph TD\n", "graph TD\na "), (body, head) => {
				const result = timed(() => parsePlanMermaid(head + body));
				if (!result.ok) expect(result.error.length).toBeLessThan(1_000);
			}),
			{ seed: SEED, numRuns: 60 },
		);
	});
});

describe("argument heal and the parse seam: bounded, never a RangeError", () => {
	const kinds: ToolInputKind[] = ["proberQuiz", "teacherQuiz", "ask", "explain", "probeDone"];
	const parsers = [parseQuizInput, parseAskInput, parseExplainInput, parseProbeDoneInput];

	it("refuses JSON nested 10,000 deep with a clear message", () => {
		for (const json of deepJson) {
			const whole = JSON.parse(json) as unknown;
			for (const input of [json, whole, { question: json, correctAnswer: "a", options: json }]) {
				expect(() => timed(() => healEncodedArguments(input, quizDisplayInputSchema))).not.toThrow();
				for (const parse of parsers) expect(timed(() => parse(input))).toBeUndefined();
				for (const kind of kinds) {
					const verdict = timed(() => validateToolInput(kind, input));
					expect(verdict.ok).toBe(false);
					if (!verdict.ok) expect(verdict.error).not.toMatch(/call stack/);
				}
			}
		}
		const verdict = validateToolInput("teacherQuiz", JSON.parse(deepJson[2]!));
		expect(verdict).toEqual({
			ok: false,
			error: expect.stringContaining(`deeper than ${ARGUMENT_SHAPE_LIMITS.maxDepth}`),
		});
	});

	it("refuses too many values, and over-long fields naming the field and the limit", () => {
		const many = { question: "q", correctAnswer: "a", options: Array.from({ length: 200_000 }, (_, i) => `o${i}`) };
		expect(timed(() => validateToolInput("teacherQuiz", many))).toEqual({
			ok: false,
			error: expect.stringContaining(`more than ${ARGUMENT_SHAPE_LIMITS.maxValues} values`),
		});
		const long = timed(() => validateToolInput("teacherQuiz", { question: "q".repeat(100_000), correctAnswer: "a" }));
		expect(long).toEqual({
			ok: false,
			error: expect.stringMatching(new RegExp(`/question: .*${INPUT_LIMITS.questionMaxChars} characters`)),
		});
		const options = Array.from({ length: INPUT_LIMITS.maxOptions + 1 }, (_, i) => `o${i}`);
		expect(validateToolInput("ask", { question: "q", options: options.map((o) => ({ value: o, label: o })) })).toEqual({
			ok: false,
			error: expect.stringMatching(new RegExp(`/options: .*${INPUT_LIMITS.maxOptions} items`)),
		});
		const strands = Array.from({ length: INPUT_LIMITS.maxStrands + 1 }, () => ({ strand: "s", assessment: "a" }));
		expect(validateToolInput("probeDone", { assessment: { strands } })).toEqual({
			ok: false,
			error: expect.stringMatching(new RegExp(`/assessment/strands: .*${INPUT_LIMITS.maxStrands} items`)),
		});
	});

	it("property: adversarial strings in every field, or as the whole argument, answer in time without throwing", () => {
		const field = fc.oneof(adversarial, fc.constantFrom(...deepJson));
		const input = fc.oneof(
			field,
			fc.record({ question: field, correctAnswer: field, options: fc.oneof(field, fc.array(field, { maxLength: 3 })) }),
			fc.record({ body: field, title: field }),
			fc.record({ assessment: fc.oneof(field, fc.record({ strands: field, summary: field })) }),
		);
		fc.assert(
			fc.property(input, fc.constantFrom(...kinds), (value, kind) => {
				const verdict = timed(() => validateToolInput(kind, value));
				expect(typeof verdict.ok).toBe("boolean");
				for (const parse of parsers) timed(() => parse(value));
			}),
			{ seed: SEED, numRuns: 40 },
		);
	});
});
