/**
 * A lesson on OpenAI's Responses API (what `openai:gpt-4.1-mini` and a bare model id with OPENAI_API_KEY
 * use), through the real `@ai-sdk/openai` provider against the fake's `/v1/responses`, which refuses what
 * OpenAI refuses: a function tool is strict unless it says `strict: false`, and a strict schema needs every
 * property required (a free-answer quiz, whose `options` is optional, cannot be said in it). From the
 * probe to the recap, with a free-answer quiz and a typed answer the grader judges (its structured output
 * through `text.format`). The model comes from the configuration (LEARNHARNESS_MODEL=openai:gpt-4.1-mini with
 * OPENAI_API_KEY, through parseConfig and the provider registry), pointed at the fake by the provider's base URL.
 * A stream that fails (OpenAI's `error` and `response.failed` events) ends the turn with an error the learner
 * can act on; an exhausted quota is named as billing and not retried.
 */

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLanguageModel, OPENAI_API_URL } from "../../src/agent/models/index.ts";
import { modelOf } from "../../src/cli/services.ts";
import { parseConfig } from "../../src/config.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../testkit/fakes/openai.ts";
import { strictSchemaProblem } from "../../testkit/fakes/openai-responses.ts";
import { assessmentInput, harness, learner, planMermaid, tempDir } from "./helpers.ts";

const dir = tempDir();
let openai: FakeOpenAI;
beforeAll(async () => {
	openai = await startFakeOpenAI();
});
afterAll(async () => {
	await openai.close();
	dir.cleanup();
});

interface ResponsesBody {
	model: string;
	stream?: boolean;
	tools?: Array<{ type: string; name: string; strict?: boolean; parameters: unknown }>;
	text?: { format?: { type: string; name?: string; strict?: boolean } };
	input: unknown[];
}

/** LEARNHARNESS_MODEL=openai:gpt-4.1-mini with a key, read as `learnharness start` reads it, sent to the fake. */
function configuredModel() {
	const parsed = parseConfig({ LEARNHARNESS_MODEL: "openai:gpt-4.1-mini", OPENAI_API_KEY: "sk-test" });
	if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
	return modelOf({ ...parsed.config, model: { ...parsed.config.model, openai: { baseUrl: openai.baseURL } } });
}

const freeQuiz = {
	question: "A list has 8 items. Checking one by one, how many do you check in the worst case?",
	correctAnswer: "8",
};

describe("the fake's strict-schema rule (as OpenAI documents it)", () => {
	it("refuses an optional property, a missing additionalProperties: false and minLength; accepts a strict schema", () => {
		const strict = {
			type: "object",
			properties: { a: { type: "string" }, b: { type: ["string", "null"] } },
			required: ["a", "b"],
			additionalProperties: false,
		};
		expect(strictSchemaProblem(strict)).toBeUndefined();
		expect(strictSchemaProblem({ ...strict, required: ["a"] })).toMatch(/Missing 'b'/);
		expect(strictSchemaProblem({ ...strict, additionalProperties: undefined })).toMatch(/additionalProperties/);
		expect(
			strictSchemaProblem({ ...strict, properties: { ...strict.properties, a: { type: "string", minLength: 1 } } }),
		).toMatch(/'minLength' is not permitted/);
	});
});

describe("a lesson on the Responses API (openai:gpt-4.1-mini)", () => {
	it("runs from the probe to the recap with a free-answer quiz and a graded typed answer", async () => {
		const model = configuredModel();
		openai.reply(
			{ text: "One question first.", toolCalls: [{ id: "call_p1", name: "quiz", arguments: freeQuiz }] },
			{ toolCalls: [{ id: "call_pd", name: "probe_done", arguments: assessmentInput }] },
			{ toolCalls: [{ id: "call_plan", name: "plan_init", arguments: { mermaid: planMermaid } }] },
			{
				text: "Now a check.",
				toolCalls: [{ id: "call_t1", name: "quiz", arguments: { ...freeQuiz, type: "check" } }],
			},
			{ text: "Right: every item, 8 checks. That's the lesson: linear search looks at each item in turn." },
		);
		openai.replyStructured({ json: { verdict: "correct", reason: "All 8 items is 8 checks." } });
		const h = await harness(dir.path, model);
		const sessionId = "terminal:openai-responses";
		await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("error")).toEqual([]);
		expect(h.of("quiz")[0]).toMatchObject({ toolCallId: "call_p1" });

		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "call_p1", text: "8", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("assessment")).toHaveLength(1);
		expect(h.of("plan").length).toBeGreaterThan(0);

		const typed = {
			type: "reply",
			toolCallId: "call_t1",
			text: "I'd have to look at all of them",
			by: learner,
		} as const;
		expect(await h.tutor.handle(sessionId, typed)).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		const finals = h.of("answered").filter((a) => a.checking !== true);
		expect(finals.map((a) => a.result)).toEqual([
			{ answer: "8", correct: true, by: learner },
			{
				answer: "I'd have to look at all of them",
				correct: true,
				judged: "grader",
				reason: "All 8 items is 8 checks.",
				by: learner,
			},
		]);
		expect(h.of("text").at(-1)?.text).toMatch(/^Right: every item/);
		expect(h.of("error")).toEqual([]);
		expect(openai.remaining()).toBe(0);

		const bodies = openai.requests.map((r) => r.body as unknown as ResponsesBody);
		expect(openai.requests.every((r) => r.path === "/v1/responses")).toBe(true);
		expect(openai.requests.every((r) => r.headers.authorization === "Bearer sk-test")).toBe(true);
		expect(new Set(bodies.map((b) => b.model))).toEqual(new Set(["gpt-4.1-mini"]));
		const lesson = bodies.filter((b) => b.text?.format?.type !== "json_schema");
		expect(lesson).toHaveLength(5);
		for (const body of lesson) {
			expect(body.stream).toBe(true);
			// Every function tool says strict: false (OpenAI would otherwise hold it to strict mode).
			expect(body.tools?.every((t) => t.type === "function" && t.strict === false)).toBe(true);
		}
		const grading = bodies.filter((b) => b.text?.format?.type === "json_schema");
		expect(grading).toHaveLength(1);
		expect(grading[0]?.text?.format?.name).toBe("learnharness_grade");
		await h.tutor.close();
	});
});

describe("a failed Responses stream", () => {
	it("an error event before any output ends the turn with an error; the learner's next message runs it again", async () => {
		openai.requests.length = 0;
		openai.reply(
			{ streamError: { code: "server_error", message: "The server had an error while processing your request." } },
			{ text: "Here we go.", toolCalls: [{ id: "call_e1", name: "quiz", arguments: freeQuiz }] },
		);
		const h = await harness(dir.path, configuredModel(), { maxRetries: 0 });
		const sessionId = "terminal:responses-stream-error";
		await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("error")).toHaveLength(1);
		expect(h.of("quiz")).toEqual([]);
		expect(await h.tutor.handle(sessionId, { type: "message", text: "hello?", by: learner })).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		expect(h.of("quiz")[0]).toMatchObject({ toolCallId: "call_e1" });
		expect(openai.requests).toHaveLength(2);
		await h.tutor.close();
	});

	it("response.failed after some text ends the turn with an error, and the half-said text is not the tutor's reply", async () => {
		openai.requests.length = 0;
		openai.reply({
			text: "Let me think about linear search",
			streamError: { code: "server_error", message: "The model stopped.", afterText: true },
		});
		const h = await harness(dir.path, configuredModel(), { maxRetries: 0 });
		const sessionId = "terminal:responses-failed";
		await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("error")).toHaveLength(1);
		expect(h.of("quiz")).toEqual([]);
		await h.tutor.close();
	});

	it("insufficient_quota in the stream is named as billing and not retried", async () => {
		openai.requests.length = 0;
		openai.reply({
			streamError: {
				code: "insufficient_quota",
				message: "You exceeded your current quota, please check your plan and billing details.",
			},
		});
		const h = await harness(dir.path, configuredModel(), { maxRetries: 2, retryDelayMs: 5 });
		const sessionId = "terminal:responses-quota";
		await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(openai.requests).toHaveLength(1);
		expect(h.of("error")).toEqual([expect.objectContaining({ code: "model-quota" })]);
		await h.tutor.close();
	});
});

describe("where openai: goes", () => {
	it("to OpenAI, not to the OPENAI_BASE_URL server (the compatible one), unless told otherwise", () => {
		vi.stubEnv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
		try {
			// The provider's own request URL: @ai-sdk/openai fell back to OPENAI_BASE_URL when given no base URL.
			const urlOf = (model: unknown) =>
				(model as { config: { url: (o: { path: string; modelId: string }) => string } }).config.url({
					path: "/responses",
					modelId: "gpt-4.1-mini",
				});
			expect(urlOf(createLanguageModel({ model: "openai:gpt-4.1-mini", apiKey: "sk-test" }))).toBe(
				`${OPENAI_API_URL}/responses`,
			);
			expect(
				urlOf(
					createLanguageModel({
						model: "openai:gpt-4.1-mini",
						apiKey: "sk-test",
						openai: { baseUrl: "http://127.0.0.1:8/v1" },
					}),
				),
			).toBe("http://127.0.0.1:8/v1/responses");
		} finally {
			vi.unstubAllEnvs();
		}
	});
});
