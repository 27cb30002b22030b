/**
 * The grading call: one short structured-output request (AI SDK `generateText`
 * with `output: Output.object`) asking the grader model whether a typed answer
 * the deterministic judge left undecided gives the expected answer. Bounded by
 * a deadline; anything but a well-formed verdict (bad JSON, the wrong shape, a
 * model error, the deadline) is a failure the caller turns into "the teacher
 * will judge". Never throws. The verdict is bounded by code (boundVerdict):
 * it never calls an answer that instructs the judge correct, and its reason
 * is dropped when it would give the answer away on a card that does not
 * show it.
 */

import type { LanguageModelV3 } from "@ai-sdk/provider";
import { generateText, jsonSchema, Output, zodSchema } from "ai";
import { z } from "zod";
import { leaksAnswer } from "../core/answer-leaks.ts";
import { instructsJudge } from "../core/answer-match.ts";
import { GRADE_OUTPUT_NAME } from "../core/contracts/side-calls.ts";
import type { QuizToolInput } from "../core/question-core.ts";
import { LANGUAGE_NAMES, type Locale } from "../i18n/index.ts";
import { languageInstruction } from "./prompts/context.ts";
import { GRADER_PROMPT } from "./prompts/index.ts";

/** The most tokens a verdict may hold (also what a grading reserves against cost caps beyond its input). */
export const GRADE_MAX_OUTPUT_TOKENS = 200;
/** Longest reason kept (one line for the teacher and the card). */
export const MAX_REASON_CHARS = 200;
/** Longest reason accepted from the model (then cut to MAX_REASON_CHARS); a longer one is the wrong shape. */
export const MAX_RAW_REASON_CHARS = 1000;

/**
 * The verdict the grader must send. No length keywords: OpenAI's strict structured outputs (the default of
 * `@ai-sdk/openai`) refuse `minLength`/`maxLength`; the reason is bounded after it arrives (parseGrade: at most
 * MAX_RAW_REASON_CHARS, then one line; an empty one is no verdict).
 */
export const gradeSchema = z.object({
	verdict: z.enum(["correct", "incorrect", "unsure"]),
	reason: z.string(),
	/** Whether the words try to answer at all (a line typed in the thread may be a question of the learner's own). */
	intent: z.enum(["answer", "question", "other"]),
});

/** What the words are, as the grader read them. */
export type GradeIntent = z.infer<typeof gradeSchema>["intent"];

/** The verdict as read back: a grader that leaves the intent out (an older prompt, a small model) means an answer. */
const readSchema = gradeSchema.extend({ intent: gradeSchema.shape.intent.optional() });

/**
 * What the request sends: the strict schema (every field required, as OpenAI's strict structured outputs
 * demand), checked on the way back by the lenient one.
 */
const sentSchema = jsonSchema<z.infer<typeof readSchema>>(() => zodSchema(gradeSchema).jsonSchema, {
	validate: (value) => {
		const parsed = readSchema.safeParse(value);
		return parsed.success ? { success: true, value: parsed.data } : { success: false, error: parsed.error };
	},
});

/** A grader's verdict as code takes it. */
export type GradeVerdict = "correct" | "incorrect" | "unsure";

/** The parsed verdict: the schema, then the reason on one line and cut; undefined when it is not one. */
export function parseGrade(
	output: unknown,
): { verdict: GradeVerdict; reason: string; intent: GradeIntent } | undefined {
	const parsed = readSchema.safeParse(output);
	// The bound the schema cannot say (strict structured outputs refuse length keywords).
	if (!parsed.success || parsed.data.reason.length > MAX_RAW_REASON_CHARS) return undefined;
	const reason = oneLine(parsed.data.reason);
	return reason === "" ? undefined : { verdict: parsed.data.verdict, reason, intent: parsed.data.intent ?? "answer" };
}

/**
 * The grader's verdict within what code allows: an answer that instructs the judge ("mark this correct")
 * is never correct (unsure: the teacher reads it); a reason that gives the answer away (core/answer-leaks.ts,
 * the hint filter's check) is dropped unless the card shows the answer anyway (a correct verdict, a prediction).
 */
export function boundVerdict(
	quiz: QuizToolInput,
	answer: string,
	graded: { verdict: GradeVerdict; reason: string },
): { verdict: GradeVerdict; reason?: string } {
	const candidates = [quiz.correctAnswer, ...(quiz.acceptedAnswers ?? []), ...(quiz.options ?? [])];
	const verdict = graded.verdict === "correct" && instructsJudge(answer, candidates) ? "unsure" : graded.verdict;
	const shown = verdict === "correct" || quiz.type === "predict";
	return shown || !leaksAnswer(graded.reason, quiz) ? { verdict, reason: graded.reason } : { verdict };
}

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
			intent: GradeIntent;
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
				schema: sentSchema,
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
		const parsed = parseGrade(result.output);
		if (!parsed) return { ok: false, problem: "the verdict has the wrong shape" };
		const usage = result.usage;
		return {
			ok: true,
			verdict: parsed.verdict,
			reason: parsed.reason,
			intent: parsed.intent,
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
