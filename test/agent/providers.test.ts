import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLanguageModel } from "../../src/agent/models/index.ts";
import { jobModelsOf, modelOf } from "../../src/cli/services.ts";
import { parseConfig } from "../../src/config.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../../testkit/fakes/anthropic.ts";
import { type FakeGoogle, googleRoute, startFakeGoogle } from "../../testkit/fakes/google.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../testkit/fakes/openai.ts";
import { assessmentInput, harness, learner, probeQuiz, tempDir } from "./helpers.ts";

interface AnthropicBody {
	model: string;
	stream?: boolean;
	tools?: Array<{ name: string }>;
	messages: Array<{ role: string; content: Array<{ type: string; tool_use_id?: string; content?: unknown }> }>;
}
interface GoogleBody {
	tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
	contents: Array<{ role: string; parts: Array<{ functionResponse?: { name: string; response: unknown } }> }>;
}
interface ChatBody {
	model: string;
	tools?: Array<{ function: { name: string } }>;
}

const dir = tempDir();
let anthropic: FakeAnthropic;
let google: FakeGoogle;
let openai: FakeOpenAI;
beforeAll(async () => {
	[anthropic, google, openai] = await Promise.all([startFakeAnthropic(), startFakeGoogle(), startFakeOpenAI()]);
});
afterAll(async () => {
	await Promise.all([anthropic.close(), google.close(), openai.close()]);
	dir.cleanup();
});

const PROBER_TOOLS = ["quiz", "ask", "probe_done"];
const TEACHER_TOOLS = ["quiz", "ask", "explain", "plan_init"];

describe("models through the provider registry", () => {
	it("resolves each provider prefix, a bare id and the demo", () => {
		const settings = {
			apiKey: "sk-test",
			baseUrl: "http://127.0.0.1:9/v1",
			anthropic: { apiKey: "a", baseUrl: "http://127.0.0.1:9/v1" },
			google: { apiKey: "g", baseUrl: "http://127.0.0.1:9/v1beta" },
		};
		const of = (model: string, s: object = settings) => {
			const m = createLanguageModel({ ...s, model }) as { provider: string; modelId: string };
			return [m.provider, m.modelId];
		};
		expect(of("anthropic:claude-sonnet-4-5")).toEqual(["anthropic.messages", "claude-sonnet-4-5"]);
		expect(of("google:gemini-2.5-flash")).toEqual(["google.generative-ai", "gemini-2.5-flash"]);
		expect(of("openai:gpt-4.1-mini")).toEqual(["openai.responses", "gpt-4.1-mini"]);
		expect(of("compatible:llama3.1:8b")).toEqual(["openai.chat", "llama3.1:8b"]);
		// A bare id: the compatible server when one is configured (Ollama's tag colon is no provider), else OpenAI.
		expect(of("llama3.1:8b")).toEqual(["openai.chat", "llama3.1:8b"]);
		expect(of("gpt-4.1", { apiKey: "sk-test" })).toEqual(["openai.responses", "gpt-4.1"]);
		expect(of("ft:gpt-4.1-mini:org::x1", { apiKey: "sk-test" })).toEqual([
			"openai.responses",
			"ft:gpt-4.1-mini:org::x1",
		]);
		expect(of("demo")).toEqual(["learnharness", "demo"]);
		expect(() => of("compatible:x", { apiKey: "sk-test" })).toThrow(/compatible/);
		expect(() => of("mistral:large", { apiKey: "sk-test" })).toThrow(/unknown provider "mistral"/);
	});

	it("runs a lesson step on anthropic: (Messages API, SSE tool_use) and sends the answer back as a tool_result", async () => {
		anthropic.reply(
			{ text: "Hello Ada! A first question.", toolCalls: [{ id: "toolu_q1", name: "quiz", arguments: probeQuiz }] },
			{ text: "Noted.", toolCalls: [{ id: "toolu_pd", name: "probe_done", arguments: assessmentInput }] },
			{ text: "Let us start with unlike denominators." },
		);
		const model = createLanguageModel({
			model: "anthropic:fake-claude",
			anthropic: { apiKey: "test-anthropic", baseUrl: anthropic.baseURL },
		});
		const h = await harness(dir.path, model);
		const sessionId = "terminal:anthropic";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("text")[0]?.text).toBe("Hello Ada! A first question.");
		expect(h.of("quiz")[0]).toMatchObject({ toolCallId: "toolu_q1", input: probeQuiz });
		const first = anthropic.requests[0];
		expect(first?.path).toBe("/v1/messages");
		expect(first?.headers["x-api-key"]).toBe("test-anthropic");
		const body = first?.body as unknown as AnthropicBody;
		expect([body.model, body.stream]).toEqual(["fake-claude", true]);
		expect(body.tools?.map((t) => t.name)).toEqual(PROBER_TOOLS);

		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "toolu_q1", value: 1, by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("assessment")).toHaveLength(1);
		expect(h.of("text").at(-1)?.text).toBe("Let us start with unlike denominators.");
		expect(h.of("error")).toHaveLength(0);
		const second = anthropic.requests[1]?.body as unknown as AnthropicBody;
		const result = second.messages.flatMap((m) => m.content).find((c) => c.type === "tool_result");
		expect(result?.tool_use_id).toBe("toolu_q1");
		expect(JSON.stringify(result?.content)).toMatch(/3\/4/);
		const third = anthropic.requests[2]?.body as unknown as AnthropicBody | undefined;
		expect(third?.tools?.map((t) => t.name)).toEqual(TEACHER_TOOLS);
		expect((await h.tutor.getSession(sessionId))?.usage).toEqual({
			inputTokens: 300,
			outputTokens: 60,
			cachedInputTokens: 0,
		});
		await h.tutor.close();
	});

	it("runs a lesson step on google: (streamGenerateContent SSE, functionCall parts) and answers with a functionResponse", async () => {
		google.reply(
			{ text: "Hi Ada, one question first.", toolCalls: [{ name: "quiz", arguments: probeQuiz }] },
			{ text: "Thanks, that tells me where to start." },
		);
		const model = createLanguageModel({
			model: "google:fake-gemini",
			google: { apiKey: "test-google", baseUrl: google.baseURL },
		});
		const h = await harness(dir.path, model);
		const sessionId = "terminal:google";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		const quiz = h.of("quiz")[0];
		expect(quiz).toMatchObject({ input: probeQuiz });
		expect(h.of("text")[0]?.text).toBe("Hi Ada, one question first.");
		const first = google.requests[0];
		expect(googleRoute(first?.path ?? "")).toEqual({ model: "fake-gemini", method: "streamGenerateContent" });
		expect(first?.path).toMatch(/\?alt=sse$/);
		expect(first?.headers["x-goog-api-key"]).toBe("test-google");
		const body = first?.body as unknown as GoogleBody;
		expect(body.tools?.flatMap((t) => t.functionDeclarations ?? []).map((f) => f.name)).toEqual(PROBER_TOOLS);

		await h.tutor.handle(sessionId, { type: "answer", toolCallId: quiz?.toolCallId ?? "", value: 0, by: learner });
		await h.tutor.idle(sessionId);
		const second = google.requests[1]?.body as unknown as GoogleBody;
		const response = second.contents.flatMap((c) => c.parts).find((p) => p.functionResponse)?.functionResponse;
		expect(response?.name).toBe("quiz");
		expect(JSON.stringify(response?.response)).toMatch(/2\/6/);
		expect(h.of("text").at(-1)?.text).toBe("Thanks, that tells me where to start.");
		expect(h.of("error")).toHaveLength(0);
		await h.tutor.close();
	});

	it("runs the prober and the teacher on different models from LEARNHARNESS_MODEL_PROBER/_TEACHER", async () => {
		const parsed = parseConfig({
			LEARNHARNESS_MODEL: "compatible:fake-default",
			LEARNHARNESS_MODEL_PROBER: "compatible:fake-small",
			LEARNHARNESS_MODEL_TEACHER: "anthropic:fake-big",
			OPENAI_BASE_URL: openai.baseURL,
			ANTHROPIC_API_KEY: "test-anthropic",
			ANTHROPIC_BASE_URL: anthropic.baseURL,
		});
		if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
		const models = jobModelsOf(parsed.config);
		expect(models && Object.keys(models)).toEqual(["prober", "teacher"]);
		const openaiBefore = openai.requests.length;
		const anthropicBefore = anthropic.requests.length;
		openai.reply(
			{ text: "Quick check first.", toolCalls: [{ id: "call_q1", name: "quiz", arguments: probeQuiz }] },
			{ toolCalls: [{ id: "call_pd", name: "probe_done", arguments: assessmentInput }] },
		);
		anthropic.reply({ text: "Teaching now, on the big model." });
		const h = await harness(dir.path, modelOf(parsed.config), { ...(models ? { models } : {}) });
		const sessionId = "terminal:two-models";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "call_q1", value: 1, by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("assessment")).toHaveLength(1);
		expect(h.of("text").at(-1)?.text).toBe("Teaching now, on the big model.");
		expect(h.of("error")).toHaveLength(0);

		// The fakes' logs: the small model served every prober step, the big one every teacher step.
		const small = openai.requests.slice(openaiBefore).map((r) => r.body as unknown as ChatBody);
		const big = anthropic.requests.slice(anthropicBefore).map((r) => r.body as unknown as AnthropicBody);
		expect(small.map((b) => b.model)).toEqual(["fake-small", "fake-small"]);
		expect(small.every((b) => b.tools?.map((t) => t.function.name).join() === PROBER_TOOLS.join())).toBe(true);
		expect(big.map((b) => b.model)).toEqual(["fake-big"]);
		expect(big[0]?.tools?.map((t) => t.name)).toEqual(TEACHER_TOOLS);
		// The transcript says which agent spoke; the default model (fake-default) was never asked.
		expect(openai.requests.some((r) => r.body.model === "fake-default")).toBe(false);
		await h.tutor.close();
	});
});
