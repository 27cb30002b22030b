/**
 * The grading call: one short structured-output request (AI SDK `generateText`
 * with `output: Output.object`) asking the grader model whether a typed answer
 * the deterministic judge left undecided gives the expected answer. Bounded by
 * a deadline; anything but a well-formed verdict (bad JSON, the wrong shape, a
 * model error, the deadline) is a failure the caller turns into "the teacher
 * will judge". Never throws.
 */

import type { LanguageModelV3 } from "@ai-sdk/provider";
import { generateText, Output } from "ai";
import { z } from "zod";
import { LANGUAGE_NAMES, type Locale } from "../../core/i18n/index.ts";
import type { QuizToolInput } from "../../core/question-core.ts";
import { languageInstruction } from "../prompts/context.ts";
import { GRADER_PROMPT } from "../prompts/index.ts";

/** The structured output's name: it tells a model (the demo) that a request is a grading request. */
export const GRADE_OUTPUT_NAME = "learnharness_grade";
/** The most tokens a verdict may hold (also what a grading reserves against cost caps beyond its input). */
export const GRADE_MAX_OUTPUT_TOKENS = 200;
/** Longest reason kept (one line for the teacher and the card). */
export const MAX_REASON_CHARS = 200;

/**
 * The verdict the grader must send. No length keywords: OpenAI's strict structured outputs (the default of
 * `@ai-sdk/openai`) refuse `minLength`/`maxLength`; the reason is bounded after it arrives (oneLine, and an
 * empty one is no verdict).
 */
export const gradeSchema = z.object({
	verdict: z.enum(["correct", "incorrect", "unsure"]),
	reason: z.string(),
});

/** What the grader sees: the question and the learner's words (as JSON in the user message). */
export interface GradeRequest {
	question: string;
	expected: string;
	accepted?: string[];
	options?: string[];
	explanation?: string;
	answer: string;
}

/** The grader's verdict, or why there is none. */
export type GradeOutcome =
	| {
			ok: true;
			verdict: "correct" | "incorrect" | "unsure";
			reason: string;
			usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
	  }
	| { ok: false; problem: string };

/** The grading request of a quiz and a typed answer. */
export function gradeRequest(quiz: QuizToolInput, answer: string): GradeRequest {
	return {
		question: quiz.question,
		expected: quiz.correctAnswer,
		...(quiz.acceptedAnswers && quiz.acceptedAnswers.length > 0 ? { accepted: [...quiz.acceptedAnswers] } : {}),
		...(quiz.options ? { options: [...quiz.options] } : {}),
		...(quiz.explanation ? { explanation: quiz.explanation } : {}),
		answer,
	};
}

/** One line: whitespace collapsed, bounded. */
export function oneLine(text: string): string {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length <= MAX_REASON_CHARS ? line : `${line.slice(0, MAX_REASON_CHARS - 1)}…`;
}

/** Options of gradeAnswer. */
export interface GradeOptions {
	/** The whole call (retries included) ends by this many milliseconds. */
	deadlineMs: number;
	/** The tutor's close signal. */
	signal: AbortSignal;
	maxRetries: number;
	/** The lesson's language: its reason is written in it (English: the prompt as it is). */
	language?: Locale;
}

/** The grader's system prompt for a lesson in `language` (the reason is shown to the learner). */
function graderSystem(language: Locale | undefined): string {
	const line = language !== undefined ? languageInstruction(language) : undefined;
	if (!line || !language) return GRADER_PROMPT;
	return `${GRADER_PROMPT}\n\nWrite the reason in ${LANGUAGE_NAMES[language].english}.`;
}

/** What a grading request is made of (its system, prompt and output schema), for estimating its cost. */
export function gradeRequestText(request: GradeRequest, language?: Locale): unknown {
	return { system: graderSystem(language), prompt: JSON.stringify(request), schema: z.toJSONSchema(gradeSchema) };
}

/** Ask the grader; never throws (a failure is `{ ok: false }`). */
export async function gradeAnswer(
	model: LanguageModelV3,
	request: GradeRequest,
	options: GradeOptions,
): Promise<GradeOutcome> {
	try {
		const result = await generateText({
			model,
			system: graderSystem(options.language),
			prompt: JSON.stringify(request),
			output: Output.object({
				schema: gradeSchema,
				name: GRADE_OUTPUT_NAME,
				description: "The verdict on a learner's typed answer and one short line why.",
			}),
			temperature: 0,
			maxOutputTokens: GRADE_MAX_OUTPUT_TOKENS,
			maxRetries: options.maxRetries,
			// The SDK's own deadline (retries included) and the tutor's close signal.
			timeout: { totalMs: options.deadlineMs },
			abortSignal: options.signal,
		});
		const parsed = gradeSchema.safeParse(result.output);
		if (!parsed.success) return { ok: false, problem: "the verdict has the wrong shape" };
		const reason = oneLine(parsed.data.reason);
		if (reason === "") return { ok: false, problem: "the verdict has no reason" };
		const usage = result.usage;
		return {
			ok: true,
			verdict: parsed.data.verdict,
			reason,
			usage: {
				inputTokens: usage.inputTokens ?? 0,
				outputTokens: usage.outputTokens ?? 0,
				cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens ?? 0,
			},
		};
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		return { ok: false, problem: message.slice(0, 300) };
	}
}
