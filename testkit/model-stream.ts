/**
 * Scripted model replies as LanguageModelV3 streams, shared by the engine tests, the
 * Discord end-to-end tests and the engine benchmark: a reply `{ reasoning?, text?, calls? }`
 * becomes the stream parts a provider sends (stream-start, reasoning, text deltas, one
 * tool-call part a call, a finish with usage), and `scriptedModel` answers each request
 * with the next reply of a script.
 */

import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";

/** A scripted tool call: `input` is JSON-encoded unless `raw` gives the exact argument text. */
export interface ScriptedCall {
	name: string;
	input?: unknown;
	raw?: string;
	/** The tool call id (default `call-<n>`, unique in the process). */
	id?: string;
}

/** One scripted model reply. */
export interface StreamReply {
	/** Reasoning the model streams first (with provider metadata, as reasoning models send it). */
	reasoning?: string;
	text?: string;
	calls?: ScriptedCall[];
	/** Token usage of the reply (default 100 input of which 40 cached, 10 output). */
	usage?: { input?: number; output?: number; cached?: number };
}

/** One scripted reply, or a failure, for scriptedModel. */
export interface ScriptedReply extends StreamReply {
	/** Throw this from doStream (the engine retries it: use maxRetries 0 in tests). */
	error?: Error;
	/** Wait for this before answering (to hold a turn open). */
	gate?: Promise<void>;
}

let callCounter = 0;

/** The stream parts of a reply, in the order a provider sends them. */
export function replyParts(reply: StreamReply): LanguageModelV3StreamPart[] {
	const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
	if (reply.reasoning) {
		parts.push({ type: "reasoning-start", id: "r" });
		parts.push({ type: "reasoning-delta", id: "r", delta: reply.reasoning });
		parts.push({ type: "reasoning-end", id: "r", providerMetadata: { test: { itemId: "rs_1" } } });
	}
	if (reply.text) {
		parts.push({ type: "text-start", id: "t" });
		// Small deltas, as providers send them: the engine must reassemble the text.
		for (const piece of reply.text.match(/.{1,5}/gs) ?? []) parts.push({ type: "text-delta", id: "t", delta: piece });
		parts.push({ type: "text-end", id: "t" });
	}
	for (const call of reply.calls ?? []) {
		parts.push({
			type: "tool-call",
			toolCallId: call.id ?? `call-${++callCounter}`,
			toolName: call.name,
			input: call.raw ?? JSON.stringify(call.input ?? {}),
		});
	}
	const input = reply.usage?.input ?? 100;
	const cached = reply.usage?.cached ?? 40;
	parts.push({
		type: "finish",
		finishReason: { unified: reply.calls?.length ? "tool-calls" : "stop", raw: undefined },
		usage: {
			inputTokens: { total: input, noCache: input - cached, cacheRead: cached, cacheWrite: 0 },
			outputTokens: { total: reply.usage?.output ?? 10, text: undefined, reasoning: undefined },
		},
	});
	return parts;
}

/** A stream that sends `parts` and closes. */
export function partsStream(parts: readonly LanguageModelV3StreamPart[]): ReadableStream<LanguageModelV3StreamPart> {
	return new ReadableStream({
		start(controller) {
			for (const p of parts) controller.enqueue(p);
			controller.close();
		},
	});
}

/** The stream of a reply. */
export function replyStream(reply: StreamReply): ReadableStream<LanguageModelV3StreamPart> {
	return partsStream(replyParts(reply));
}

/** A mock model answering each request with the next scripted reply (an error when the script runs out). */
export function scriptedModel(replies: ScriptedReply[]): MockLanguageModelV3 {
	const script = [...replies];
	return new MockLanguageModelV3({
		doStream: async () => {
			const reply = script.shift();
			if (!reply) throw new Error("the test script has no reply left");
			if (reply.gate) await reply.gate;
			if (reply.error) throw reply.error;
			return { stream: replyStream(reply) };
		},
	});
}
