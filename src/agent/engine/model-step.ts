/**
 * One model step: a single streamText request (the SDK retries the request
 * with exponential backoff), consumed to the end. Tools carry no execute, so
 * the SDK only parses and validates calls; the engine settles them.
 */

import { APICallError, type LanguageModel, type ModelMessage, RetryError, stepCountIs, streamText } from "ai";
import type { LessonAgent } from "./agents.ts";

/** A piece of the step's output, in the order the model produced it. */
export type StepContent =
	| { type: "text"; text: string }
	/** Kept for the replay (some providers need a call's reasoning item next to it); never shown. */
	| { type: "reasoning"; id: string; text: string; providerMetadata?: Record<string, Record<string, unknown>> }
	| {
			type: "tool-call";
			toolCallId: string;
			toolName: string;
			/** The parsed (healed) input, or the raw text when it was not JSON. */
			input: unknown;
			/** Set when the SDK refused the call (unknown tool, bad JSON, boundary failure). */
			invalid: boolean;
			providerMetadata?: Record<string, Record<string, unknown>>;
	  };

/** Token usage of one step. */
export interface StepUsage {
	inputTokens: number;
	outputTokens: number;
	cachedInputTokens: number;
}

/** A step's verdict: its content, or the model failure (after retries). */
export type StepOutcome =
	| { ok: true; content: StepContent[]; usage: StepUsage; finishReason: string }
	| { ok: false; code: string; message: string };

/** What a step needs. */
export interface ModelStepRequest {
	model: LanguageModel;
	agent: LessonAgent;
	messages: ModelMessage[];
	maxRetries: number;
	abortSignal?: AbortSignal;
}

const meta = (providerMetadata: Record<string, Record<string, unknown>> | undefined) =>
	providerMetadata ? { providerMetadata } : {};

/** Run one model step and collect its output; never throws. */
export async function runModelStep(request: ModelStepRequest): Promise<StepOutcome> {
	const content: StepContent[] = [];
	const usage: StepUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
	let finishReason = "unknown";
	let failure: unknown;
	let sawFailure = false;
	try {
		const result = streamText({
			model: request.model,
			system: request.agent.system,
			tools: request.agent.toolSet,
			// The SDK zod-validates `messages` on every call (~20 ms at 200 transcript messages, far above
			// our whole budget). Ours come from convertToModelMessages over our own transcript, valid by
			// construction, so the full history goes in through prepareStep (not re-validated; the SDK
			// still checks every tool call has a result) and only the last message is validated.
			messages: request.messages.slice(-1),
			prepareStep: () => ({ messages: request.messages }),
			maxRetries: request.maxRetries,
			abortSignal: request.abortSignal,
			stopWhen: stepCountIs(1),
			// Errors arrive as `error` parts below; the default handler would print them.
			onError: () => {},
		});
		for await (const part of result.fullStream) {
			switch (part.type) {
				case "text-delta": {
					const last = content.at(-1);
					if (last?.type === "text") last.text += part.text;
					else content.push({ type: "text", text: part.text });
					break;
				}
				case "reasoning-start":
					content.push({ type: "reasoning", id: part.id, text: "", ...meta(part.providerMetadata) });
					break;
				case "reasoning-delta":
				case "reasoning-end": {
					const item = content.find((c) => c.type === "reasoning" && c.id === part.id);
					if (item?.type !== "reasoning") break;
					if (part.type === "reasoning-delta") item.text += part.text;
					if (part.providerMetadata) item.providerMetadata = { ...item.providerMetadata, ...part.providerMetadata };
					break;
				}
				case "tool-call":
					content.push({
						type: "tool-call",
						toolCallId: part.toolCallId,
						toolName: part.toolName,
						input: part.input,
						invalid: part.invalid === true,
						...meta(part.providerMetadata),
					});
					break;
				case "finish-step":
					finishReason = part.finishReason;
					usage.inputTokens += part.usage.inputTokens ?? 0;
					usage.outputTokens += part.usage.outputTokens ?? 0;
					usage.cachedInputTokens += part.usage.inputTokenDetails?.cacheReadTokens ?? 0;
					break;
				case "error":
					sawFailure = true;
					failure = part.error;
					break;
				case "abort":
					sawFailure = true;
					failure = new Error("The model request was aborted.");
					break;
				default:
					break;
			}
		}
	} catch (error) {
		sawFailure = true;
		failure = error;
	}
	if (sawFailure) return { ok: false, ...describeModelError(failure, request.maxRetries) };
	return { ok: true, content, usage, finishReason };
}

/** An error code and a message a learner can read, from whatever the provider threw. */
export function describeModelError(error: unknown, maxRetries: number): { code: string; message: string } {
	const last = RetryError.isInstance(error) ? error.lastError : error;
	const attempts = RetryError.isInstance(error) ? error.errors.length : 1;
	const tries = attempts > 1 ? ` after ${attempts} attempts` : maxRetries > 0 ? "" : "";
	if (APICallError.isInstance(last)) {
		const status = last.statusCode;
		if (status === 429)
			return {
				code: "rate-limited",
				message: `The model is rate-limited (HTTP 429${tries}). Send a message to try again.`,
			};
		if (status === 401 || status === 403)
			return { code: "model-auth", message: `The model refused the API key (HTTP ${status}). Check OPENAI_API_KEY.` };
		return {
			code: "model-unavailable",
			message: `The model did not answer (${status ? `HTTP ${status}` : "no connection"}${tries}). Send a message to try again.`,
		};
	}
	const text = last instanceof Error ? last.message : String(last);
	return { code: "model-error", message: `The model failed: ${text.slice(0, 300)}. Send a message to try again.` };
}
