/**
 * Malformed model output ends in tool errors the model sees (or in a healed call), never a crash,
 * and the transcript stays replayable after each case: it converts with convertToModelMessages,
 * the next scripted request carries every call's result, and the real @ai-sdk/openai provider
 * sends it to a chat-completions server as a well-formed request.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { convertToModelMessages } from "ai";
import { describe, expect, it } from "vitest";
import { createAgents } from "../../src/agent/engine/agents.ts";
import { toModelMessages } from "../../src/agent/engine/model-messages.ts";
import { runModelStep } from "../../src/agent/engine/model-step.ts";
import type { SessionRecord } from "../../src/agent/store/types.ts";
import { probeConcluded, toolParts } from "../../src/core/transcript.ts";
import {
	assessmentInput,
	type Harness,
	harness,
	learner,
	planMermaid,
	probeQuiz,
	type ScriptedCall,
	type ScriptedReply,
	scriptedModel,
	toolResultsSent,
	useFakeOpenAI,
} from "./helpers.ts";

const suite = useFakeOpenAI();
const dir = suite.dir;

/** The error texts the model was sent in request `n`. */
function errorsSent(model: ReturnType<typeof scriptedModel>, n: number): string[] {
	const call = model.doStreamCalls[n];
	if (!call) return [];
	return toolResultsSent(call)
		.map((r) => r.output as { type: string; value: unknown })
		.filter((o) => o.type === "error-text")
		.map((o) => String(o.value));
}

const toTeacher: ScriptedReply[] = [{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] }];
const toTeaching: ScriptedReply[] = [...toTeacher, { calls: [{ name: "plan_init", input: { mermaid: planMermaid } }] }];

interface Case {
	name: string;
	/** Replies that bring the lesson to the phase of the case (prober by default). */
	before?: ScriptedReply[];
	/** The malformed step. */
	calls: ScriptedCall[];
	/** Refused: each call's error text (in order) must match. Accepted: the question to answer next. */
	refused?: RegExp[];
	accepted?: { toolCallId: string; value: string; check: (h: Harness) => void };
}

const cases: Case[] = [
	{
		name: "invalid JSON arguments",
		calls: [{ name: "quiz", raw: '{"question": "What is 2+2?", "options": ["3", "4"', id: "bad-json" }],
		refused: [/not valid JSON/],
	},
	{
		name: "empty arguments for a tool that needs fields",
		calls: [{ name: "quiz", raw: "", id: "empty" }],
		refused: [/question|correctAnswer/],
	},
	{
		name: "arguments with a prototype-poisoning key",
		calls: [{ name: "quiz", raw: `{"__proto__": {"admin": true}, ${JSON.stringify(probeQuiz).slice(1)}`, id: "proto" }],
		refused: [/forbidden key/],
	},
	{
		name: "an unknown tool",
		calls: [{ name: "teach_everything", input: { all: true }, id: "unknown" }],
		refused: [/Unknown tool "teach_everything".*quiz, ask, probe_done/],
	},
	{
		name: "the assessment as a string",
		calls: [{ name: "probe_done", input: { assessment: "they know fractions" }, id: "pd-string" }],
		refused: [/assessment/],
	},
	{
		name: "probe_done in the same step as a quiz",
		calls: [
			{ name: "quiz", input: probeQuiz, id: "open" },
			{ name: "probe_done", input: assessmentInput, id: "too-early" },
		],
		refused: [/unanswered/],
		accepted: { toolCallId: "open", value: "3/4", check: (h) => expect(h.of("assessment")).toHaveLength(0) },
	},
	{
		name: "the whole argument object double-encoded as a JSON string",
		calls: [{ name: "quiz", raw: JSON.stringify(JSON.stringify(probeQuiz)), id: "double" }],
		accepted: {
			toolCallId: "double",
			value: "3/4",
			check: (h) => expect(h.of("quiz")[0]).toMatchObject({ toolCallId: "double", input: probeQuiz }),
		},
	},
	{
		name: "options sent as a JSON-encoded array",
		calls: [
			{ name: "quiz", raw: JSON.stringify({ ...probeQuiz, options: JSON.stringify(probeQuiz.options) }), id: "arr" },
		],
		accepted: {
			toolCallId: "arr",
			value: "3/4",
			check: (h) => expect(h.of("quiz")[0]?.input.options).toEqual(probeQuiz.options),
		},
	},
	{
		name: "correctAnswer as a number and a double-encoded type",
		before: toTeaching,
		calls: [
			{
				name: "quiz",
				id: "numeric",
				raw: JSON.stringify({
					type: '"predict"',
					nodeId: "unlike",
					question: "Which is 16 + 1?",
					options: ["16", "17"],
					correctAnswer: 17,
				}),
			},
		],
		accepted: {
			toolCallId: "numeric",
			value: "17",
			check: (h) => {
				expect(h.of("quiz")[0]).toMatchObject({ toolCallId: "numeric", nodeId: "unlike" });
				expect(h.of("quiz")[0]?.input).toMatchObject({ type: "predict", correctAnswer: "17" });
				expect(h.of("plan").at(-1)?.statuses.current).toBe("unlike");
				expect(h.of("answered").at(-1)?.result).toMatchObject({ answer: "17", correct: true });
			},
		},
	},
	{
		name: "a bad mermaid block (no header) and a cyclic one",
		before: toTeacher,
		calls: [
			{ name: "plan_init", input: { mermaid: "a list of topics" }, id: "bad-plan" },
			{ name: "plan_init", input: { mermaid: "graph TD\n  a --> b\n  b --> a" }, id: "cyclic" },
		],
		refused: [/not accepted/, /cycle/i],
	},
	{
		name: "a tool call id the model already used",
		before: [{ calls: [{ name: "ask", input: { question: "Your goal?" }, id: "dup" }] }],
		calls: [{ name: "quiz", input: probeQuiz, id: "dup" }],
		accepted: {
			toolCallId: "dup~2",
			value: "3/4",
			check: (h) => expect(h.of("quiz").map((q) => q.toolCallId)).toEqual(["dup~2"]),
		},
	},
];

let sessions = 0;

describe("malformed model output: tool errors the model sees, a replayable transcript", () => {
	for (const c of cases) {
		it(c.name, async () => {
			const model = scriptedModel([...(c.before ?? []), { calls: c.calls }, { text: "Let's carry on." }]);
			const h = await harness(dir.path, model);
			const sessionId = `terminal:malformed-${++sessions}`;
			await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
			await h.tutor.idle(sessionId);
			// A question the case set up first (the reused-id case) is skipped by a message.
			if (c.before?.some((r) => r.calls?.some((call) => call.name === "ask"))) {
				await h.tutor.handle(sessionId, { type: "message", text: "skip that", by: learner });
				await h.tutor.idle(sessionId);
			}
			if (c.accepted) {
				const { toolCallId, value } = c.accepted;
				expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId, value, by: learner })).toEqual({
					ok: true,
				});
				await h.tutor.idle(sessionId);
				c.accepted.check(h);
			}
			expect(h.of("error")).toEqual([]);
			expect(h.of("text").at(-1)?.text).toBe("Let's carry on.");
			// The request after the malformed step carried the refusals (and answers) back to the model.
			const next = model.doStreamCalls.length - 1;
			const errors = errorsSent(model, next);
			for (const [i, pattern] of (c.refused ?? []).entries()) expect(errors[i]).toMatch(pattern);
			expect(errors).toHaveLength(c.refused?.length ?? 0);

			// What is on disk replays: every call has a result, rejected calls keep their raw input.
			const record = (await h.store.get(sessionId)) as SessionRecord;
			const parts = [...toolParts(record.messages)];
			expect(parts.every((p) => p.state === "output-available" || p.state === "output-error")).toBe(true);
			for (const p of parts.filter((p) => p.state === "output-error")) expect(p.rawInput).toBeDefined();
			await expect(convertToModelMessages(record.messages)).resolves.toBeDefined();
			await h.tutor.close();
			await replaysThroughOpenAI(record);
		});
	}

	it("probe_done after the probe concluded is an unknown tool for the teacher", async () => {
		const model = scriptedModel([
			...toTeacher,
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd2" }] },
			{ text: "Let's begin." },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:malformed-concluded";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("assessment")).toHaveLength(1);
		expect(errorsSent(model, 2)[0]).toMatch(/Unknown tool "probe_done"/);
		await h.tutor.close();
	});
});

/** Send the stored transcript through the real OpenAI chat provider: a well-formed request, a reply. */
async function replaysThroughOpenAI(record: SessionRecord): Promise<void> {
	const agents = createAgents();
	const agent = probeConcluded(record.messages) ? agents.teacher : agents.prober;
	const fake = suite.fake;
	fake.reply({ text: "replayed" });
	const before = fake.requests.length;
	const outcome = await runModelStep({
		model: suite.model() as LanguageModelV3,
		agent,
		messages: await toModelMessages(record.messages),
		maxRetries: 0,
		retryDelayMs: 1,
		timeoutMs: 10_000,
	});
	expect(outcome).toMatchObject({ ok: true, content: [{ type: "text", text: "replayed" }] });
	const body = fake.requests[before]?.body as {
		messages: Array<{
			role: string;
			tool_calls?: Array<{ id: string; function: { arguments: string } }>;
			tool_call_id?: string;
		}>;
	};
	const calls = body.messages.flatMap((m) => m.tool_calls ?? []);
	const results = new Set(body.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id));
	expect(calls.length).toBeGreaterThan(0);
	for (const call of calls) {
		expect(results.has(call.id)).toBe(true);
		expect(typeof call.function.arguments).toBe("string");
		expect(() => JSON.parse(call.function.arguments)).not.toThrow();
	}
}
