import { describe, expect, it } from "vitest";
import { assessmentInput, harness, learner, probeQuiz, useFakeOpenAI } from "./helpers.ts";

const suite = useFakeOpenAI();

interface ChatBody {
	model: string;
	stream: boolean;
	messages: Array<{ role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }>;
	tools?: Array<{ type: string; function: { name: string; parameters: unknown } }>;
}

describe("the real @ai-sdk/openai provider against a chat-completions fake (SSE)", () => {
	it("streams text and tool calls into a lesson; requests keep a stable prefix; retries a 500", async () => {
		suite.fake.reply(
			{
				text: "Hello Ada! First, a quick question.",
				toolCalls: [{ id: "call_q1", name: "quiz", arguments: probeQuiz }],
			},
			// a 500 first: the SDK retries it (maxRetries 1), then the scripted reply streams
			{ status: 500, retryAfterMs: 10 },
			{ text: "Thanks!", toolCalls: [{ id: "call_pd", name: "probe_done", arguments: assessmentInput }] },
			{ text: "Now the teacher: what do you know about unlike denominators?", usage: { cachedTokens: 64 } },
		);
		const fake = suite.fake;
		const h = await harness(suite.dir.path, suite.model(), { maxRetries: 1, retryDelayMs: 5 });
		const sessionId = "terminal:openai";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("text")[0]?.text).toBe("Hello Ada! First, a quick question.");
		expect(h.of("quiz")[0]).toMatchObject({ toolCallId: "call_q1", input: probeQuiz });

		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "call_q1", value: 0, by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("answered")[0]?.result).toMatchObject({ answer: "2/6", correct: false });
		expect(h.of("assessment")).toHaveLength(1);
		expect(h.of("text").at(-1)?.text).toMatch(/^Now the teacher/);
		expect(h.of("error")).toHaveLength(0);
		expect(fake.remaining()).toBe(0);

		const bodies = fake.requests.map((r) => r.body as unknown as ChatBody);
		expect(fake.requests.every((r) => r.path === "/v1/chat/completions")).toBe(true);
		expect(fake.requests[0]?.headers.authorization).toBe("Bearer test-key");
		expect(bodies.every((b) => b.stream === true && b.model === "fake-llama")).toBe(true);
		expect(bodies[0]?.tools?.map((t) => t.function.name)).toEqual(["quiz", "ask", "probe_done"]);
		expect(bodies.at(-1)?.tools?.map((t) => t.function.name)).toEqual(["quiz", "ask", "explain", "plan_init"]);
		// The answer went back as the quiz's tool result.
		const toolMessage = bodies[1]?.messages.find((m) => m.role === "tool");
		expect(toolMessage?.tool_call_id).toBe("call_q1");
		expect(JSON.parse(String(toolMessage?.content))).toMatchObject({ answer: "2/6", correct: false });
		// Request 2 (the retry repeats it) starts with every message of request 1, byte for byte.
		const first = JSON.stringify(bodies[0]?.messages);
		const second = JSON.stringify(bodies[2]?.messages);
		expect(second.startsWith(first.slice(0, -1))).toBe(true);
		expect(fake.requests[1]?.raw).toBe(fake.requests[2]?.raw);
		const usage = (await h.tutor.getSession(sessionId))?.usage;
		expect(usage).toEqual({ inputTokens: 300, outputTokens: 60, cachedInputTokens: 64 });
		await h.tutor.close();
	});
});
