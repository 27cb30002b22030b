/**
 * Test helpers for the engine: a scripted MockLanguageModelV3 (one reply per
 * model request), a tutor on a temporary SQLite file, and an event recorder.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll } from "vitest";
import { createLanguageModel } from "../../src/agent/models/index.ts";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import type { SessionStore } from "../../src/agent/store/types.ts";
import { createTutor, type TutorOptions } from "../../src/agent/tutor.ts";
import type { TutorEvent } from "../../src/core/contracts/events.ts";
import type { Tutor } from "../../src/core/contracts/tutor.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai.ts";

/** A scripted tool call: `input` is JSON-encoded unless `raw` gives the exact argument text. */
export interface ScriptedCall {
	name: string;
	input?: unknown;
	raw?: string;
	id?: string;
}

/** One scripted model reply, or a failure. */
export interface ScriptedReply {
	/** Reasoning the model streams first (with provider metadata, as reasoning models send it). */
	reasoning?: string;
	text?: string;
	calls?: ScriptedCall[];
	/** Throw this from doStream (after the SDK's retries: use maxRetries 0 in tests). */
	error?: Error;
	/** Wait for this before answering (to hold a turn open). */
	gate?: Promise<void>;
	usage?: { input?: number; output?: number; cached?: number };
}

let callCounter = 0;

function streamOf(reply: ScriptedReply): ReadableStream<LanguageModelV3StreamPart> {
	const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
	if (reply.reasoning) {
		parts.push({ type: "reasoning-start", id: "r" });
		parts.push({ type: "reasoning-delta", id: "r", delta: reply.reasoning });
		parts.push({ type: "reasoning-end", id: "r", providerMetadata: { test: { itemId: "rs_1" } } });
	}
	if (reply.text) {
		parts.push({ type: "text-start", id: "t" });
		for (const piece of reply.text.match(/.{1,5}/gs) ?? []) parts.push({ type: "text-delta", id: "t", delta: piece });
		parts.push({ type: "text-end", id: "t" });
	}
	for (const call of reply.calls ?? []) {
		callCounter++;
		parts.push({
			type: "tool-call",
			toolCallId: call.id ?? `call-${callCounter}`,
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
	return new ReadableStream({
		start(controller) {
			for (const p of parts) controller.enqueue(p);
			controller.close();
		},
	});
}

/** A mock model answering each request with the next scripted reply (an error when the script runs out). */
export function scriptedModel(replies: ScriptedReply[]): MockLanguageModelV3 & { script: ScriptedReply[] } {
	const script = [...replies];
	const model = new MockLanguageModelV3({
		doStream: async (_options: LanguageModelV3CallOptions) => {
			const reply = script.shift();
			if (!reply) throw new Error("the test script has no reply left");
			if (reply.gate) await reply.gate;
			if (reply.error) throw reply.error;
			return { stream: streamOf(reply) };
		},
	});
	return Object.assign(model, { script });
}

/** A temporary folder removed by cleanup(). */
export function tempDir(): { path: string; cleanup: () => void } {
	const path = mkdtempSync(join(tmpdir(), "lh-engine-"));
	return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** A temp folder and the chat-completions fake for one test file (started before it, closed after). */
export function useFakeOpenAI(): {
	dir: ReturnType<typeof tempDir>;
	readonly fake: FakeOpenAI;
	/** The real @ai-sdk/openai chat provider pointed at the fake. */
	model(): ReturnType<typeof createLanguageModel>;
} {
	const dir = tempDir();
	let fake: FakeOpenAI | undefined;
	beforeAll(async () => {
		fake = await startFakeOpenAI();
	});
	afterAll(async () => {
		await fake?.close();
		dir.cleanup();
	});
	const running = (): FakeOpenAI => {
		if (!fake) throw new Error("the fake starts in beforeAll");
		return fake;
	};
	return {
		dir,
		get fake() {
			return running();
		},
		model: () => createLanguageModel({ model: "fake-llama", baseUrl: running().baseURL, apiKey: "test-key" }),
	};
}

/** A tutor on a SQLite file, recording its events. */
export interface Harness {
	tutor: Tutor;
	store: SessionStore;
	events: TutorEvent[];
	/** Events of one type, narrowed. */
	of<T extends TutorEvent["type"]>(type: T): Array<Extract<TutorEvent, { type: T }>>;
}

/** Open a store on `sqlite://<dir>/lh.sqlite` and a tutor on it. */
export async function harness(
	dir: string,
	model: TutorOptions["model"],
	options: Partial<TutorOptions> = {},
): Promise<Harness> {
	const store = await createSessionStore(`sqlite://${join(dir, "lh.sqlite")}`);
	const tutor = createTutor({ model, store, maxRetries: 0, ...options });
	const events: TutorEvent[] = [];
	tutor.subscribe((e) => {
		events.push(e);
	});
	return {
		tutor,
		store,
		events,
		of: <T extends TutorEvent["type"]>(type: T) =>
			events.filter((e): e is Extract<TutorEvent, { type: T }> => e.type === type),
	};
}

/** The text of every tool result the model was sent in a request (to check what the model saw). */
export function toolResultsSent(options: LanguageModelV3CallOptions): Array<{ toolName: string; output: unknown }> {
	const out: Array<{ toolName: string; output: unknown }> = [];
	for (const m of options.prompt) {
		if (m.role !== "tool") continue;
		for (const p of m.content) if (p.type === "tool-result") out.push({ toolName: p.toolName, output: p.output });
	}
	return out;
}

export const learner = { id: "u-ada", name: "Ada" };
export const stranger = { id: "u-bob", name: "Bob" };

/** A prober quiz input. */
export const probeQuiz = {
	question: "What is 1/2 + 1/4?",
	options: ["2/6", "3/4", "1/6"],
	correctAnswer: "3/4",
};

/** A valid probe_done input. */
export const assessmentInput = {
	assessment: {
		strands: [{ strand: "adding fractions", assessment: "Adds with common denominators; unsure with unlike ones." }],
		summary: "Enter at unlike denominators.",
	},
};

/** A valid plan: a → b → c. */
export const planMermaid =
	"graph TD\n  common-denominator[Common denominators] --> unlike[Unlike denominators]\n  unlike --> mixed[Mixed numbers]";
