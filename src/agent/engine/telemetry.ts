/**
 * OpenTelemetry spans of model steps: one `learnharness.model.step` span per step (all its
 * attempts), with the GenAI semantic-convention attributes (model, provider, tokens, finish
 * reason) plus ours (agent, message count, attempts, error code). Off by default, and then
 * nothing here runs at all; on (`LEARNHARNESS_TELEMETRY=1` → `createTutor({ telemetry: true })`)
 * the spans go to whatever tracer provider the process registered with `@opentelemetry/api`
 * (the SDK's own spans work the same way; with none registered the API is a no-op).
 */

import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

/** The span name of a model step. */
export const STEP_SPAN = "learnharness.model.step";

/** The tracer name our spans carry (the instrumentation scope). */
export const TRACER_NAME = "learnharness";

/** What a step span records at its start. */
export interface StepSpanStart {
	provider: string;
	modelId: string;
	agent: string;
	messages: number;
}

/** What a step span records at its end. */
export type StepSpanEnd =
	| {
			ok: true;
			attempts: number;
			finishReason: string;
			usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
	  }
	| { ok: false; attempts: number; code: string; message: string };

/** A running step span (absent when telemetry is off). */
export interface StepSpan {
	/** Run `fn` with this span active, so spans it causes (an instrumented HTTP client's) nest under it. */
	within<T>(fn: () => Promise<T>): Promise<T>;
	/** A failed attempt that will be retried after `delayMs`. */
	retry(attempt: number, error: unknown, delayMs: number): void;
	/** Record the outcome and end the span (once). */
	end(result: StepSpanEnd): void;
}

const errorName = (error: unknown): string => (error instanceof Error ? error.name : typeof error);

/** Start a step span; undefined (and no OpenTelemetry call) when `enabled` is false. */
export function startStepSpan(enabled: boolean | undefined, start: StepSpanStart): StepSpan | undefined {
	if (!enabled) return undefined;
	const attributes: Attributes = {
		"gen_ai.operation.name": "chat",
		"gen_ai.provider.name": start.provider,
		"gen_ai.request.model": start.modelId,
		"learnharness.agent": start.agent,
		"learnharness.messages": start.messages,
	};
	const span: Span = trace.getTracer(TRACER_NAME).startSpan(STEP_SPAN, { kind: SpanKind.CLIENT, attributes });
	let ended = false;
	return {
		within: (fn) => context.with(trace.setSpan(context.active(), span), fn),
		retry(attempt, error, delayMs) {
			span.addEvent("retry", {
				"learnharness.attempt": attempt,
				"error.type": errorName(error),
				"learnharness.retry_delay_ms": delayMs,
			});
		},
		end(result) {
			if (ended) return;
			ended = true;
			span.setAttribute("learnharness.attempts", result.attempts);
			if (result.ok) {
				span.setAttributes({
					"gen_ai.response.finish_reasons": [result.finishReason],
					"gen_ai.usage.input_tokens": result.usage.inputTokens,
					"gen_ai.usage.output_tokens": result.usage.outputTokens,
					"learnharness.usage.cached_input_tokens": result.usage.cachedInputTokens,
				});
			} else {
				span.setAttributes({ "error.type": result.code, "learnharness.error.code": result.code });
				span.setStatus({ code: SpanStatusCode.ERROR, message: result.message });
			}
			span.end();
		},
	};
}
