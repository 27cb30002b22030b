/**
 * The zero-latency model of the benchmarks: a reply `{ text?, calls?, usage? }` becomes the
 * stream parts a provider sends (stream-start, text deltas, one tool-call part a call, a
 * finish with usage). Kept here rather than shared with test/ so the benchmarks run without
 * the test tree.
 */

import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";

/** One scripted model reply. */
export interface BenchReply {
	text?: string;
	calls?: Array<{ name: string; input: unknown }>;
}

/** Token usage reported with every reply: a long prompt, mostly cached (as a provider reports it). */
const USAGE = { input: 1000, cached: 900, output: 50 };

let callCounter = 0;

/** The stream parts of a reply, in the order a provider sends them. */
function replyParts(reply: BenchReply): LanguageModelV3StreamPart[] {
	const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
	if (reply.text) {
		parts.push({ type: "text-start", id: "t" });
		// Small deltas, as providers send them: the engine must reassemble the text.
		for (const piece of reply.text.match(/.{1,5}/gs) ?? []) parts.push({ type: "text-delta", id: "t", delta: piece });
		parts.push({ type: "text-end", id: "t" });
	}
	for (const call of reply.calls ?? [])
		parts.push({
			type: "tool-call",
			toolCallId: `call-${++callCounter}`,
			toolName: call.name,
			input: JSON.stringify(call.input),
		});
	parts.push({
		type: "finish",
		finishReason: { unified: reply.calls?.length ? "tool-calls" : "stop", raw: undefined },
		usage: {
			inputTokens: { total: USAGE.input, noCache: USAGE.input - USAGE.cached, cacheRead: USAGE.cached, cacheWrite: 0 },
			outputTokens: { total: USAGE.output, text: undefined, reasoning: undefined },
		},
	});
	return parts;
}

/**
 * A zero-latency model: replies from `next(call)`. A plain LanguageModelV3 rather than
 * MockLanguageModelV3, which keeps every request's prompt (hundreds of MB over a run: the GC
 * work that causes would be the mock's cost, not the engine's).
 */
export function zeroLatencyModel(next: (call: LanguageModelV3CallOptions) => BenchReply): LanguageModelV3 {
	return {
		specificationVersion: "v3",
		provider: "bench",
		modelId: "zero-latency",
		supportedUrls: {},
		doGenerate: () => Promise.reject(new Error("the engine streams")),
		doStream: async (call) => {
			const parts = replyParts(next(call));
			const stream = new ReadableStream<LanguageModelV3StreamPart>({
				start(controller) {
					for (const p of parts) controller.enqueue(p);
					controller.close();
				},
			});
			return { stream };
		},
	};
}
