/**
 * One model step: a single streamed request to the LanguageModelV3 (`doStream`, the public
 * provider specification of `@ai-sdk/provider`), read to the end. Tools carry no execute: the
 * step only parses and validates calls (model-tools.ts); the engine settles them.
 *
 * Not built on `streamText`: its streaming pipeline (TransformStreams, telemetry, zod
 * re-validation of the prompt) costs 3 ms a call at 20 messages and 25 ms at 200 (`npm run
 * bench:engine` prints both), more than the rest of a turn, and the engine uses none of it (it
 * settles a whole step at once). The request is built by model-prompt.ts, equal to what
 * streamText sends (the model-step test compares them byte for byte). What streamText gave
 * besides, this file does: retries with exponential backoff honouring `retry-after`
 * (model-retry.ts), a no-progress timeout and a total deadline per attempt, cancellation when
 * the tutor closes, and (opt-in) an OpenTelemetry span per step (telemetry.ts).
 */

import type {
	LanguageModelV3,
	LanguageModelV3CallOptions,
	LanguageModelV3FunctionTool,
	LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import type { LanguageModel, ModelMessage } from "ai";
import type { Locale } from "../../i18n/index.ts";
import type { LessonAgent } from "./agents.ts";
import { toFunctionTools, toLanguageModelPrompt } from "./model-prompt.ts";
import { ClosedError, describeModelError, ModelTimeoutError, retryable, retryDelay, sleep } from "./model-retry.ts";
import { meta, type ParsedToolCall, parseToolCall } from "./model-tools.ts";
import { startStepSpan } from "./telemetry.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS, estimateInputTokens } from "./token-estimate.ts";

/** A piece of the step's output, in the order the model produced it. */
export type StepContent =
	| { type: "text"; text: string }
	/** Kept for the replay (some providers need a call's reasoning item next to it); never shown. */
	| { type: "reasoning"; id: string; text: string; providerMetadata?: Record<string, Record<string, unknown>> }
	| ParsedToolCall;

/** Token usage of one step. */
export interface StepUsage {
	inputTokens: number;
	outputTokens: number;
	cachedInputTokens: number;
}

/** A step's verdict: its content, or the model failure (after retries). */
export type StepOutcome =
	| { ok: true; content: StepContent[]; usage: StepUsage; finishReason: string }
	/** `error`: what the provider threw last (the turn reads it: a refused picture is retried without it). */
	| { ok: false; code: string; message: string; error?: unknown };

/** What a step needs. */
export interface ModelStepRequest {
	/** The lesson's language: a failure's message is written in it (default English). */
	locale?: Locale;
	model: LanguageModelV3;
	agent: LessonAgent;
	messages: ModelMessage[];
	/** Retries after the first attempt (429, 5xx, connection errors, timeouts). */
	maxRetries: number;
	/** First backoff delay; doubles per retry (a `retry-after` header under 60 s wins). */
	retryDelayMs: number;
	/** Give up on an attempt that makes no progress (no response, no stream part) for this long. */
	timeoutMs: number;
	/** Give up on an attempt that has not finished this long after it started, progress or not (default: none). */
	totalTimeoutMs?: number;
	/** Record an OpenTelemetry span per step (default off: no span, no call into OpenTelemetry). */
	telemetry?: boolean;
	abortSignal?: AbortSignal;
	/** The most tokens the reply may hold (the provider's maxOutputTokens; unset: the provider's default). */
	maxOutputTokens?: number;
	/**
	 * Cost caps: called once the request is built, before anything is sent, with what it may cost (its
	 * estimated input and its maximum output). A message refuses it: nothing is sent and the step fails
	 * with code "budget" and that message. Must not throw.
	 */
	reserve?: (estimate: { inputTokens: number; outputTokens: number }) => Promise<string | undefined>;
}

/** The LanguageModelV3 behind a LanguageModel setting; the engine speaks the v3 spec only. */
export function asLanguageModelV3(model: LanguageModel): LanguageModelV3 {
	if (typeof model === "object" && model !== null && model.specificationVersion === "v3") return model;
	throw new TypeError(
		"createTutor needs a LanguageModelV3 instance (an AI SDK 6 provider model, e.g. createOpenAI(...).chat(id)), not a model id string or an older provider.",
	);
}

const preparedTools = new WeakMap<LessonAgent, Map<string, Promise<LanguageModelV3FunctionTool[]>>>();

/**
 * OpenAI's providers (`openai.responses`, `openai.chat`, and compatible servers through them): function tools say
 * `strict: false`. The Responses API holds a tool without it to strict mode (every property required, no
 * optional fields), which our tools cannot be said in: a free-answer quiz has no `options`.
 */
const notStrict = (provider: string): boolean => provider.startsWith("openai");

/** The provider-level tool definitions of an agent for a provider (built once: the same bytes in every request). */
function toolsOf(agent: LessonAgent, provider: string): Promise<LanguageModelV3FunctionTool[]> {
	let byProvider = preparedTools.get(agent);
	if (!byProvider) {
		byProvider = new Map();
		preparedTools.set(agent, byProvider);
	}
	const cache = byProvider;
	let prepared = cache.get(provider);
	if (!prepared) {
		prepared = toFunctionTools(agent.toolSet, notStrict(provider) ? { strict: false } : {});
		// A failure is not cached: the next step tries again.
		prepared.catch(() => cache.delete(provider));
		cache.set(provider, prepared);
	}
	return prepared;
}

type Collected = Extract<StepOutcome, { ok: true }>;

/** Abort `controller` with `reason` after `ms`; the timer (to clear). Infinite or unset `ms`: none. */
function deadline(
	controller: AbortController,
	ms: number | undefined,
	reason: () => unknown,
): NodeJS.Timeout | undefined {
	if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return undefined;
	return setTimeout(() => controller.abort(reason()), ms);
}

/** One attempt: send the request, read the stream to its end; throws on failure or timeout. */
async function attempt(request: ModelStepRequest, options: LanguageModelV3CallOptions): Promise<Collected> {
	const controller = new AbortController();
	const outer = request.abortSignal;
	const onClose = () => controller.abort(new ClosedError("the tutor is closing"));
	if (outer?.aborted) onClose();
	outer?.addEventListener("abort", onClose, { once: true });
	// The no-progress timer is one per attempt, re-armed lazily: progress only moves a timestamp.
	let last = Date.now();
	let idleTimer: NodeJS.Timeout | undefined;
	const arm = (ms: number) => {
		idleTimer = setTimeout(() => {
			const idle = Date.now() - last;
			if (idle >= request.timeoutMs) controller.abort(new ModelTimeoutError(request.timeoutMs, "idle"));
			else arm(request.timeoutMs - idle);
		}, ms);
	};
	arm(request.timeoutMs);
	// The total deadline is not moved by progress: a stream trickling a byte a second still ends.
	const total = request.totalTimeoutMs;
	const totalTimer = deadline(controller, total, () => new ModelTimeoutError(total ?? 0, "total"));
	// Settles when the attempt is abandoned, so a model that ignores its abort signal cannot hang us.
	const abandoned = new Promise<never>((_, reject) => {
		const fail = () => reject(controller.signal.reason);
		if (controller.signal.aborted) fail();
		else controller.signal.addEventListener("abort", fail, { once: true });
	});
	abandoned.catch(() => {});
	let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
	let finished = false;
	try {
		const started = request.model.doStream({ ...options, abortSignal: controller.signal });
		// A model that answers after we gave up: close its stream rather than leave the connection open.
		started.then(
			(late) => (finished || controller.signal.aborted ? late.stream.cancel().catch(() => {}) : undefined),
			() => {},
		);
		const { stream } = await Promise.race([started, abandoned]);
		reader = stream.getReader();
		const content: StepContent[] = [];
		const usage: StepUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
		let finishReason = "unknown";
		let textId: string | undefined;
		for (;;) {
			const next = await Promise.race([reader.read(), abandoned]);
			last = Date.now();
			if (next.done) break;
			const part = next.value;
			switch (part.type) {
				case "text-delta": {
					// One text per text part: two output messages of one reply (OpenAI's Responses API sends a
					// commentary, then a final answer) stay apart instead of running together.
					const tail = content.at(-1);
					if (tail?.type === "text" && part.id === textId) tail.text += part.delta;
					else content.push({ type: "text", text: part.delta });
					textId = part.id;
					break;
				}
				case "reasoning-start":
					content.push({ type: "reasoning", id: part.id, text: "", ...meta(part.providerMetadata) });
					break;
				case "reasoning-delta":
				case "reasoning-end": {
					const item = content.find((c) => c.type === "reasoning" && c.id === part.id);
					if (item?.type !== "reasoning") break;
					if (part.type === "reasoning-delta") item.text += part.delta;
					if (part.providerMetadata) item.providerMetadata = { ...item.providerMetadata, ...part.providerMetadata };
					break;
				}
				case "tool-call":
					content.push(await parseToolCall(request.agent, part));
					break;
				case "finish":
					finishReason = part.finishReason.unified;
					usage.inputTokens += part.usage.inputTokens.total ?? 0;
					usage.outputTokens += part.usage.outputTokens.total ?? 0;
					usage.cachedInputTokens += part.usage.inputTokens.cacheRead ?? 0;
					break;
				case "error":
					throw part.error;
				default:
					break;
			}
		}
		finished = true;
		return { ok: true, content, usage, finishReason };
	} catch (error) {
		// What the attempt was abandoned for (a timeout, the close) explains it better than the fetch's AbortError.
		throw controller.signal.aborted ? controller.signal.reason : error;
	} finally {
		clearTimeout(idleTimer);
		clearTimeout(totalTimer);
		outer?.removeEventListener("abort", onClose);
		if (!finished) {
			controller.abort(new ClosedError("attempt abandoned"));
			reader?.cancel().catch(() => {});
		}
	}
}

/** Run one model step and collect its output; never throws (a failure is an outcome). */
export async function runModelStep(request: ModelStepRequest): Promise<StepOutcome> {
	const span = startStepSpan(request.telemetry, {
		provider: request.model.provider,
		modelId: request.model.modelId,
		agent: request.agent.name,
		messages: request.messages.length,
	});
	let failure: unknown;
	let attempts = 0;
	try {
		const tools = await toolsOf(request.agent, request.model.provider);
		// What streamText sends without call settings (test/agent/engine/model-step.test.ts compares them).
		const options: LanguageModelV3CallOptions = {
			prompt: toLanguageModelPrompt(request.agent.system, request.messages),
			...(tools.length > 0 ? { tools, toolChoice: { type: "auto" as const } } : {}),
			...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
			includeRawChunks: false,
		};
		if (request.reserve) {
			const refused = await request.reserve({
				inputTokens: estimateInputTokens({ prompt: options.prompt, tools }),
				outputTokens: request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
			});
			if (refused !== undefined) {
				span?.end({ ok: false, attempts: 0, code: "budget", message: refused });
				return { ok: false, code: "budget", message: refused };
			}
		}
		for (let n = 0; ; n++) {
			try {
				attempts++;
				const outcome = await (span ? span.within(() => attempt(request, options)) : attempt(request, options));
				span?.end({ ...outcome, attempts });
				return outcome;
			} catch (error) {
				failure = error;
				if (request.abortSignal?.aborted || n >= request.maxRetries || !retryable(error)) break;
				const wait = retryDelay(error, request.retryDelayMs * 2 ** n);
				span?.retry(attempts, error, wait);
				await sleep(wait, request.abortSignal);
				if (request.abortSignal?.aborted) break;
			}
		}
	} catch (error) {
		// Building the request failed (a prompt the provider cannot take): no attempt was made.
		failure = error;
	}
	const described = describeModelError(failure, Math.max(1, attempts), request.locale);
	span?.end({ ok: false, attempts, ...described });
	return { ok: false, ...described, error: failure };
}
