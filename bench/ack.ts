/**
 * Interaction ack benchmark (`npm run bench:ack`). design.md's target: "interaction
 * ack p99 < 50 ms while 100 lessons run, whatever the model's latency".
 *
 * The bot side runs on the main thread as in production: the real engine on a model that
 * takes BENCH_STEP_MS (2 s) per step, SQLite stores, and the real adapter. The platform
 * side runs in a worker thread (its own event loop, as Discord and Slack are other
 * machines): the fake Discord (test/fakes/discord.ts) or the fake Slack, and a driver that
 * plays 100 learners. Each lesson starts by `/lesson start`; its quizzes are clicked
 * BENCH_ROUNDS times, each after a random think time, while `/lesson status` commands and
 * stale clicks land on random lessons.
 *
 * Discord: the sample is each interaction's time from the fake's gateway dispatch to the
 * bot's first callback (the ack) at the fake. Slack: the time from sending a signed request
 * to Bolt's HTTP 200.
 *
 * Loopback only, bounded (a watchdog ends it after 115 s). The last line is one JSON object.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { createDiscordAdapter } from "../src/adapters/discord/index.ts";
import { createSlackAdapter } from "../src/adapters/slack/index.ts";
import { openStateStore } from "../src/agent/index.ts";
import { createSessionStore } from "../src/agent/store/session-store.ts";
import { createTutor } from "../src/agent/tutor.ts";
import { silentLogger } from "../src/core/contracts/logger.ts";
import type { Tutor } from "../src/core/contracts/tutor.ts";
import { messageControls, startFakeDiscord } from "../testkit/fakes/discord.ts";
import { startFakeSlack } from "../testkit/fakes/slack.ts";
import { replyStream } from "../testkit/model-stream.ts";
import { stubRenderer } from "../testkit/stub-renderer.ts";

const LESSONS = Number(process.env.BENCH_LESSONS ?? 100);
const STEP_MS = Number(process.env.BENCH_STEP_MS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** A platform's phase ends when every lesson had its rounds, or after this long. */
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 40_000);
/** Up to this long between a quiz appearing and its click (people read first). */
const THINK_MS = Number(process.env.BENCH_THINK_MS ?? 1500);
const TICK_MS = 100;
const PICK = /^lh:pick:([^:]+):0$/;

type Platform = "discord" | "slack";
/** Worker → main. */
type FromDriver =
	| { type: "fake"; apiUrl: string; token: string; guildId: string; signingSecret: string }
	| { type: "result"; samples: number[]; unacked: number; clicks: number }
	| { type: "closed" };
/** Main → worker. */
type ToDriver = { type: "go"; port?: number } | { type: "close" };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
	if (sorted.length === 0) return Number.NaN;
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

// ─── the platform side (worker thread) ───────────────────────────────────────

/** Each call: the values added to `map` since the previous call (a Map keeps insertion order). */
function freshValues<T>(map: Map<string, T>): () => T[] {
	let seen = 0;
	return () => {
		const all = [...map.values()];
		const fresh = all.slice(seen);
		seen = all.length;
		return fresh;
	};
}

/** Where the driver clicks: one pick control of a posted quiz. */
interface Pickable {
	lesson: string;
	pick: string;
	click(): void;
}

/** How a driver plays one platform's learners. */
interface Learners<M> {
	/** Start lesson `i` (`/lesson start`). */
	start(i: number): void;
	/** The fake's posted messages, in order. */
	messages: Map<string, M>;
	/** The first choice of a quiz card, if `m` is one. */
	pickable(m: M): Pickable | undefined;
	/** A `/lesson status` in some lesson (`lessons` are the ids seen so far). */
	status(lessons: string[]): void;
}

/**
 * Start LESSONS lessons, then click each lesson's quizzes as they appear (ROUNDS per lesson,
 * after a think time) with a status command and a stale click every other tick, until done
 * or PHASE_MS. Resolves with the answer clicks made.
 */
async function drive<M>(learners: Learners<M>): Promise<number> {
	for (let i = 0; i < LESSONS; i++) {
		learners.start(i);
		await sleep(10);
	}
	const fresh = freshValues(learners.messages);
	const clicksPer = new Map<string, number>();
	const answered: Pickable[] = [];
	const seen = new Set<string>();
	let clicks = 0;
	const deadline = Date.now() + PHASE_MS;
	for (let tick = 0; Date.now() < deadline && clicks < LESSONS * ROUNDS; tick++) {
		for (const p of fresh().map(learners.pickable)) {
			if (!p || seen.has(p.pick) || (clicksPer.get(p.lesson) ?? 0) >= ROUNDS) continue;
			seen.add(p.pick);
			clicksPer.set(p.lesson, (clicksPer.get(p.lesson) ?? 0) + 1);
			setTimeout(() => {
				p.click();
				answered.push(p);
				clicks++;
			}, Math.random() * THINK_MS);
		}
		if (tick % 2 === 0) {
			learners.status([...clicksPer.keys()]);
			answered[Math.floor(Math.random() * answered.length)]?.click(); // stale: already answered
		}
		await sleep(TICK_MS);
	}
	await sleep(1000); // the last acks
	return clicks;
}

async function discordDriver(port: NonNullable<typeof parentPort>, next: () => Promise<ToDriver>): Promise<void> {
	const fake = await startFakeDiscord();
	port.postMessage({ type: "fake", apiUrl: fake.apiUrl, token: fake.token, guildId: fake.guild.id, signingSecret: "" });
	await next(); // the adapter is connected and /lesson registered
	const learner = fake.users.learner;
	const clicks = await drive({
		start: (i) =>
			void fake.slash({ user: learner, channelId: fake.ids.general, subcommand: "start", options: { topic: `t${i}` } }),
		messages: fake.messages,
		pickable: (m) => {
			const pick = messageControls(m)
				.map((c) => String(c.custom_id ?? ""))
				.find((id) => PICK.test(id));
			if (!pick) return undefined;
			return {
				lesson: m.channelId,
				pick,
				click: () => void fake.click({ user: learner, messageId: m.id, customId: pick, force: true }),
			};
		},
		status: (lessons) => {
			const thread = lessons[Math.floor(Math.random() * lessons.length)];
			if (thread) fake.slash({ user: learner, channelId: thread, subcommand: "status" });
		},
	});
	const samples: number[] = [];
	let unacked = 0;
	for (const it of fake.interactions.values()) {
		if (it.ackedAt === undefined) unacked++;
		else samples.push(it.ackedAt - it.createdAt);
	}
	port.postMessage({ type: "result", samples, unacked, clicks });
	await next(); // close
	await fake.close();
	port.postMessage({ type: "closed" });
}

async function slackDriver(port: NonNullable<typeof parentPort>, next: () => Promise<ToDriver>): Promise<void> {
	const fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
	port.postMessage({
		type: "fake",
		apiUrl: fake.apiUrl,
		token: "xoxb-bench",
		guildId: "",
		signingSecret: fake.signingSecret,
	});
	const go = await next();
	const sender = fake.sender(`http://127.0.0.1:${go.type === "go" ? go.port : 0}/slack/events`);
	const ada = { user: "U1", name: "ada", channel: "C1" };
	const samples: number[] = [];
	let unacked = 0;
	const inflight: Promise<void>[] = [];
	const timed = (send: () => Promise<{ status: number }>): void => {
		const t0 = performance.now();
		inflight.push(
			send().then(
				(res) => {
					if (res.status === 200) samples.push(performance.now() - t0);
					else unacked++;
				},
				() => {
					unacked++;
				},
			),
		);
	};
	const clicks = await drive({
		start: (i) => timed(() => sender.command("/lesson", `start topic ${i}`, ada)),
		messages: fake.messages,
		pickable: (m) => {
			const pick = ((m.blocks ?? []) as Array<{ type?: string; elements?: Array<{ action_id?: string }> }>)
				.filter((b) => b.type === "actions")
				.flatMap((b) => b.elements ?? [])
				.map((e) => e.action_id ?? "")
				.find((id) => PICK.test(id));
			if (!pick || !m.threadTs) return undefined;
			return { lesson: m.threadTs, pick, click: () => timed(() => sender.action(ada, m.ts, { action_id: pick })) };
		},
		status: () => timed(() => sender.command("/lesson", "status", ada)),
	});
	await Promise.all(inflight);
	port.postMessage({ type: "result", samples, unacked, clicks });
	await next();
	await fake.close();
	port.postMessage({ type: "closed" });
}

// ─── the bot side (main thread) ──────────────────────────────────────────────

/** A model that takes STEP_MS per step (honouring aborts), then asks a two-option quiz. */
function slowModel(): LanguageModelV3 {
	let n = 0;
	return {
		specificationVersion: "v3",
		provider: "bench",
		modelId: `slow-${STEP_MS}ms`,
		supportedUrls: {},
		doGenerate: () => Promise.reject(new Error("the engine streams")),
		doStream: async (call) => {
			await new Promise<void>((resolve, reject) => {
				const signal = call.abortSignal;
				const onAbort = () => {
					clearTimeout(timer);
					reject(new Error("aborted"));
				};
				const timer = setTimeout(() => {
					signal?.removeEventListener("abort", onAbort);
					resolve();
				}, STEP_MS);
				signal?.addEventListener("abort", onAbort, { once: true });
			});
			const id = `b${++n}`;
			const input = {
				question: `Question ${id}: is ${n} even?`,
				options: ["yes", "no"],
				correctAnswer: n % 2 ? "no" : "yes",
			};
			return {
				stream: replyStream({ calls: [{ name: "quiz", id, input }], usage: { input: 500, cached: 0, output: 20 } }),
			};
		},
	};
}

interface PhaseResult {
	samples: number[];
	unacked: number;
	clicks: number;
	seconds: number;
	loopDelayP99Ms: number;
}

/** The worker's messages, one at a time. */
function inbox<T>(source: { on(event: "message", listener: (m: T) => void): unknown }): () => Promise<T> {
	const queue: T[] = [];
	const waiting: Array<(m: T) => void> = [];
	source.on("message", (m) => {
		const w = waiting.shift();
		if (w) w(m);
		else queue.push(m);
	});
	return () => {
		const m = queue.shift();
		return m !== undefined ? Promise.resolve(m) : new Promise<T>((resolve) => waiting.push(resolve));
	};
}

async function phase(platform: Platform, dir: string): Promise<PhaseResult> {
	// The driver is this same TypeScript file, loaded in the worker through tsx's API.
	const self = JSON.stringify(import.meta.url);
	const worker = new Worker(`import("tsx/esm/api").then((api) => api.tsImport(${self}, ${self}));`, {
		eval: true,
		workerData: { platform },
	});
	worker.on("error", (error) => console.error(`bench:ack: the ${platform} driver failed:`, error));
	const next = inbox<FromDriver>(worker);
	const fake = await next();
	if (fake.type !== "fake") throw new Error(`unexpected ${fake.type}`);
	const store = await createSessionStore(`sqlite://${join(dir, `${platform}-lessons.sqlite`)}`);
	const tutor: Tutor = createTutor({ model: slowModel(), store, maxRetries: 0, requestTimeoutMs: 60_000 });
	const state = openStateStore(`sqlite://${join(dir, `${platform}.sqlite`)}`, platform);
	const renderer = stubRenderer(undefined);
	const adapter =
		platform === "discord"
			? createDiscordAdapter({
					tutor,
					renderer,
					logger: silentLogger,
					state,
					config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guildId, readyTimeoutMs: 15_000 },
				})
			: createSlackAdapter({
					tutor,
					renderer,
					logger: silentLogger,
					state,
					config: {
						botToken: fake.token,
						signingSecret: fake.signingSecret,
						apiUrl: fake.apiUrl,
						port: 0,
						host: "127.0.0.1",
						adminUserIds: [],
						retry: { retries: 1, minTimeoutMs: 10, maxTimeoutMs: 50 },
					},
				});
	const lag = monitorEventLoopDelay({ resolution: 5 });
	const started = Date.now();
	try {
		await adapter.start();
		lag.enable();
		const port = "port" in adapter ? adapter.port() : undefined;
		worker.postMessage({ type: "go", ...(port ? { port } : {}) } satisfies ToDriver);
		const result = await next();
		lag.disable();
		if (result.type !== "result") throw new Error(`unexpected ${result.type}`);
		const { type: _t, ...rest } = result;
		return { ...rest, seconds: (Date.now() - started) / 1000, loopDelayP99Ms: lag.percentile(99) / 1e6 };
	} finally {
		await adapter.stop();
		await tutor.close();
		await state.close();
		worker.postMessage({ type: "close" } satisfies ToDriver);
		await Promise.race([next(), sleep(5000)]);
		await worker.terminate();
	}
}

function summarize(name: string, r: PhaseResult): { p50: number; p99: number } {
	const sorted = [...r.samples].sort((a, b) => a - b);
	const p50 = percentile(sorted, 0.5);
	const p99 = percentile(sorted, 0.99);
	const max = sorted.at(-1) ?? Number.NaN;
	console.log(
		`${name}: ${sorted.length} acks (${r.clicks} answer clicks in ${LESSONS} lessons, model ${STEP_MS} ms a step, ${r.seconds.toFixed(1)} s): p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms; not acked ${r.unacked}; bot event-loop delay p99 ${r.loopDelayP99Ms.toFixed(1)} ms`,
	);
	return { p50: Number(p50.toFixed(2)), p99: Number(p99.toFixed(2)) };
}

if (isMainThread) {
	const watchdog = setTimeout(() => {
		console.error("bench:ack: still running after 115 s; giving up");
		process.exit(2);
	}, 115_000);
	watchdog.unref();
	const dir = mkdtempSync(join(tmpdir(), "lh-bench-ack-"));
	try {
		const only = process.env.BENCH_ONLY;
		const none = { p50: Number.NaN, p99: Number.NaN };
		const discord = only === "slack" ? none : summarize("discord", await phase("discord", dir));
		const slack = only === "discord" ? none : summarize("slack (to HTTP 200)", await phase("slack", dir));
		console.log(
			JSON.stringify({
				bench: "ack",
				discord_ack_ms_p50: discord.p50,
				discord_ack_ms_p99: discord.p99,
				slack_ack_ms_p50: slack.p50,
				slack_ack_ms_p99: slack.p99,
				lessons: LESSONS,
			}),
		);
	} finally {
		rmSync(dir, { recursive: true, force: true });
		clearTimeout(watchdog);
	}
} else if (parentPort) {
	const port = parentPort;
	const next = inbox<ToDriver>(port);
	const platform = (workerData as { platform: Platform }).platform;
	await (platform === "discord" ? discordDriver(port, next) : slackDriver(port, next));
}
