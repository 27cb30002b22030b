/**
 * Recorded OpenAI replies (testkit/fixtures/recorded/openai: the AI SDK's recorded Responses and chat-completions
 * streams, the official Python SDK's recorded chat streams, recorded error bodies) served byte for byte from a
 * loopback server to the real `@ai-sdk/openai` provider, read by the engine's model step (runModelStep): what the
 * step makes of each (text, tool calls parsed and checked against the lesson's tools, an error named).
 */

import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "../../src/agent/engine/agents.ts";
import { runModelStep, type StepOutcome } from "../../src/agent/engine/model-step.ts";
import { entriesOf, type RecordedEntry, readObject, readStream } from "./payloads.ts";
import { type RecordedServer, startRecordedServer } from "./stream-server.ts";

let server: RecordedServer;
beforeAll(async () => {
	server = await startRecordedServer();
});
afterAll(async () => {
	await server?.close();
});

const agents = createAgents();
/** The prober's tools: what a call to anything else is refused as. */
const UNKNOWN = /^Unknown tool "[^"]+"\. Your tools are: quiz, ask, probe_done\.$/;

type Ok = Extract<StepOutcome, { ok: true }>;
type Failed = Extract<StepOutcome, { ok: false }>;

function ok(outcome: StepOutcome): Ok {
	if (!outcome.ok) throw new Error(`the step failed: ${outcome.code}: ${outcome.message}`);
	return outcome;
}
function failed(outcome: StepOutcome): Failed {
	if (outcome.ok) throw new Error("the step succeeded");
	return outcome;
}
const calls = (o: Ok) => o.content.filter((c) => c.type === "tool-call");
/** The step's texts as the thread shows them (settle-step.ts: separate texts are paragraphs). */
const text = (o: Ok) =>
	o.content
		.filter((c) => c.type === "text")
		.map((c) => c.text)
		.join("\n\n");

/** Each recorded reply's expected outcome, by file. */
const EXPECT: Record<string, (outcome: StepOutcome) => void> = {
	"openai/responses-function-call.json": (outcome) => {
		const o = ok(outcome);
		expect(o.finishReason).toBe("tool-calls");
		expect(calls(o)).toEqual([
			expect.objectContaining({
				toolCallId: "call_Q7pq6EfVGRnauPLWSSYBGJ1l",
				toolName: "get_weather",
				input: { location: "San Francisco, CA", unit: "fahrenheit" },
				refused: expect.stringMatching(UNKNOWN),
			}),
		]);
		expect(o.usage).toEqual({ inputTokens: 467, outputTokens: 26, cachedInputTokens: 0 });
	},
	"openai/responses-tool-search-function-call.json": (outcome) => {
		const o = ok(outcome);
		// The hosted tool search comes back as a call like any other: refused, so the model hears it is not ours.
		expect(calls(o).map((c) => [c.toolName, c.refused !== undefined])).toEqual([
			["tool_search", true],
			["get_weather", true],
		]);
		expect(calls(o)[1]?.input).toEqual({ location: "San Francisco, CA", unit: "fahrenheit" });
	},
	"openai/responses-reasoning-function-calls.json": (outcome) => {
		const o = ok(outcome);
		const reasoning = o.content.find((c) => c.type === "reasoning");
		expect(reasoning?.type === "reasoning" && reasoning.text).toMatch(/^\*\*Calculating step-by-step/);
		// The encrypted reasoning is kept for the replay of the next request.
		expect(JSON.stringify(reasoning)).toContain("reasoningEncryptedContent");
		expect(calls(o).length).toBeGreaterThan(0);
		expect(calls(o).every((c) => c.toolName === "calculator" && UNKNOWN.test(c.refused ?? ""))).toBe(true);
	},
	"openai/responses-error-insufficient-quota.json": (outcome) => {
		const o = failed(outcome);
		// A quota error mid-stream is named as what it is (billing), not "busy" or a generic failure.
		expect(o.code).toBe("model-quota");
		expect(o.message).toMatch(/no credit left/);
		expect(o.message).toMatch(/billing/);
	},
	"openai/responses-text-two-messages.json": (outcome) => {
		const o = ok(outcome);
		expect(o.finishReason).toBe("stop");
		expect(text(o)).toContain("Got it");
		expect(text(o)).toContain("Here are a few **AI");
	},
	"openai/responses-azure-tool-call.json": (outcome) => {
		const o = ok(outcome);
		expect(calls(o)).toEqual([
			expect.objectContaining({
				toolName: "weather",
				input: { location: "San Francisco" },
				refused: expect.any(String),
			}),
		]);
	},
	"openai/responses-azure-text.json": (outcome) => {
		const o = ok(outcome);
		expect(o.content).toEqual([{ type: "text", text: "Hello" }]);
		expect(o.finishReason).toBe("stop");
	},
	"openai/chat-text.json": (outcome) => {
		const o = ok(outcome);
		expect(text(o)).toMatch(/^\*\*Holiday Name:\*\* Harmony Day\n\n/);
		expect(calls(o)).toEqual([]);
	},
	"openai/chat-error-unsupported-parameter.json": (outcome) => {
		const o = failed(outcome);
		// Refused as asked: named as such, with the service's own reason (a retry never helps).
		expect(o.code).toBe("model-refused");
		expect(o.message).toMatch(/HTTP 400.*(Unsupported|unsupported)/);
	},
	"openai/responses-error-unsupported-temperature.json": (outcome) => {
		const o = failed(outcome);
		// Refused as asked: named as such, with the service's own reason (a retry never helps).
		expect(o.code).toBe("model-refused");
		expect(o.message).toMatch(/HTTP 400.*(Unsupported|unsupported)/);
	},
	"openai/chat-tool-call-get-weather.json": (outcome) => {
		const o = ok(outcome);
		expect(o.finishReason).toBe("tool-calls");
		expect(calls(o)).toEqual([
			expect.objectContaining({
				toolCallId: "call_4XzlGBLtUe9dy3GVNV4jhq7h",
				toolName: "get_weather",
				input: { city: "New York City" },
				refused: expect.stringMatching(UNKNOWN),
			}),
		]);
	},
	"openai/chat-tool-call-strict.json": (outcome) => {
		expect(calls(ok(outcome)).map((c) => c.input)).toEqual([{ city: "San Francisco", state: "CA" }]);
	},
	"openai/chat-tool-call-pydantic.json": (outcome) => {
		expect(calls(ok(outcome)).map((c) => [c.toolName, c.input])).toEqual([
			["GetWeatherArgs", { city: "Edinburgh", country: "UK", units: "c" }],
		]);
	},
	"openai/chat-parallel-tool-calls.json": (outcome) => {
		const o = ok(outcome);
		// Two calls streamed interleaved by index come apart whole, each with its own id.
		expect(calls(o).map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
			["call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", { city: "Edinburgh", country: "GB", units: "c" }],
			["call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", { ticker: "AAPL", exchange: "NASDAQ" }],
		]);
	},
	"openai/chat-refusal.json": (outcome) => {
		const o = ok(outcome);
		// The model's refusal is its reply: the learner reads it (the step ends as a content filter).
		expect(text(o)).toBe("I'm sorry, I can't assist with that request.");
		expect(o.finishReason).toBe("content-filter");
	},
	"openai/chat-structured-text.json": (outcome) => {
		expect(JSON.parse(text(ok(outcome)))).toEqual({ city: "San Francisco", temperature: 61, units: "f" });
	},
};

async function replay(entry: RecordedEntry): Promise<StepOutcome> {
	const provider = createOpenAI({ baseURL: server.baseURL, apiKey: "test-key" });
	if (entry.kind === "openai-error-body") {
		const recorded = readObject(entry.file);
		server.serve({ status: Number(recorded.status), body: recorded.body });
	} else server.serve({ events: readStream(entry.file) });
	// The file says which API recorded it: a chat-completions reply goes to openai.chat, the rest to the Responses API.
	const chat = entry.file.startsWith("openai/chat-");
	const model = chat ? provider.chat("gpt-4o") : provider.responses("gpt-4.1-mini");
	const before = server.requests.length;
	const outcome = await runModelStep({
		model,
		agent: agents.prober,
		messages: [{ role: "user", content: "Teach me fractions." }],
		maxRetries: 0,
		retryDelayMs: 1,
		timeoutMs: 10_000,
	});
	const request = server.requests[before];
	expect(request?.path).toBe(chat ? "/v1/chat/completions" : "/v1/responses");
	return outcome;
}

describe("recorded OpenAI replies through @ai-sdk/openai and the model step", () => {
	const entries = entriesOf("openai-responses-stream", "openai-chat-stream", "openai-error-body");

	it.each(entries.map((e) => [e.file, e] as const))("%s", async (file, entry) => {
		const expectation = EXPECT[file];
		if (!expectation) throw new Error(`no expectation for ${file}`);
		expectation(await replay(entry));
	});

	it("asks the Responses API with every function tool marked strict: false", async () => {
		const entry = entries.find((e) => e.file === "openai/responses-function-call.json");
		if (!entry) throw new Error("missing fixture");
		const before = server.requests.length;
		await replay(entry);
		const tools = server.requests[before]?.body.tools as Array<{ type: string; strict?: boolean }>;
		expect(tools.map((t) => [t.type, t.strict])).toEqual(tools.map(() => ["function", false]));
	});

	// Two output messages of one Responses reply (gpt-5.3-codex's "commentary", then its "final_answer") stay apart
	// (they ran together as "Got itHere are a few" when every delta went to the last text part).
	it("keeps the two output messages of one reply apart", async () => {
		const entry = entries.find((e) => e.file === "openai/responses-text-two-messages.json");
		if (!entry) throw new Error("missing fixture");
		const o = ok(await replay(entry));
		expect(text(o)).not.toContain("Got itHere");
	});

	// A 400 names OpenAI's reason ("Unsupported parameter: 'temperature' …"): a refused parameter never passes on a
	// retry, and the operator needs the reason (it was told as "not answering … send a message to try again").
	it("names what OpenAI refused in a 400", async () => {
		const entry = entries.find((e) => e.file === "openai/responses-error-unsupported-temperature.json");
		if (!entry) throw new Error("missing fixture");
		const o = failed(await replay(entry));
		expect(o.message).toMatch(/temperature/);
	});
});
