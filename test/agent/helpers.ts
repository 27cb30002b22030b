/**
 * Test helpers for the engine: a scripted MockLanguageModelV3 (one reply per
 * model request, from test/fixtures/model-stream.ts), a tutor on a temporary
 * SQLite file, and an event recorder.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { afterAll, beforeAll } from "vitest";
import { createLanguageModel } from "../../src/agent/models/index.ts";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import type { SessionStore } from "../../src/agent/store/types.ts";
import { createTutor, type TutorOptions } from "../../src/agent/tutor.ts";
import type { TutorEvent } from "../../src/core/contracts/events.ts";
import type { Tutor } from "../../src/core/contracts/tutor.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../testkit/fakes/openai.ts";

export { type ScriptedCall, type ScriptedReply, scriptedModel } from "../../testkit/model-stream.ts";

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

export { assessmentInput, planMermaid, probeQuiz } from "../fixtures/lesson-script.ts";
