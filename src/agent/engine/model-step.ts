/**
 * One model step: a single streamed request to the LanguageModel, read to the
 * end. Tools carry no execute: the step only parses and validates calls (the
 * tool's `jsonSchema(..., { validate })`, the same boundary the SDK runs); the
 * engine settles them.
 *
 * Built from the AI SDK's own pieces (`ai/internal`: the tool definitions and
 * the prompt conversion streamText uses, so the provider receives the same
 * request) but not on streamText: its streaming pipeline (seven
 * TransformStreams, telemetry spans, zod re-validation of the prompt) cost
 * more than the rest of a turn together, and the engine uses none of it (it
 * settles a whole step at once). What streamText gave besides, this file does:
 * retries with exponential backoff honouring `retry-after`, a per-request
 * timeout (no progress for `timeoutMs`), and cancellation when the tutor closes.
 */

import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { APICallError, asSchema, type LanguageModel, type ModelMessage } from "ai";
import { convertToLanguageModelPrompt, prepareToolsAndToolChoice } from "ai/internal";
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
			/** Why the call was refused (unknown tool, bad JSON, boundary failure): the tool error the model sees. */
			refused?: string;
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
	model: LanguageModelV3;
	agent: LessonAgent;
	messages: ModelMessage[];
	/** Retries after the first attempt (429, 5xx, connection errors, timeouts). */
	maxRetries: number;
	/** First backoff delay; doubles per retry (a `retry-after` header under 60 s wins). */
	retryDelayMs: number;
	/** Give up on an attempt that makes no progress (no response, no stream part) for this long. */
	timeoutMs: number;
	abortSignal?: AbortSignal;
}

const duration = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);

/** An attempt that made no progress for too long (retried like a 5xx). */
class ModelTimeoutError extends Error {
	override readonly name = "ModelTimeoutError";
	constructor(readonly timeoutMs: number) {
		super(`no response from the model for ${duration(timeoutMs)}`);
	}
}

/** The tutor closed while the request ran. */
class ClosedError extends Error {
	override readonly name = "ClosedError";
}

/** The LanguageModelV3 behind a LanguageModel setting; the engine speaks the v3 spec only. */
export function asLanguageModelV3(model: LanguageModel): LanguageModelV3 {
	if (typeof model === "object" && model !== null && model.specificationVersion === "v3") return model;
	throw new TypeError(
		"createTutor needs a LanguageModelV3 instance (an AI SDK 6 provider model, e.g. createOpenAI(...).chat(id)), not a model id string or an older provider.",
	);
}

type PreparedTools = Awaited<ReturnType<typeof prepareToolsAndToolChoice>>;
const preparedTools = new WeakMap<LessonAgent, Promise<PreparedTools>>();

/** The provider-level tool definitions of an agent (built once: the same bytes in every request). */
function toolsOf(agent: LessonAgent): Promise<PreparedTools> {
	let prepared = preparedTools.get(agent);
	if (!prepared) {
		prepared = prepareToolsAndToolChoice({ tools: agent.toolSet, toolChoice: undefined, activeTools: undefined });
		preparedTools.set(agent, prepared);
	}
	return prepared;
}

const meta = (providerMetadata: Record<string, Record<string, unknown>> | undefined) =>
	providerMetadata ? { providerMetadata } : {};

/** True when a parsed value carries a `__proto__` key or a `constructor.prototype` (prototype poisoning). */
function poisoned(value: unknown): boolean {
	if (typeof value !== "object" || value === null) return false;
	if (Object.hasOwn(value, "__proto__")) return true;
	const ctor = (value as { constructor?: unknown }).constructor;
	if (
		Object.hasOwn(value, "constructor") &&
		typeof ctor === "object" &&
		ctor !== null &&
		Object.hasOwn(ctor, "prototype")
	)
		return true;
	return Object.values(value).some(poisoned);
}

/** Deepest nesting of tool arguments accepted (no tool schema nests deeper than a few levels). */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * The deepest bracket nesting of JSON text, by a linear scan that skips strings. Checked
 * before parsing: recursive steps after JSON.parse (validation, cloning, saving) would
 * overflow the stack on input nested thousands deep.
 */
export function jsonDepth(text: string): number {
	let depth = 0;
	let max = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (inString) {
			if (c === 92) i++; // backslash: skip the escaped character
			else if (c === 34) inString = false;
		} else if (c === 34) inString = true;
		else if (c === 123 || c === 91) max = Math.max(max, ++depth);
		else if (c === 125 || c === 93) depth--;
	}
	return max;
}

/** JSON.parse, refusing prototype-poisoning keys as the SDK's secure parse does; the refusal text on failure. */
function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
	if (jsonDepth(text) > MAX_ARGUMENT_DEPTH)
		return {
			ok: false,
			error: `The arguments nest more than ${MAX_ARGUMENT_DEPTH} levels deep. Send one flat JSON object with the fields the tool describes.`,
		};
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return {
			ok: false,
			error: `The arguments are not valid JSON (${JSON.stringify(text.slice(0, 120))}). Send one JSON object with the fields the tool describes.`,
		};
	}
	if ((text.includes("__proto__") || text.includes("prototype")) && poisoned(value))
		return { ok: false, error: "The arguments use a forbidden key (__proto__ or constructor.prototype)." };
	return { ok: true, value };
}

/**
 * Parse and validate a call as the SDK does (an empty input is `{}`; the tool's schema
 * validate is the boundary). A refused call keeps its raw input (parsed JSON, or the text)
 * and says why, in words the model can act on.
 */
async function parseToolCall(
	agent: LessonAgent,
	part: Extract<LanguageModelV3StreamPart, { type: "tool-call" }>,
): Promise<Extract<StepContent, { type: "tool-call" }>> {
	const base = {
		type: "tool-call" as const,
		toolCallId: part.toolCallId,
		toolName: part.toolName,
		...meta(part.providerMetadata),
	};
	const json = part.input.trim() === "" ? { ok: true as const, value: {} } : parseJson(part.input);
	const raw = json.ok ? json.value : part.input;
	const tool = agent.tools.get(part.toolName);
	if (!tool) {
		const known = [...agent.tools.keys()].join(", ");
		return { ...base, input: raw, refused: `Unknown tool ${JSON.stringify(part.toolName)}. Your tools are: ${known}.` };
	}
	if (!json.ok) return { ...base, input: raw, refused: json.error };
	const validate = asSchema(tool.tool.inputSchema).validate;
	const verdict = validate ? await validate(json.value) : { success: true as const, value: json.value };
	if (!verdict.success) return { ...base, input: raw, refused: verdict.error.message };
	return { ...base, input: verdict.value };
}

type Collected = Extract<StepOutcome, { ok: true }>;

/** One attempt: send the request, read the stream to its end; throws on failure or timeout. */
async function attempt(request: ModelStepRequest, options: LanguageModelV3CallOptions): Promise<Collected> {
	const controller = new AbortController();
	const outer = request.abortSignal;
	const onClose = () => controller.abort(new ClosedError("the tutor is closing"));
	if (outer?.aborted) onClose();
	outer?.addEventListener("abort", onClose, { once: true });
	// One timer per attempt, re-armed lazily: progress only moves a timestamp.
	let last = Date.now();
	let timer: NodeJS.Timeout | undefined;
	const arm = (ms: number) => {
		timer = setTimeout(() => {
			const idle = Date.now() - last;
			if (idle >= request.timeoutMs) controller.abort(new ModelTimeoutError(request.timeoutMs));
			else arm(request.timeoutMs - idle);
		}, ms);
	};
	arm(request.timeoutMs);
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
		for (;;) {
			const next = await Promise.race([reader.read(), abandoned]);
			last = Date.now();
			if (next.done) break;
			const part = next.value;
			switch (part.type) {
				case "text-delta": {
					const tail = content.at(-1);
					if (tail?.type === "text") tail.text += part.delta;
					else content.push({ type: "text", text: part.delta });
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
		// What the attempt was abandoned for (our timeout, the close) explains it better than the fetch's AbortError.
		throw controller.signal.aborted ? controller.signal.reason : error;
	} finally {
		clearTimeout(timer);
		outer?.removeEventListener("abort", onClose);
		if (!finished) {
			controller.abort(new ClosedError("attempt abandoned"));
			reader?.cancel().catch(() => {});
		}
	}
}

/** A `retry-after-ms` / `retry-after` delay the server asked for (under a minute), else the backoff. */
function retryDelay(error: unknown, backoffMs: number): number {
	const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
	let ms: number | undefined;
	const afterMs = headers?.["retry-after-ms"];
	if (afterMs !== undefined && !Number.isNaN(Number.parseFloat(afterMs))) ms = Number.parseFloat(afterMs);
	const after = headers?.["retry-after"];
	if (ms === undefined && after !== undefined) {
		const seconds = Number.parseFloat(after);
		ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
	}
	return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && ms < 60_000 ? ms : backoffMs;
}

const retryable = (error: unknown): boolean =>
	error instanceof ModelTimeoutError || (APICallError.isInstance(error) && error.isRetryable);

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((done) => {
		const timer = setTimeout(finish, ms);
		function finish() {
			clearTimeout(timer);
			signal?.removeEventListener("abort", finish);
			done();
		}
		signal?.addEventListener("abort", finish, { once: true });
	});
}

/** Run one model step and collect its output; never throws. */
export async function runModelStep(request: ModelStepRequest): Promise<StepOutcome> {
	let failure: unknown;
	let attempts = 0;
	try {
		const { tools, toolChoice } = await toolsOf(request.agent);
		const prompt = await convertToLanguageModelPrompt({
			prompt: { system: request.agent.system, messages: request.messages },
			supportedUrls: await request.model.supportedUrls,
			download: undefined,
		});
		// What streamText sends without call settings (test/agent/engine/model-step.test.ts compares them).
		const options: LanguageModelV3CallOptions = {
			prompt,
			...(tools ? { tools } : {}),
			...(toolChoice ? { toolChoice } : {}),
			includeRawChunks: false,
		};
		for (let n = 0; ; n++) {
			try {
				attempts++;
				return await attempt(request, options);
			} catch (error) {
				failure = error;
				if (request.abortSignal?.aborted || n >= request.maxRetries || !retryable(error)) break;
				await sleep(retryDelay(error, request.retryDelayMs * 2 ** n), request.abortSignal);
				if (request.abortSignal?.aborted) break;
			}
		}
	} catch (error) {
		// Building the request failed (a prompt the provider cannot take): no attempt was made.
		failure = error;
	}
	return { ok: false, ...describeModelError(failure, Math.max(1, attempts)) };
}

/** An error code and a message a learner can act on, from whatever the provider threw. */
function describeModelError(last: unknown, attempts: number): { code: string; message: string } {
	const tries = attempts > 1 ? `, ${attempts} attempts` : "";
	const again = "Send a message to try again.";
	if (last instanceof ModelTimeoutError)
		return {
			code: "model-timeout",
			message: `The tutor's AI model did not answer (nothing for ${duration(last.timeoutMs)}${tries}). ${again}`,
		};
	if (last instanceof ClosedError)
		return { code: "closed", message: "The tutor is restarting; send a message in a moment to continue." };
	if (APICallError.isInstance(last)) {
		const status = last.statusCode;
		if (status === 429)
			return {
				code: "rate-limited",
				message: `The tutor's AI model is busy right now (rate limit, HTTP 429${tries}). Wait a minute, then ${again.toLowerCase()}`,
			};
		if (status === 401 || status === 403)
			return {
				code: "model-auth",
				message: `The tutor's AI model refused our API key (HTTP ${status}). An admin needs to check OPENAI_API_KEY.`,
			};
		return {
			code: "model-unavailable",
			message: `The tutor's AI model is not answering (${status ? `HTTP ${status}` : "no connection"}${tries}). ${again}`,
		};
	}
	const text = last instanceof Error ? last.message : typeof last === "string" ? last : safeJson(last);
	return { code: "model-error", message: `The tutor's AI model failed (${text.slice(0, 200)}). ${again}` };
}

function safeJson(value: unknown): string {
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}
