/**
 * OpenTelemetry spans of model steps: with telemetry on, one `learnharness.model.step` span
 * per step with the model, agent, message count, tokens, finish reason, attempts and error;
 * with it off (the default), no span and no call into the tracer provider at all. A small
 * recording tracer provider is registered globally, as an OpenTelemetry SDK would be.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import {
	type Attributes,
	type Context,
	type ContextManager,
	context,
	ROOT_CONTEXT,
	type Span,
	type SpanContext,
	type SpanStatus,
	SpanStatusCode,
	type Tracer,
	type TracerProvider,
	trace,
} from "@opentelemetry/api";
import { APICallError, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAgents } from "../../../src/agent/engine/agents.ts";
import { runModelStep } from "../../../src/agent/engine/model-step.ts";
import { STEP_SPAN, TRACER_NAME } from "../../../src/agent/engine/telemetry.ts";
import { replyStream } from "../../fixtures/model-stream.ts";
import { harness, learner, probeQuiz, tempDir } from "../helpers.ts";

/** A finished or running span as recorded. */
interface Recorded {
	name: string;
	tracer: string;
	attributes: Attributes;
	events: Array<{ name: string; attributes?: Attributes }>;
	status?: SpanStatus;
	ended: boolean;
}

const CONTEXT: SpanContext = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1 };

/** A Span that records what it is told. */
class RecordingSpan implements Span {
	constructor(readonly record: Recorded) {}
	spanContext(): SpanContext {
		return CONTEXT;
	}
	setAttribute(key: string, value: Attributes[string]): this {
		this.record.attributes[key] = value;
		return this;
	}
	setAttributes(attributes: Attributes): this {
		Object.assign(this.record.attributes, attributes);
		return this;
	}
	addEvent(name: string, attributes?: Attributes): this {
		this.record.events.push(attributes ? { name, attributes } : { name });
		return this;
	}
	addLink(): this {
		return this;
	}
	addLinks(): this {
		return this;
	}
	setStatus(status: SpanStatus): this {
		this.record.status = status;
		return this;
	}
	updateName(name: string): this {
		this.record.name = name;
		return this;
	}
	end(): void {
		this.record.ended = true;
	}
	isRecording(): boolean {
		return !this.record.ended;
	}
	recordException(): void {}
}

const spans: Recorded[] = [];
const tracersAsked: string[] = [];

const provider: TracerProvider = {
	getTracer(name: string): Tracer {
		tracersAsked.push(name);
		const startSpan = (spanName: string, options?: { attributes?: Attributes }): Span => {
			const record: Recorded = {
				name: spanName,
				tracer: name,
				attributes: { ...options?.attributes },
				events: [],
				ended: false,
			};
			spans.push(record);
			return new RecordingSpan(record);
		};
		return {
			startSpan,
			startActiveSpan: ((spanName: string, ...rest: unknown[]) => {
				const fn = rest.at(-1) as (span: Span) => unknown;
				return fn(startSpan(spanName));
			}) as Tracer["startActiveSpan"],
		};
	},
};

/** The context manager an OpenTelemetry SDK registers on Node, in a few lines (AsyncLocalStorage). */
const storage = new AsyncLocalStorage<Context>();
const contextManager: ContextManager = {
	active: () => storage.getStore() ?? ROOT_CONTEXT,
	with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.call(thisArg, ...args)),
	bind: (_ctx, target) => target,
	enable() {
		return this;
	},
	disable() {
		return this;
	},
};

beforeAll(() => {
	expect(trace.setGlobalTracerProvider(provider)).toBe(true);
	expect(context.setGlobalContextManager(contextManager)).toBe(true);
});
afterAll(() => {
	trace.disable();
	context.disable();
});
beforeEach(() => {
	spans.length = 0;
	tracersAsked.length = 0;
});

const agents = createAgents();
const messages: ModelMessage[] = [
	{ role: "user", content: "Topic: fractions" },
	{ role: "assistant", content: "Hi!" },
	{ role: "user", content: "hello" },
];
const replying = () =>
	new MockLanguageModelV3({
		modelId: "llama3.1:8b",
		provider: "openai.chat",
		doStream: async () => ({
			stream: replyStream({
				text: "Try this.",
				calls: [{ name: "quiz", input: probeQuiz }],
				usage: { input: 1200, cached: 1000, output: 42 },
			}),
		}),
	});
const base = { agent: agents.prober, messages, maxRetries: 0, retryDelayMs: 1, timeoutMs: 5_000 };

describe("model step spans", () => {
	it("on: one ended span with the model, agent, message count, tokens, finish reason and attempts", async () => {
		const outcome = await runModelStep({ ...base, model: replying(), telemetry: true });
		expect(outcome.ok).toBe(true);
		expect(spans).toEqual([
			{
				name: STEP_SPAN,
				tracer: TRACER_NAME,
				attributes: {
					"gen_ai.operation.name": "chat",
					"gen_ai.provider.name": "openai.chat",
					"gen_ai.request.model": "llama3.1:8b",
					"learnharness.agent": "prober",
					"learnharness.messages": 3,
					"learnharness.attempts": 1,
					"gen_ai.response.finish_reasons": ["tool-calls"],
					"gen_ai.usage.input_tokens": 1200,
					"gen_ai.usage.output_tokens": 42,
					"learnharness.usage.cached_input_tokens": 1000,
				},
				events: [],
				ended: true,
			},
		]);
	});

	it("on: the step's span is active while the provider runs (an instrumented HTTP client's spans nest under it)", async () => {
		let active: Span | undefined;
		const model = new MockLanguageModelV3({
			doStream: async () => {
				active = trace.getActiveSpan();
				return { stream: replyStream({ text: "ok" }) };
			},
		});
		expect((await runModelStep({ ...base, model, telemetry: true })).ok).toBe(true);
		expect(active).toBeInstanceOf(RecordingSpan);
		expect((active as RecordingSpan).record).toBe(spans[0]);
		expect(trace.getActiveSpan()).toBeUndefined();
	});

	it("on: a failed step's span has an error status and code, and an event per retry", async () => {
		const busy = new MockLanguageModelV3({
			doStream: async () => {
				throw new APICallError({
					message: "busy",
					url: "https://api.example.com/v1/responses",
					requestBodyValues: {},
					statusCode: 503,
				});
			},
		});
		const outcome = await runModelStep({ ...base, model: busy, maxRetries: 2, telemetry: true });
		expect(outcome).toMatchObject({ ok: false, code: "model-unavailable" });
		expect(spans).toHaveLength(1);
		const [span] = spans;
		expect(span?.ended).toBe(true);
		expect(span?.attributes).toMatchObject({
			"learnharness.attempts": 3,
			"learnharness.error.code": "model-unavailable",
		});
		expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: outcome.ok || outcome.message });
		expect(span?.events.map((e) => [e.name, e.attributes?.["learnharness.attempt"]])).toEqual([
			["retry", 1],
			["retry", 2],
		]);
	});

	it("off (the default): no span, and the tracer provider is never asked", async () => {
		expect((await runModelStep({ ...base, model: replying() })).ok).toBe(true);
		expect((await runModelStep({ ...base, model: replying(), telemetry: false })).ok).toBe(true);
		expect(spans).toHaveLength(0);
		expect(tracersAsked).toHaveLength(0);
	});

	it("createTutor: telemetry: true gives a span per step; without it, none", async () => {
		const dir = tempDir();
		for (const telemetry of [true, undefined]) {
			spans.length = 0;
			const h = await harness(dir.path, replying(), telemetry ? { telemetry } : {});
			const sessionId = `terminal:telemetry-${telemetry}`;
			await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
			await h.tutor.idle(sessionId);
			expect(h.of("quiz")).toHaveLength(1);
			expect(spans.map((s) => [s.name, s.attributes["learnharness.agent"]])).toEqual(
				telemetry ? [[STEP_SPAN, "prober"]] : [],
			);
			await h.tutor.close();
		}
		dir.cleanup();
	});
});
