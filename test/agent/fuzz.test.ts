/**
 * The engine fuzzed with model output: more than 10,000 generated tool calls (valid, mutated,
 * random JSON, text that is not JSON, nesting 20,000 deep, 100 KB strings, prototype keys,
 * unknown tools, reused or empty call ids), across many lessons on the real SQLite store, with
 * the learner answering, typing and ending. The engine must not crash, must save every step,
 * and must give every call a result. Seeded and bounded (lessons, steps, rounds).
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import type { SessionStore } from "../../src/agent/store/types.ts";
import { createTutor } from "../../src/agent/tutor.ts";
import type { TutorEvent } from "../../src/core/contracts/events.ts";
import type { Logger } from "../../src/core/contracts/logger.ts";
import { toolParts } from "../../src/core/transcript.ts";
import { assessmentInput, learner, planMermaid, probeQuiz, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const LESSONS = 120;
const STEPS_PER_LESSON = 32;
const TARGET_CALLS = 10_000;

interface FuzzCall {
	toolName: string;
	toolCallId: string;
	input: string;
}
type FuzzStep = { text: string; calls: FuzzCall[] };

const valid: Record<string, unknown> = {
	quiz: probeQuiz,
	ask: { question: "Why does that work?" },
	explain: { body: "A **denominator** names the size of the parts.", role: "concept" },
	plan_init: { mermaid: planMermaid },
	probe_done: assessmentInput,
};
const toolName = fc.constantFrom(
	"quiz",
	"ask",
	"explain",
	"plan_init",
	"probe_done",
	"quiz",
	"ask",
	"quizz",
	"",
	"__proto__",
);
const deep = fc.integer({ min: 1, max: 20_000 }).map((n) => `{"question":${"[".repeat(n)}${"]".repeat(n)}}`);
const huge = fc
	.integer({ min: 1_000, max: 100_000 })
	.map((n) => JSON.stringify({ question: "x".repeat(n), options: [] }));
const mutated = fc
	.tuple(fc.constantFrom(...Object.keys(valid)), fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }))
	.map(([tool, key, value]) => JSON.stringify({ ...(valid[tool] as object), [key]: value }));
const inputFor = (name: string) =>
	fc.oneof(
		{ arbitrary: fc.constant(JSON.stringify(valid[name] ?? {})), weight: 4 },
		{ arbitrary: mutated, weight: 3 },
		{ arbitrary: fc.json({ maxDepth: 4 }), weight: 2 },
		{ arbitrary: fc.string({ maxLength: 60 }), weight: 2 },
		{ arbitrary: fc.constant('{"__proto__":{"polluted":true},"question":"q"}'), weight: 1 },
		{ arbitrary: fc.constant('{"constructor":{"prototype":{"polluted":true}}}'), weight: 1 },
		{ arbitrary: deep, weight: 1 },
		{ arbitrary: huge, weight: 1 },
	);
const call: fc.Arbitrary<FuzzCall> = toolName.chain((name) =>
	fc.record({
		toolName: fc.constant(name),
		toolCallId: fc.oneof(fc.constant(""), fc.constant("same"), fc.string({ maxLength: 6 }), fc.uuid()),
		input: inputFor(name),
	}),
);
const step: fc.Arbitrary<FuzzStep> = fc.record({
	text: fc.oneof(fc.constant(""), fc.string({ maxLength: 40 })),
	calls: fc.array(call, { minLength: 1, maxLength: 5 }),
});

/** A model that answers each request with the next generated step (then plain text: the turn ends). */
function fuzzModel(steps: FuzzStep[], sent: { calls: number }): MockLanguageModelV3 {
	const queue = [...steps];
	return new MockLanguageModelV3({
		doStream: async () => {
			const next = queue.shift() ?? { text: "Let's stop here.", calls: [] };
			sent.calls += next.calls.length;
			const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
			if (next.text)
				parts.push(
					{ type: "text-start", id: "t" },
					{ type: "text-delta", id: "t", delta: next.text },
					{ type: "text-end", id: "t" },
				);
			for (const c of next.calls)
				parts.push({ type: "tool-call", toolCallId: c.toolCallId, toolName: c.toolName, input: c.input });
			parts.push({
				type: "finish",
				finishReason: { unified: next.calls.length ? "tool-calls" : "stop", raw: undefined },
				usage: {
					inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
					outputTokens: { total: 1, text: undefined, reasoning: undefined },
				},
			});
			return {
				stream: new ReadableStream({
					start(controller) {
						for (const p of parts) controller.enqueue(p);
						controller.close();
					},
				}),
			};
		},
	});
}

it(`survives ${TARGET_CALLS}+ generated tool calls: no crash, no failed save, every call with a result`, async () => {
	const base = await createSessionStore(`sqlite://${dir.path}/fuzz.sqlite`);
	let failedSaves = 0;
	const store: SessionStore = {
		...base,
		// Each lesson's tutor closes its store: the shared one stays open for the next.
		close: async () => {},
		set: (record) =>
			base.set(record).catch((error: unknown) => {
				failedSaves++;
				throw error;
			}),
	};
	const errorsLogged: string[] = [];
	const logger: Logger = {
		debug: () => {},
		info: () => {},
		warn: () => {},
		error: (_fields, message) => void errorsLogged.push(message ?? ""),
		child: () => logger,
	};
	const sent = { calls: 0 };
	let lesson = 0;
	const crashes: TutorEvent[] = [];
	await fc.assert(
		fc.asyncProperty(fc.array(step, { minLength: STEPS_PER_LESSON, maxLength: STEPS_PER_LESSON }), async (steps) => {
			const sessionId = `terminal:fuzz-${++lesson}`;
			const tutor = createTutor({ model: fuzzModel(steps, sent), store, logger, maxRetries: 0 });
			tutor.subscribe((e) => {
				// Our own failures; the model's refusals, step limits and empty replies are fine.
				if (e.type === "error" && !["step-limit", "empty-reply"].includes(e.code)) crashes.push(e);
			});
			await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
			await tutor.idle(sessionId);
			for (let round = 0; round < STEPS_PER_LESSON; round++) {
				const summary = await tutor.getSession(sessionId);
				if (!summary || summary.phase === "ended") break;
				const pending = summary.pending[0];
				if (pending && round % 3 !== 2) {
					const answer =
						round % 2 === 0
							? { type: "answer" as const, toolCallId: pending.toolCallId, value: 0, by: learner }
							: { type: "reply" as const, toolCallId: pending.toolCallId, text: "three quarters", by: learner };
					const verdict = await tutor.handle(sessionId, answer);
					// A choice on a free question (or text on a choice) is refused in words: type instead.
					if (!verdict.ok) await tutor.handle(sessionId, { type: "message", text: "next please", by: learner });
				} else await tutor.handle(sessionId, { type: "message", text: "go on", by: learner });
				await tutor.idle(sessionId);
			}
			await tutor.handle(sessionId, { type: "end", by: learner });
			await tutor.idle(sessionId);
			await tutor.close();
			const record = await base.get(sessionId);
			expect(record?.ended).toBeDefined();
			const unresolved = [...toolParts(record?.messages ?? [])].filter(
				(p) => p.state !== "output-available" && p.state !== "output-error",
			);
			expect(unresolved).toEqual([]);
			// Every saved record is valid JSON of bounded size: no step can make a lesson unsavable.
			expect(JSON.stringify(record).length).toBeLessThan(5_000_000);
		}),
		{ seed: 20261201, numRuns: LESSONS, endOnFailure: true },
	);
	expect([...new Set(crashes.map((e) => (e.type === "error" ? e.message : e.type)))]).toEqual([]);
	expect(failedSaves).toBe(0);
	expect(errorsLogged).toEqual([]);
	expect(sent.calls).toBeGreaterThanOrEqual(TARGET_CALLS);
	console.info(
		`fuzz: ${sent.calls} tool calls in ${lesson} lessons; ${crashes.length} crashes, ${failedSaves} failed saves, 0 calls without a result`,
	);
	await base.close();
}, 240_000);
