/**
 * The hint side call: one bounded request to the teacher's model for a hint
 * on an open quiz, told not to give the answer away. It is not a turn: no
 * tools, nothing added to the transcript but the hint our code keeps (and
 * checks: core/struggle.ts safeHint). Counted and capped like a turn's step
 * (reserved before, reported after). Never throws: a failed or empty call, or
 * one the budget refuses, gives the generic hint.
 */

import { streamText } from "ai";
import type { Participant } from "../../core/contracts/events.ts";
import { HINT_REQUEST_MARKER } from "../../core/contracts/side-calls.ts";
import type { QuizToolInput } from "../../core/question-core.ts";
import { GENERIC_HINT, MAX_HINT_CHARS, type QuizAttempt, safeHint } from "../../core/struggle.ts";
import { reportUsage, reserveUsage } from "./budget.ts";
import type { EngineContext } from "./context.ts";
import { estimateInputTokens } from "./token-estimate.ts";

const NO_USAGE = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };

/** Longest the hint call may take. */
export const HINT_TIMEOUT_MS = 30_000;

const HINT_SYSTEM = [
	HINT_REQUEST_MARKER,
	"You are a patient tutor. Give ONE short hint (one or two sentences) for the question below.",
	"Do NOT give the answer, do not name or quote the correct option, and do not rule out all but one option.",
	"Point the learner at the idea they need, or at the step where their tries went wrong, so they can find it themselves.",
].join("\n");

/** The user message of the hint call: the question, its options, the learner's tries and the hints given. */
export function hintPrompt(quiz: QuizToolInput, attempts: readonly QuizAttempt[], hints: readonly string[]): string {
	const lines = [`Question: ${quiz.question}`];
	if (quiz.options && quiz.options.length > 0)
		lines.push("Options:", ...quiz.options.map((o, i) => `${String.fromCharCode(65 + (i % 26))}. ${o}`));
	lines.push(`Correct answer (never say it): ${quiz.correctAnswer}`);
	if (attempts.length > 0) lines.push(`The learner tried: ${attempts.map((a) => a.answer).join("; ")}`);
	if (hints.length > 0) lines.push(`Hints given already (give a new one): ${hints.join(" | ")}`);
	return lines.join("\n");
}

/** The most tokens a hint may hold (also what a hint reserves against cost caps beyond its input). */
export const HINT_MAX_OUTPUT_TOKENS = 200;

/** A hint for the learner, its tokens, and the budget's refusal when the model was not asked (cost caps). */
export interface HintReply {
	text: string;
	inputTokens: number;
	outputTokens: number;
	/** The budget notice when the hint's reservation was refused (the text is then GENERIC_HINT). */
	overBudget?: string;
}

/** Ask the teacher's model for a hint, charged to `by`; the checked hint (GENERIC_HINT on failure or over budget) and its tokens. */
export async function askForHint(
	ctx: EngineContext,
	quiz: QuizToolInput,
	attempts: readonly QuizAttempt[],
	hints: readonly string[],
	sessionId: string,
	by: Participant,
): Promise<HintReply> {
	const model = ctx.models.teacher;
	const prompt = hintPrompt(quiz, attempts, hints);
	const reserved = await reserveUsage(ctx, sessionId, by, "hint", model, {
		inputTokens: estimateInputTokens({ system: HINT_SYSTEM, prompt }),
		outputTokens: HINT_MAX_OUTPUT_TOKENS,
	});
	if (!reserved.ok) return { text: GENERIC_HINT, inputTokens: 0, outputTokens: 0, overBudget: reserved.message };
	const reservation = reserved.reservation;
	try {
		const result = streamText({
			model,
			system: HINT_SYSTEM,
			prompt,
			maxOutputTokens: HINT_MAX_OUTPUT_TOKENS,
			maxRetries: Math.min(ctx.maxRetries, 1),
			abortSignal: AbortSignal.any([ctx.signal, AbortSignal.timeout(HINT_TIMEOUT_MS)]),
			onError: () => undefined, // the awaited text below rejects too: handled there
		});
		const text = (await result.text).slice(0, MAX_HINT_CHARS * 2);
		const usage = await Promise.resolve(result.usage).catch(() => undefined);
		const spent = {
			inputTokens: usage?.inputTokens ?? 0,
			outputTokens: usage?.outputTokens ?? 0,
			cachedInputTokens: usage?.inputTokenDetails?.cacheReadTokens ?? 0,
		};
		await reportUsage(ctx, sessionId, by, "hint", model, spent, reservation);
		return {
			text: safeHint(text, quiz),
			inputTokens: spent.inputTokens,
			outputTokens: spent.outputTokens,
		};
	} catch (error) {
		ctx.logger.warn({ err: error, sessionId }, "the hint request failed; a generic hint is shown");
		// Its usage is unknown: the reservation is given back.
		await reportUsage(ctx, sessionId, by, "hint", model, NO_USAGE, reservation);
		return { text: GENERIC_HINT, inputTokens: 0, outputTokens: 0 };
	}
}
