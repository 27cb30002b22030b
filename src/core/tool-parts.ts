/**
 * The parse seam: parse, don't cast.
 *
 * Model-authored tool INPUT reaches three consumers: the boundary (the AI SDK
 * validates a call before the tool runs), the live UI, and the transcript,
 * which keeps the RAW input of every call, rejected ones too (transcript
 * honesty; every call is followed by a result). So invalid input is always
 * observable, and a consumer that CASTS it (`part.input as QuizToolInput`)
 * trusts a compile-time lie; a model once sent the assessment as a string
 * and a card died on `.strands.map`.
 *
 * THE RULE: model-authored input is consumed only through these parsers,
 * each running the SAME schema the model faced and the same chain as the
 * boundary: heal → clone → Convert → Check → Clean → refinement. So what the
 * boundary accepted (`correctAnswer: 17` converted to "17", `type:
 * "\"predict\""` healed) parses for display too. Our own outputs (tool acks,
 * the learner's graded answer) stay trusted. A parse failure is `undefined`
 * (the UI shows a quiet fallback), never a throw.
 */

import type { TSchema } from "typebox";
import { Value } from "typebox/value";
import { healEncodedArguments } from "./argument-heal.ts";
import { type ProbeDoneInput, probeDoneInputSchema } from "./contracts/probe.ts";
import { argumentShapeProblem } from "./input-limits.ts";
import {
	type AskToolInput,
	askInputProblems,
	askInputSchema,
	type ExplainToolInput,
	explainDisplayInputSchema,
	explainInputProblems,
	proberQuizInputSchema,
	type QuizToolInput,
	quizDisplayInputSchema,
	quizInputProblems,
	teacherExplainInputSchema,
	teacherQuizInputSchema,
} from "./question-core.ts";

/** A parser for DISPLAY: the boundary's own chain (validateWithSchema) over `schema`, undefined where it refuses. */
function forDisplay<T>(schema: TSchema, refine?: (value: T) => string[]): (input: unknown) => T | undefined {
	return (input) => {
		const verdict = validateWithSchema<T>(schema, input, refine);
		return verdict.ok ? verdict.value : undefined;
	};
}

/** Quiz for DISPLAY: the lenient common core of both boundaries; the teacher's nodeId is cleaned away
 *  (plan statuses read it from the raw call). */
export const parseQuizInput = forDisplay<QuizToolInput>(quizDisplayInputSchema, quizInputProblems);

/** Ask for DISPLAY: options optional (free text without), option sanity enforced. */
export const parseAskInput = forDisplay<AskToolInput>(askInputSchema, askInputProblems);

/** Explain for DISPLAY (nodeId cleaned away). */
export const parseExplainInput = forDisplay<ExplainToolInput>(explainDisplayInputSchema, explainInputProblems);

/** probe_done for DISPLAY: the schema the tool itself declares. */
export const parseProbeDoneInput = forDisplay<ProbeDoneInput>(probeDoneInputSchema);

/** The model-facing tools whose input the boundary validates. */
export type ToolInputKind = "proberQuiz" | "teacherQuiz" | "ask" | "explain" | "probeDone";

const boundarySchemas: Record<ToolInputKind, TSchema> = {
	proberQuiz: proberQuizInputSchema,
	teacherQuiz: teacherQuizInputSchema,
	ask: askInputSchema,
	explain: teacherExplainInputSchema,
	probeDone: probeDoneInputSchema,
};

const refinements: Record<ToolInputKind, (value: never) => string[]> = {
	proberQuiz: quizInputProblems,
	teacherQuiz: quizInputProblems,
	ask: askInputProblems,
	explain: explainInputProblems,
	probeDone: () => [],
};

/** The boundary's schema for a tool kind (what the model is shown). */
export function boundarySchema(kind: ToolInputKind): TSchema {
	return boundarySchemas[kind];
}

/** A boundary verdict: the cleaned value, or an error the model can act on. */
export type ToolInputVerdict<T = unknown> = { ok: true; value: T } | { ok: false; error: string };

const MAX_REPORTED_ERRORS = 5;

/** The boundary chain for any schema: heal → clone → Convert → Check → Clean → refinement, with a readable error. */
export function validateWithSchema<T = unknown>(
	schema: TSchema,
	input: unknown,
	refine: (value: T) => string[] = () => [],
): ToolInputVerdict<T> {
	const healed = healEncodedArguments(input, schema); // leaves an over-large value as it is, refused below
	if (typeof healed !== "object" || healed === null || Array.isArray(healed))
		return { ok: false, error: "The arguments must be a JSON object with the fields the tool describes." };
	// Before the clone (it recurses, and would throw RangeError on a depth-10,000 value) and before Check
	// (whose error list grows with the input).
	const shape = argumentShapeProblem(healed);
	if (shape !== undefined) return { ok: false, error: shape };
	const converted = structuredClone(healed);
	Value.Convert(schema, converted);
	if (!Value.Check(schema, converted)) {
		const problems = [...Value.Errors(schema, converted)]
			.slice(0, MAX_REPORTED_ERRORS)
			.map((e) => `${e.instancePath || "(root)"}: ${e.message}`);
		return { ok: false, error: `Invalid arguments: ${problems.join("; ")}.` };
	}
	const cleaned = Value.Clean(schema, converted) as T;
	const problems = refine(cleaned);
	if (problems.length > 0) return { ok: false, error: problems.join(" ") };
	return { ok: true, value: cleaned };
}

/** The boundary chain of a model-facing tool kind (its schema and its refinement). */
export function validateToolInput<T = unknown>(kind: ToolInputKind, input: unknown): ToolInputVerdict<T> {
	return validateWithSchema<T>(boundarySchemas[kind], input, refinements[kind] as (value: T) => string[]);
}
