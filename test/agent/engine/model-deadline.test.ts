/**
 * A model that never stops trickling, and a model server nobody answers at: both end in an
 * outcome the learner can act on, in bounded time, and the connection notice names the
 * server (host only) and `learnharness doctor` for whoever runs the tutor.
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { APICallError, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { createAgents } from "../../../src/agent/engine/agents.ts";
import { runModelStep } from "../../../src/agent/engine/model-step.ts";
import { harness, learner, tempDir } from "../helpers.ts";

const agents = createAgents();
const opening: ModelMessage[] = [{ role: "user", content: "Topic: fractions" }];

/** A model whose every stream sends one tiny text delta every 20 ms, forever; counts streams opened and cancelled. */
function tricklingModel() {
	const streams = { opened: 0, cancelled: 0 };
	const model = new MockLanguageModelV3({
		doStream: async () => {
			streams.opened++;
			let timer: NodeJS.Timeout | undefined;
			const stream = new ReadableStream<LanguageModelV3StreamPart>({
				start(controller) {
					controller.enqueue({ type: "stream-start", warnings: [] });
					controller.enqueue({ type: "text-start", id: "t" });
					timer = setInterval(() => controller.enqueue({ type: "text-delta", id: "t", delta: "." }), 20);
				},
				cancel() {
					clearInterval(timer);
					streams.cancelled++;
				},
			});
			return { stream };
		},
	});
	return { model, streams };
}

/** A base URL nobody listens at (a port just freed), with a path and a key that must not leak. */
async function deadServer(): Promise<{ baseURL: string; host: string }> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return { baseURL: `http://127.0.0.1:${port}/secret-tenant/v1`, host: `127.0.0.1:${port}` };
}

describe("a model that streams too slowly", () => {
	it("hits the total deadline although every 20 ms brings a byte: retried, then 'model-timeout', in bounded time", async () => {
		const { model, streams } = tricklingModel();
		const started = performance.now();
		const outcome = await runModelStep({
			model,
			agent: agents.prober,
			messages: opening,
			maxRetries: 1,
			retryDelayMs: 1,
			timeoutMs: 1_000,
			totalTimeoutMs: 300,
		});
		const elapsed = performance.now() - started;
		expect(outcome).toMatchObject({ ok: false, code: "model-timeout" });
		expect(outcome.ok || outcome.message).toMatch(/answered too slowly.*within 300 ms, 2 attempts.*Send a message/);
		// Two attempts of 300 ms each; far below the no-progress timeout, which the trickle keeps re-arming.
		expect(elapsed).toBeGreaterThanOrEqual(590);
		expect(elapsed).toBeLessThan(2_000);
		expect(streams).toEqual({ opened: 2, cancelled: 2 });
	});

	it("createTutor passes totalTimeoutMs to every step", async () => {
		const dir = tempDir();
		const { model, streams } = tricklingModel();
		const h = await harness(dir.path, model, { maxRetries: 0, totalTimeoutMs: 200, requestTimeoutMs: 5_000 });
		const sessionId = "terminal:deadline";
		const started = performance.now();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(performance.now() - started).toBeLessThan(2_000);
		expect(h.of("error")).toEqual([expect.objectContaining({ code: "model-timeout", retryable: true })]);
		expect(h.of("text")).toHaveLength(0); // the trickled half reply is not shown
		expect(streams.cancelled).toBe(1);
		await h.tutor.close();
		dir.cleanup();
	});
});

describe("a model server that cannot be reached", () => {
	it("names the server's host (no path, no key) and learnharness doctor, after the retries", async () => {
		const { baseURL, host } = await deadServer();
		const model = createOpenAI({ baseURL, apiKey: "sk-do-not-show" }).chat("llama3.1:8b");
		const outcome = await runModelStep({
			model,
			agent: agents.prober,
			messages: opening,
			maxRetries: 1,
			retryDelayMs: 1,
			timeoutMs: 5_000,
		});
		expect(outcome).toMatchObject({ ok: false, code: "model-unreachable" });
		if (outcome.ok) return;
		expect(outcome.message).toBe(
			`The tutor could not reach its AI model (no connection to the model server ${host}, 2 attempts). ` +
				"Send a message to try again. If it keeps happening, ask whoever runs the tutor to run `learnharness doctor`.",
		);
		expect(outcome.message).not.toMatch(/secret-tenant|sk-do-not-show|chat\/completions/);
	});

	it("an HTTP 5xx names the server too; a 401 points at the key and doctor", async () => {
		const fail = (statusCode: number) =>
			new MockLanguageModelV3({
				doStream: async () => {
					throw new APICallError({
						message: "nope",
						url: "https://user:pw@models.example.com:8443/v1/chat/completions?key=abc",
						requestBodyValues: {},
						statusCode,
					});
				},
			});
		const step = (statusCode: number) =>
			runModelStep({
				model: fail(statusCode),
				agent: agents.prober,
				messages: opening,
				maxRetries: 0,
				retryDelayMs: 1,
				timeoutMs: 5_000,
			});
		const down = await step(502);
		expect(down).toMatchObject({ ok: false, code: "model-unavailable" });
		expect(down.ok || down.message).toMatch(/HTTP 502 from the model server models\.example\.com:8443\)/);
		const auth = await step(401);
		expect(auth).toMatchObject({ ok: false, code: "model-auth" });
		expect(auth.ok || auth.message).toMatch(/OPENAI_API_KEY.*learnharness doctor/);
		for (const outcome of [down, auth]) expect(outcome.ok || outcome.message).not.toMatch(/user|pw|key=abc|\/v1/);
	});
});
