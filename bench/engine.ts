/**
 * Engine benchmark (`npm run bench:engine`):
 * 1. the engine's own time per turn (everything but the model: admission,
 *    transcript edits, UI→model message conversion, the SDK call plumbing,
 *    settling, events, SQLite saves) at 20, 100 and 200 transcript messages,
 *    median of repeated turns, the model a zero-latency mock;
 * 2. the stable-prefix ratio over a 30-turn scripted lesson: for each model
 *    request, the bytes equal to the previous request's prefix, over all bytes
 *    (tools, system, messages, in that order: how providers cache prompts).
 * 3. one model step (ours: the prompt and tool conversion, doStream, parse and validate the
 *    calls) beside the public `streamText` doing the same request (read to its end) on the same
 *    zero-latency model, per call at 20 and 200 messages, and the ratio.
 * The last line is one JSON object. Knobs: BENCH_SIZES (e.g. "200"), BENCH_RUNS (measured
 * turns per size, default 41), BENCH_STORE (another store URL than a temp SQLite file),
 * BENCH_DEBUG (print where a request's prefix diverges).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { streamText } from "ai";
import { createAgents } from "../src/agent/engine/agents.ts";
import { toModelMessages } from "../src/agent/engine/model-messages.ts";
import { runModelStep } from "../src/agent/engine/model-step.ts";
import { createSessionStore } from "../src/agent/store/session-store.ts";
import type { LessonMessage, SessionRecord } from "../src/agent/store/types.ts";
import { createTutor } from "../src/agent/tutor.ts";
import type { TutorEvent } from "../src/core/contracts/events.ts";
import { zeroLatencyModel as mockModel } from "./reply-stream.ts";

const learner = { id: "bench-learner", name: "Ada" };

const quizInput = (i: number) => ({
	question: `Question ${i}: what is ${i} + ${i}? Think about what doubling means before you answer.`,
	options: [String(2 * i), String(2 * i + 1), String(i)],
	correctAnswer: String(2 * i),
	explanation: "Adding a number to itself doubles it.",
});

/** A transcript of `n` messages: assistant turns (text + answered quiz), a typed message every third turn. */
function transcript(n: number): LessonMessage[] {
	const messages: LessonMessage[] = [
		{ id: "start", role: "user", metadata: { kind: "context" }, parts: [{ type: "text", text: "Topic: doubling" }] },
	];
	for (let i = 0; messages.length < n; i++) {
		messages.push({
			id: `a${i}`,
			role: "assistant",
			parts: [
				{ type: "step-start" },
				{ type: "text", text: `Good. Here is step ${i}; we build on the previous idea with one more small step.` },
				{
					type: "tool-quiz",
					toolCallId: `q${i}`,
					state: "output-available",
					input: quizInput(i),
					output: { answer: String(2 * i), correct: true, by: learner },
				},
			],
		});
		if (i % 3 === 2 && messages.length < n)
			messages.push({ id: `u${i}`, role: "user", parts: [{ type: "text", text: `I think I get it ${i}.` }] });
	}
	return messages;
}

function median(values: number[]): number {
	const s = [...values].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** A stored session of about `size` messages whose last message is a pending quiz `pendingId`. */
function benchRecord(sessionId: string, size: number, pendingId: string): SessionRecord {
	return {
		format: 1,
		sessionId,
		topic: "doubling",
		learner,
		mode: "solo",
		startedBy: learner,
		createdAt: new Date(0).toISOString(),
		updatedAt: new Date(0).toISOString(),
		messages: [
			...transcript(Math.max(1, size - 1)),
			{
				id: `p-${sessionId}`,
				role: "assistant",
				parts: [
					{ type: "step-start" },
					{ type: "tool-quiz", toolCallId: pendingId, state: "input-available", input: quizInput(999) },
				],
			},
		],
		usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
		extra: {},
	};
}

/** Warm-up turns (on a session of their own): a long-running server has a warm JIT. */
const WARMUP_TURNS = 40;
/** Turns dropped at the start of the measured session (its first load from the store). */
const LOAD_TURNS = 2;

/**
 * Median engine time of one turn (handle(answer) → answer saved → the model replies with text
 * and a new quiz → saved → events → idle) on a live session around `size` messages, the real
 * store underneath. Each turn adds one message, so the measured runs start `runs / 2` below
 * `size` and end as far above it. The JIT is warmed first on another session of the same size.
 */
async function overhead(dir: string, size: number, maxRuns: number): Promise<{ wall: number; cpu: number }> {
	// Small sizes get fewer runs, so the window [size - runs/2, size + runs/2] stays centred on `size`.
	const runs = Math.max(1, Math.min(maxRuns, 2 * (size - LOAD_TURNS - 2)));
	const store = await createSessionStore(process.env.BENCH_STORE ?? `sqlite://${join(dir, `overhead-${size}.sqlite`)}`);
	let turn = 0;
	const model = mockModel(() => ({ text: "Right. Next one.", calls: [{ name: "quiz", input: quizInput(++turn) }] }));
	const tutor = createTutor({ model, store, maxRetries: 0 });
	const pending = new Map<string, string>();
	tutor.subscribe((e: TutorEvent) => {
		if (e.type === "quiz") pending.set(e.sessionId, e.toolCallId);
	});
	/** Run `n` answer turns on a session; the wall and CPU time of each. */
	const play = async (sessionId: string, n: number) => {
		const out: Array<{ wall: number; cpu: number }> = [];
		for (let r = 0; r < n; r++) {
			const toolCallId = pending.get(sessionId) as string;
			const cpu0 = process.cpuUsage();
			const t0 = performance.now();
			const verdict = await tutor.handle(sessionId, { type: "answer", toolCallId, value: 0, by: learner });
			await tutor.idle(sessionId);
			const wall = performance.now() - t0;
			const cpu = process.cpuUsage(cpu0);
			if (!verdict.ok) throw new Error(`bench answer refused: ${verdict.message}`);
			if (pending.get(sessionId) === toolCallId) throw new Error("bench turn posted no new quiz");
			out.push({ wall, cpu: (cpu.user + cpu.system) / 1000 });
		}
		return out;
	};
	const warm = `terminal:bench-warm-${size}`;
	pending.set(warm, "pending-warm");
	await store.set(benchRecord(warm, size, "pending-warm"));
	await play(warm, WARMUP_TURNS);

	const sessionId = `terminal:bench-${size}`;
	const start = size - LOAD_TURNS - Math.floor(runs / 2);
	pending.set(sessionId, "pending-0");
	await store.set(benchRecord(sessionId, start, "pending-0"));
	const samples = (await play(sessionId, LOAD_TURNS + runs)).slice(LOAD_TURNS);
	const messages = (await tutor.getSession(sessionId))?.messageCount ?? 0;
	if (Math.abs(messages - runs / 2 - size) > 2) throw new Error(`bench transcript size off: ${messages}`);
	await tutor.close();
	return { wall: median(samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)) };
}

/** Longest common prefix length. */
function lcp(a: string, b: string): number {
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
	return i;
}

/** What the learner types every fifth turn instead of answering. */
const TYPED = "Can you say that another way?";

/** A 30-turn lesson: 4 probe questions, probe_done, plan, then predict/explain/check rounds and a recap. */
async function stablePrefix(dir: string): Promise<{ ratio: number; requests: number; turns: number }> {
	const store = await createSessionStore(`sqlite://${join(dir, "prefix.sqlite")}`);
	const requests: string[] = [];
	let step = 0;
	let turns = 1;
	let recapped = 0;
	const plan = "graph TD\n  a[Doubling] --> b[Halving]\n  b --> c[Powers of two]\n  c --> d[Logarithms]";
	const nodes = ["a", "b", "c", "d"];
	const model = mockModel((call) => {
		requests.push(JSON.stringify([call.tools ?? [], call.prompt]));
		const isProber = (call.tools ?? []).some((t) => t.name === "probe_done");
		// The learner asked for another explanation mid-quiz: the tutor explains; the quiz stays open.
		if (JSON.stringify(call.prompt.at(-1)).includes(TYPED)) return { text: "Another way: add it to itself." };
		step++;
		if (isProber)
			return step <= 4
				? { text: "Thanks.", calls: [{ name: "quiz", input: quizInput(step) }] }
				: {
						calls: [
							{ name: "probe_done", input: { assessment: { strands: [{ strand: "doubling", assessment: "solid" }] } } },
						],
					};
		const teach = step - 5;
		if (teach === 0) return { calls: [{ name: "plan_init", input: { mermaid: plan } }] };
		const node = nodes[Math.min(nodes.length - 1, Math.floor(teach / 6))] as string;
		if (turns >= 30) {
			// Recall first (the explain tool refuses a recap without it), then the recap, then goodbye.
			const at = recapped++;
			if (at === 0) return { calls: [{ name: "ask", input: { question: "What did you learn today?" } }] };
			return at === 1 ? { calls: [{ name: "explain", input: { body: "Recap...", role: "recap" } }] } : { text: "Bye!" };
		}
		if (teach % 3 === 2)
			return {
				calls: [{ name: "explain", input: { body: `About ${node}: an idea.`, role: "concept", nodeId: node } }],
			};
		return {
			text: "Have a go.",
			calls: [
				{
					name: "quiz",
					input: { ...quizInput(100 + teach), type: teach % 3 === 1 ? "predict" : "check", nodeId: node },
				},
			],
		};
	});
	const tutor = createTutor({ model, store, maxRetries: 0 });
	const open: string[] = [];
	const asks = new Set<string>();
	tutor.subscribe((e: TutorEvent) => {
		if (e.type === "quiz" || e.type === "ask") open.push(e.toolCallId);
		if (e.type === "ask") asks.add(e.toolCallId);
	});
	const sessionId = "terminal:bench-prefix";
	await tutor.startLesson({ sessionId, topic: "doubling", learner, mode: "solo" });
	await tutor.idle(sessionId);
	for (; turns < 30 && open.length > 0; ) {
		turns++;
		const id = open.shift() as string;
		// Every fifth turn the learner asks for another explanation first (the quiz stays open and comes again).
		const event =
			turns % 5 === 0
				? ({ type: "message", text: TYPED, by: learner } as const)
				: ({ type: "answer", toolCallId: id, value: 0, by: learner } as const);
		await tutor.handle(sessionId, event);
		await tutor.idle(sessionId);
	}
	// What is still open (a quiz offered again, then the recall ask) is answered until the lesson ends.
	for (let i = 0; i < 5 && open.length > 0; i++) {
		const id = open.shift() as string;
		const ask = asks.has(id);
		await tutor.handle(
			sessionId,
			ask
				? { type: "reply", toolCallId: id, text: "Halving and doubling", by: learner }
				: { type: "answer", toolCallId: id, value: 0, by: learner },
		);
		await tutor.idle(sessionId);
	}
	const ended = (await tutor.getSession(sessionId))?.phase === "ended";
	if (!ended) throw new Error("the scripted lesson did not reach its recap");
	await tutor.close();
	let equal = 0;
	let total = 0;
	for (let i = 1; i < requests.length; i++) {
		const cur = requests[i] as string;
		const common = lcp(cur, requests[i - 1] as string);
		if (process.env.BENCH_DEBUG && common < 0.9 * cur.length)
			console.log(
				`request ${i}: ${common}/${cur.length} equal; diverges at: ${JSON.stringify(cur.slice(common - 40, common + 80))}`,
			);
		equal += common;
		total += cur.length;
	}
	return { ratio: total ? equal / total : 0, requests: requests.length, turns };
}

/** Median ms per call of our model step and of streamText, same model, messages and tools (alternating, after a warm-up). */
async function stepVersusStreamText(size: number, calls: number): Promise<{ ours: number; streamText: number }> {
	const agent = createAgents().prober;
	const messages = await toModelMessages(transcript(size));
	const model = mockModel(() => ({ text: "Right. Next one.", calls: [{ name: "quiz", input: quizInput(1) }] }));
	const ours = async () => {
		const outcome = await runModelStep({ model, agent, messages, maxRetries: 0, retryDelayMs: 1, timeoutMs: 60_000 });
		if (!outcome.ok || outcome.content.length !== 2) throw new Error("bench step failed");
	};
	const theirs = async () => {
		const result = streamText({ model, system: agent.system, messages, tools: agent.toolSet, maxRetries: 0 });
		await result.consumeStream();
		if ((await result.toolCalls).length !== 1) throw new Error("bench streamText call failed");
	};
	const time = async (run: () => Promise<void>) => {
		const t0 = performance.now();
		await run();
		return performance.now() - t0;
	};
	for (let i = 0; i < 30; i++) {
		await ours();
		await theirs();
	}
	const a: number[] = [];
	const b: number[] = [];
	for (let i = 0; i < calls; i++) {
		a.push(await time(ours));
		b.push(await time(theirs));
	}
	return { ours: median(a), streamText: median(b) };
}

const dir = mkdtempSync(join(tmpdir(), "lh-bench-engine-"));
try {
	const sizes = (process.env.BENCH_SIZES ? process.env.BENCH_SIZES.split(",").map(Number) : [20, 100, 200]) as number[];
	const p50: Record<string, number> = {};
	for (const size of sizes) {
		const { wall, cpu } = await overhead(dir, size, Number(process.env.BENCH_RUNS ?? 41));
		p50[String(size)] = Number(wall.toFixed(3));
		const store = process.env.BENCH_STORE ?? "SQLite";
		console.log(
			`engine overhead per turn at ${size} messages: p50 ${wall.toFixed(3)} ms wall, ${cpu.toFixed(3)} ms CPU (${store} store, zero-latency model)`,
		);
	}
	const step: Record<string, { ours: number; streamText: number }> = {};
	for (const size of [20, 200]) {
		const { ours, streamText: theirs } = await stepVersusStreamText(size, Number(process.env.BENCH_STEP_CALLS ?? 101));
		step[String(size)] = { ours: Number(ours.toFixed(3)), streamText: Number(theirs.toFixed(3)) };
		console.log(
			`model step at ${size} messages: ours p50 ${ours.toFixed(3)} ms, streamText p50 ${theirs.toFixed(3)} ms per call (${(theirs / ours).toFixed(1)}x)`,
		);
	}
	const prefix = await stablePrefix(dir);
	console.log(
		`stable prefix: ${(prefix.ratio * 100).toFixed(1)}% of request bytes equal the previous request's prefix (${prefix.requests} requests, ${prefix.turns} turns)`,
	);
	console.log(
		JSON.stringify({
			bench: "engine",
			overhead_ms_p50: p50,
			model_step_ms_p50: step,
			stable_prefix_ratio: Number(prefix.ratio.toFixed(4)),
		}),
	);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
