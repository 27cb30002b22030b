/**
 * The model step calls the provider's doStream itself, with its own prompt and tool
 * conversion (src/agent/engine/model-step.ts, model-prompt.ts). These tests guard that
 * shortcut: the request it sends
 * equals the one `streamText` sends for the same messages and tools (at the provider
 * interface and on the wire, through the real @ai-sdk/openai chat provider), and every way
 * an attempt can end (a close, a timeout, a provider error mid-stream, a late answer) leaves
 * no timer, listener or open stream behind.
 */

import { getEventListeners } from "node:events";
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { APICallError, convertToModelMessages, MissingToolResultsError, type ModelMessage, streamText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgents, type LessonAgent } from "../../../src/agent/engine/agents.ts";
import { toModelMessages } from "../../../src/agent/engine/model-messages.ts";
import { runModelStep } from "../../../src/agent/engine/model-step.ts";
import type { LessonMessage } from "../../../src/agent/store/types.ts";
import { replyStream } from "../../fixtures/model-stream.ts";
import { assessmentInput, harness, learner, planMermaid, probeQuiz, scriptedModel, useFakeOpenAI } from "../helpers.ts";

const suite = useFakeOpenAI();
const agents = createAgents();

/** A lesson transcript with every kind of part the engine writes (reasoning, answered, refused, skipped calls). */
async function lessonTranscript(): Promise<LessonMessage[]> {
	const model = scriptedModel([
		{ reasoning: "Start easy.", text: "Hi Ada!", calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
		{
			calls: [
				{ name: "no_such_tool", input: { x: 1 }, id: "bad" },
				{ name: "quiz", raw: '{"question": "broken', id: "broken" },
				{ name: "probe_done", input: assessmentInput, id: "pd" },
			],
		},
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
		{
			text: "Guess first.",
			calls: [
				{ name: "explain", input: { body: "A common denominator…", role: "concept", nodeId: "unlike" }, id: "e1" },
				{ name: "ask", input: { question: "How sure are you?" }, id: "a1" },
			],
		},
	]);
	const h = await harness(suite.dir.path, model);
	const sessionId = "terminal:model-step-transcript";
	await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
	await h.tutor.idle(sessionId);
	await h.tutor.handle(sessionId, { type: "answer", toolCallId: "p1", value: 1, by: learner });
	await h.tutor.idle(sessionId);
	await h.tutor.handle(sessionId, { type: "message", text: "Not sure, can you explain again?", by: learner });
	await h.tutor.idle(sessionId);
	const record = await h.store.get(sessionId);
	await h.tutor.close();
	if (!record) throw new Error("the lesson was not saved");
	return record.messages;
}

/** What a provider receives, without the per-call abort signal. */
const sent = (options: LanguageModelV3CallOptions | undefined) => {
	const { abortSignal: _signal, ...rest } = options ?? ({} as LanguageModelV3CallOptions);
	return JSON.parse(JSON.stringify(rest)) as unknown;
};

/**
 * streamText on the same model, messages and tools, read to its end. On OpenAI's providers the step marks every
 * tool `strict: false` (the Responses API would hold it to strict mode): streamText is given the same tools.
 */
async function viaStreamText(model: LanguageModelV3, agent: LessonAgent, messages: ModelMessage[]): Promise<void> {
	const tools = model.provider.startsWith("openai")
		? Object.fromEntries(Object.entries(agent.toolSet).map(([name, t]) => [name, { ...t, strict: false }]))
		: agent.toolSet;
	const result = streamText({
		model,
		system: agent.system,
		messages,
		tools,
		maxRetries: 0,
		onError: () => {},
	});
	await result.consumeStream();
}

const step = (model: LanguageModelV3, agent: LessonAgent, messages: ModelMessage[], more = {}) =>
	runModelStep({
		model,
		agent,
		messages,
		maxRetries: 0,
		retryDelayMs: 1,
		timeoutMs: 10_000,
		totalTimeoutMs: 60_000,
		...more,
	});

/** Both ways send the same call options (at the provider interface) and the same HTTP request (on the wire). */
async function expectSameRequest(agent: LessonAgent, messages: ModelMessage[]): Promise<void> {
	const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: replyStream({ text: "ok" }) }) });
	await viaStreamText(mock, agent, messages);
	expect(await step(mock, agent, messages)).toMatchObject({ ok: true });
	const [theirs, ours] = mock.doStreamCalls;
	expect(sent(ours)).toEqual(sent(theirs));
	expect(ours?.tools?.map((t) => t.name)).toEqual(Object.keys(agent.toolSet));

	suite.fake.reply({ text: "ok" }, { text: "ok" });
	const before = suite.fake.requests.length;
	const model = suite.model() as LanguageModelV3;
	await viaStreamText(model, agent, messages);
	expect(await step(model, agent, messages)).toMatchObject({ ok: true });
	const [wire1, wire2] = suite.fake.requests.slice(before);
	expect(wire1?.raw.length).toBeGreaterThan(1000);
	expect(wire2?.raw).toBe(wire1?.raw);
	expect(wire2?.headers["user-agent"]).toBe(wire1?.headers["user-agent"]);
}

/** A 1x1 PNG (the SDK sniffs image bytes; a true PNG keeps its media type either way). */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/**
 * A multi-step transcript as model messages, with what the engine's own transcripts never hold
 * but a provider must still receive intact: a string assistant reply, a tool error in text and in
 * JSON, a content result, two tool messages in a row (the SDK merges them), an empty text part.
 */
const multiStep: ModelMessage[] = [
	{ role: "user", content: "Topic: fractions. Learner: Ada." },
	{
		role: "assistant",
		content: [
			{ type: "reasoning", text: "Probe the basics first." },
			{ type: "text", text: "Two quick questions." },
			{ type: "tool-call", toolCallId: "c1", toolName: "quiz", input: probeQuiz },
			{ type: "tool-call", toolCallId: "c2", toolName: "ask", input: { question: "How sure are you?" } },
		],
	},
	{
		role: "tool",
		content: [
			{ type: "tool-result", toolCallId: "c1", toolName: "quiz", output: { type: "json", value: { correct: true } } },
		],
	},
	{
		role: "tool",
		content: [
			{
				type: "tool-result",
				toolCallId: "c2",
				toolName: "ask",
				output: { type: "error-text", value: "already-answered: this question was answered before." },
			},
		],
	},
	{
		role: "assistant",
		content: [
			{ type: "text", text: "" },
			{ type: "tool-call", toolCallId: "c3", toolName: "probe_done", input: { assessment: "none" } },
		],
	},
	{
		role: "tool",
		content: [
			{
				type: "tool-result",
				toolCallId: "c3",
				toolName: "probe_done",
				output: { type: "error-json", value: { error: "schema", path: "/assessment" } },
			},
		],
	},
	{ role: "assistant", content: "Let me explain instead." },
	{
		role: "user",
		content: [
			{ type: "text", text: "" },
			{ type: "text", text: "ok, go on" },
		],
	},
	{
		role: "assistant",
		content: [
			{ type: "tool-call", toolCallId: "c4", toolName: "explain", input: { body: "A half…", role: "concept" } },
		],
	},
	{
		role: "tool",
		content: [
			{
				type: "tool-result",
				toolCallId: "c4",
				toolName: "explain",
				output: { type: "content", value: [{ type: "text", text: "shown to the learner" }] },
			},
		],
	},
	{ role: "user", content: "thanks!" },
];

describe("the model step sends what streamText sends", () => {
	it("the same provider call options and the same HTTP request, for both agents", async () => {
		const transcript = await lessonTranscript();
		// The memoized per-message conversion equals converting the whole transcript at once.
		const messages = await toModelMessages(transcript);
		expect(messages).toEqual(await convertToModelMessages(transcript));
		const hasReasoning = messages.some(
			(m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some((p) => p.type === "reasoning"),
		);
		expect(hasReasoning).toBe(true);
		// The refused calls of the script come back as tool errors.
		const toolErrors = messages.flatMap((m) =>
			m.role === "tool" ? m.content.filter((p) => p.type === "tool-result" && p.output.type === "error-text") : [],
		);
		expect(toolErrors.length).toBeGreaterThanOrEqual(2);
		for (const agent of [agents.prober, agents.teacher]) await expectSameRequest(agent, messages);
	});

	it("a maximum output (what cost caps reserve) is sent as streamText sends maxOutputTokens", async () => {
		const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: replyStream({ text: "ok" }) }) });
		const result = streamText({
			model: mock,
			system: agents.teacher.system,
			messages: multiStep,
			tools: agents.teacher.toolSet,
			maxOutputTokens: 1_234,
			maxRetries: 0,
			onError: () => {},
		});
		await result.consumeStream();
		expect(await step(mock, agents.teacher, multiStep, { maxOutputTokens: 1_234 })).toMatchObject({ ok: true });
		const [theirs, ours] = mock.doStreamCalls;
		expect(ours?.maxOutputTokens).toBe(1_234);
		expect(sent(ours)).toEqual(sent(theirs));
	});

	it("a multi-step transcript with tool errors (text and JSON), merged tool messages and empty parts", async () => {
		for (const agent of [agents.prober, agents.teacher]) await expectSameRequest(agent, multiStep);
	});

	it("images and files given inline (a data URL, base64 with a media type)", async () => {
		const pictures = [
			{ type: "text" as const, text: "What is in this picture?" },
			{ type: "image" as const, image: `data:image/png;base64,${PNG}` },
			{ type: "image" as const, image: PNG, mediaType: "image/png" },
		];
		const text = { type: "file" as const, data: "aGVsbG8=", mediaType: "text/plain", filename: "hello.txt" };
		const withFiles: ModelMessage[] = [{ role: "user", content: [...pictures, text] }];
		const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: replyStream({ text: "ok" }) }) });
		await viaStreamText(mock, agents.prober, withFiles);
		expect(await step(mock, agents.prober, withFiles)).toMatchObject({ ok: true });
		const [theirs, ours] = mock.doStreamCalls;
		expect(sent(ours)).toEqual(sent(theirs));
		// On the wire: the chat provider sends images as data URLs (it refuses text files, so only those).
		const images: ModelMessage[] = [{ role: "user", content: pictures }];
		suite.fake.reply({ text: "ok" }, { text: "ok" });
		const before = suite.fake.requests.length;
		const model = suite.model() as LanguageModelV3;
		await viaStreamText(model, agents.prober, images);
		expect(await step(model, agents.prober, images)).toMatchObject({ ok: true });
		const [wire1, wire2] = suite.fake.requests.slice(before);
		expect(wire1?.raw).toContain(PNG);
		expect(wire2?.raw).toBe(wire1?.raw);
	});

	it("a call without a result is refused before anything is sent, as streamText refuses it", async () => {
		const open: ModelMessage[] = [
			{ role: "assistant", content: [{ type: "tool-call", toolCallId: "x", toolName: "quiz", input: probeQuiz }] },
			{ role: "user", content: "hello?" },
		];
		const mock = new MockLanguageModelV3({ doStream: async () => ({ stream: replyStream({ text: "ok" }) }) });
		const outcome = await step(mock, agents.prober, open);
		expect(outcome).toMatchObject({ ok: false, code: "model-error" });
		expect(outcome.ok || outcome.message).toMatch(/Tool result is missing for tool call x/);
		expect(mock.doStreamCalls).toHaveLength(0);
		let theirs: unknown;
		await streamText({
			model: mock,
			messages: open,
			maxRetries: 0,
			onError: ({ error }) => {
				theirs = error;
			},
		}).consumeStream();
		expect(MissingToolResultsError.isInstance(theirs)).toBe(true);
	});
});

/** A stream that sends `parts`, then either stays open or fails; records its cancellation. */
function openStream(parts: LanguageModelV3StreamPart[]) {
	const state = { cancelled: false };
	const stream = new ReadableStream<LanguageModelV3StreamPart>({
		start(controller) {
			for (const p of parts) controller.enqueue(p);
		},
		cancel() {
			state.cancelled = true;
		},
	});
	return { stream, state };
}

/** A bare LanguageModelV3 whose doStream is `doStream`. */
const modelWith = (doStream: LanguageModelV3["doStream"]): LanguageModelV3 => ({
	specificationVersion: "v3",
	provider: "test",
	modelId: "test",
	supportedUrls: {},
	doGenerate: () => Promise.reject(new Error("the engine streams")),
	doStream,
});

/**
 * Watch the timers model-step.ts and model-retry.ts arm (setTimeout/clearTimeout are spied until afterEach
 * restores them; vitest's own waits use the real ones): `live()` counts those neither fired
 * nor cleared.
 */
function watchTimers(): { live(): number } {
	const pending = new Set<unknown>();
	const realSet = globalThis.setTimeout;
	const realClear = globalThis.clearTimeout;
	vi.spyOn(globalThis, "setTimeout").mockImplementation(((
		callback: (...args: unknown[]) => void,
		ms?: number,
		...args: unknown[]
	) => {
		const handle = realSet(() => {
			pending.delete(handle);
			callback(...args);
		}, ms);
		// Only the step's own timers (a keep-alive timer of an HTTP client may start meanwhile).
		if (/model-(step|retry)\.ts/.test(new Error().stack ?? "")) pending.add(handle);
		return handle;
	}) as typeof setTimeout);
	vi.spyOn(globalThis, "clearTimeout").mockImplementation((handle) => {
		pending.delete(handle);
		realClear(handle);
	});
	return { live: () => pending.size };
}
const opening: ModelMessage[] = [{ role: "user", content: "Topic: fractions" }];
const start: LanguageModelV3StreamPart = { type: "stream-start", warnings: [] };
const delta: LanguageModelV3StreamPart[] = [
	{ type: "text-start", id: "t" },
	{ type: "text-delta", id: "t", delta: "half a sen" },
];

describe("every way an attempt ends cleans up", () => {
	afterEach(() => {
		vi.restoreAllMocks();
	});

	it("a close mid-stream: 'closed', the stream cancelled, no timer or abort listener left", async () => {
		const timers = watchTimers();
		const close = new AbortController();
		const open = openStream([start, ...delta]);
		const model = modelWith(async () => {
			// After the parts already sent are read: the close comes while the step waits for more.
			setImmediate(() => close.abort());
			return { stream: open.stream };
		});
		const outcome = await step(model, agents.prober, opening, { abortSignal: close.signal, maxRetries: 2 });
		expect(outcome).toMatchObject({ ok: false, code: "closed" });
		expect(open.state.cancelled).toBe(true);
		expect(getEventListeners(close.signal, "abort")).toHaveLength(0);
		expect(timers.live()).toBe(0);
	});

	it("a model that ignores the abort and answers late: its stream is cancelled when it arrives", async () => {
		const timers = watchTimers();
		const close = new AbortController();
		let answer: (value: { stream: ReadableStream<LanguageModelV3StreamPart> }) => void = () => {};
		const model = modelWith(() => {
			queueMicrotask(() => close.abort());
			return new Promise((resolve) => {
				answer = resolve;
			});
		});
		const outcome = await step(model, agents.prober, opening, { abortSignal: close.signal });
		expect(outcome).toMatchObject({ ok: false, code: "closed" });
		const late = openStream([start, ...delta]);
		answer({ stream: late.stream });
		await vi.waitFor(() => expect(late.state.cancelled).toBe(true), { timeout: 2_000, interval: 5 });
		expect(timers.live()).toBe(0);
	});

	it("a stream that stalls: each attempt times out and is cancelled, then 'model-timeout'", async () => {
		const timers = watchTimers();
		const opened: Array<ReturnType<typeof openStream>> = [];
		const model = modelWith(async () => {
			const open = openStream([start, ...delta]);
			opened.push(open);
			return { stream: open.stream };
		});
		const outcome = await step(model, agents.prober, opening, { maxRetries: 1, timeoutMs: 30 });
		expect(outcome).toMatchObject({ ok: false, code: "model-timeout" });
		expect(outcome.ok || outcome.message).toMatch(/2 attempts/);
		expect(opened.map((o) => o.state.cancelled)).toEqual([true, true]);
		expect(timers.live()).toBe(0);
	});

	it("an error part mid-stream fails the step (not retried), nothing of the half reply is kept", async () => {
		let calls = 0;
		const failing = openStream([start, ...delta, { type: "error", error: { message: "the model overloaded" } }]);
		const model = modelWith(async () => {
			calls++;
			return { stream: failing.stream };
		});
		const outcome = await step(model, agents.prober, opening, { maxRetries: 2 });
		expect(outcome).toMatchObject({ ok: false, code: "model-error" });
		expect(outcome.ok || outcome.message).toMatch(/the model overloaded/);
		expect(calls).toBe(1);
		expect(failing.state.cancelled).toBe(true);
	});

	it("a retryable provider error mid-stream is retried; only the retry's reply is kept, no listener left", async () => {
		const overloaded = new APICallError({
			message: "overloaded",
			url: "http://127.0.0.1/v1/chat/completions",
			requestBodyValues: {},
			statusCode: 503,
			isRetryable: true,
		});
		const replies = [
			openStream([start, ...delta, { type: "error", error: overloaded }]).stream,
			replyStream({ text: "Whole reply.", calls: [{ name: "quiz", input: probeQuiz, id: "q" }] }),
		];
		const model = modelWith(async () => ({ stream: replies.shift() as ReadableStream<LanguageModelV3StreamPart> }));
		const open = new AbortController();
		const outcome = await step(model, agents.prober, opening, { maxRetries: 1, abortSignal: open.signal });
		expect(outcome.ok).toBe(true);
		// Neither the attempts nor the backoff between them left a listener on the tutor's signal.
		expect(getEventListeners(open.signal, "abort")).toHaveLength(0);
		if (!outcome.ok) return;
		expect(outcome.content).toEqual([
			{ type: "text", text: "Whole reply." },
			{ type: "tool-call", toolCallId: "q", toolName: "quiz", input: probeQuiz },
		]);
		expect(replies).toHaveLength(0);
	});

	it("a close during the retry backoff ends the wait at once and leaves no timer", async () => {
		const timers = watchTimers();
		const close = new AbortController();
		const model = modelWith(async () => {
			setImmediate(() => close.abort());
			throw new APICallError({
				message: "busy",
				url: "http://127.0.0.1/v1/chat/completions",
				requestBodyValues: {},
				statusCode: 429,
				isRetryable: true,
			});
		});
		// A minute of backoff: the test's own timeout fails it if the close does not cut the wait.
		const outcome = await step(model, agents.prober, opening, {
			abortSignal: close.signal,
			maxRetries: 3,
			retryDelayMs: 60_000,
		});
		expect(outcome).toMatchObject({ ok: false, code: "rate-limited" });
		expect(getEventListeners(close.signal, "abort")).toHaveLength(0);
		expect(timers.live()).toBe(0);
	});
});
