/**
 * Scale-out benchmark (`npm run bench:scale`), issue 12. On a private redis-server (a spare
 * loopback port, nothing else talking to it):
 *
 * 1. The store part (bench/scale/store.ts): bytes a turn writes at 20 and 200 messages, and the
 *    lease hand-over time at the store after a holder dies.
 * 2. 1, 2 and 4 real `learnharness start` processes (Discord shards: bench/scale/cluster.ts) on
 *    that Redis, the fake Discord (testkit/fakes/discord.ts; guilds spread over the shards) with
 *    discord.js's own REST rate limiter as shipped, and a slow OpenAI-compatible model (a fake in
 *    a worker thread answering each request after 1–2 s with a quiz, forever). Learners start
 *    BENCH_LESSONS lessons by `/lesson start` and click every quiz as it arrives (after a think
 *    time); then, over a fixed window: ack p50/p99 of the clicks, turns per second, REST calls per
 *    turn (those counting against the global limit, by route), bytes Redis received per turn, and how
 *    long a learner waits from a click's ack to the next question.
 * 3. In the run with 2 processes (BENCH_KILL_AT), shard 1's process is killed with SIGKILL
 *    mid-turn: the hand-over time is from the kill until the first of its turns in flight is
 *    finished by its replacement (the manager respawns it; the lease expires; the turn re-runs).
 *
 * Lessons start with clicks held back (a warm-up lesson per guild, then BENCH_START_RATE a second
 * per process, 11 by default, for at most BENCH_START_BOUND_S, 90); then every learner clicks and
 * the window (BENCH_WINDOW_S, 30) begins BENCH_SETTLE_S (10) later: at the resume every learner clicks
 * at once (1,000 clicks within one think time), a burst reported on its own ("burst"). Lessons that did not start in time do not count (the
 * JSON's `lessons` says how many were live). Other knobs: BENCH_LESSONS (1,000), BENCH_PROCESSES
 * (1,2,4), BENCH_MODEL_MS ("1000-2000"), BENCH_THINK_MS (1,500), BENCH_SHARD_MODE (manager|env),
 * BENCH_TIMEOUT_S (900: a watchdog ends everything and prints what it has), BENCH_PROFILE_DIR (a CPU
 * profile per bot process), BENCH_NODE_ARGS (node flags for the bot processes), BENCH_CLICKS_FILE (each
 * click's times as JSON, one file per run, to line up with the bots' own traces); LEARNHARNESS_TURN_LAG_MS
 * goes to the bots. Loopback only. The
 * last line is one JSON object.
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { LEASE_TTL_MS } from "../src/agent/engine/lease.ts";
import { freePort, redisServerInstalled, testRedis } from "../test/fixtures/redis-server.ts";
import { shardOfGuild } from "../testkit/fakes/discord/gateway.ts";
import { type FakeDiscord, startFakeDiscord } from "../testkit/fakes/discord.ts";
import { type Cluster, shardMode, startCluster } from "./scale/cluster.ts";
import { type BenchGuild, Learners, type WindowStats } from "./scale/drive.ts";
import { startSlowModel } from "./scale/model.ts";
import { storeBench } from "./scale/store.ts";

if (!redisServerInstalled) {
	console.error("bench:scale needs redis-server (Debian package redis-server)");
	process.exit(1);
}

const num = (name: string, fallback: number) => {
	const v = Number(process.env[name]);
	return Number.isFinite(v) && v > 0 ? v : fallback;
};
const LESSONS = num("BENCH_LESSONS", 1000);
const PROCESSES = (process.env.BENCH_PROCESSES ?? "1,2,4")
	.split(",")
	.map(Number)
	.filter((n) => n >= 1 && n <= 8);
const WINDOW_S = num("BENCH_WINDOW_S", 30);
/**
 * Seconds between the learners' resume and the window: at the resume every held-back learner clicks
 * within one think time (1,000 clicks in 1.5 s, a burst no real group makes); the window measures the
 * steady state after it, and the burst is reported on its own.
 */
const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 10);
/** Lessons started per second per process: a start costs the bot about 4 REST calls under its limit of 50 a second. */
const START_RATE = num("BENCH_START_RATE", 11);
/** Longest the lessons of one run may take to start (their first card); lessons not started by then do not count. */
const START_BOUND_S = num("BENCH_START_BOUND_S", 90);
const [MODEL_MIN, MODEL_MAX] = (process.env.BENCH_MODEL_MS ?? "1000-2000").split("-").map(Number) as [number, number];
const THINK_MS = num("BENCH_THINK_MS", 1500);
const TIMEOUT_S = num("BENCH_TIMEOUT_S", 900);
const KILL_AT = num("BENCH_KILL_AT", 2);
/** A directory for a V8 CPU profile of each bot process (written when it stops; use BENCH_SHARD_MODE=env). */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
/** More node flags for the bot processes (space-separated), e.g. a heap setting to compare. */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
/** Guilds per shard of the largest run (each run's shard count divides 4: ids spread evenly). */
const GUILDS_PER_SHARD = 3;
const SHARD_BASE = 4;

const started = Date.now();
const deadline = started + TIMEOUT_S * 1000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const round = (n: number, d = 1) => (Number.isFinite(n) ? Number(n.toFixed(d)) : null);

/** One run's results. */
interface Run {
	processes: number;
	lessonsStarted: number;
	lessonsLive: number;
	stats: WindowStats;
	redisBytesPerTurn: number;
	/** Redis commands per turn in the window, by command. */
	redisCommandsPerTurn: Record<string, number>;
	botCpuPerS: number;
	benchLoopP99Ms: number;
	/** The bench's own longest event-loop delay in the window (its fakes answer the bots: a stall here delays their acks). */
	benchLoopMaxMs: number;
	/** The clicks between the resume and the window (every learner at once). */
	burst: WindowStats;
	reclicks: number;
	/** `/lesson start` interactions never acked (refused after 3 s, or no answer). */
	startsUnacked: number;
	startSeconds: number;
}
const runs: Run[] = [];
let store: { before: Record<string, number>; after: Record<string, number>; handoverS: number } | undefined;
let killHandover: { firstS: number; allS: number; inFlight: number; reidentifyS: number } | undefined;
let cluster: Cluster | undefined;

const dir = mkdtempSync(join(tmpdir(), "lh-bench-scale-"));
const port = await freePort();
const redis = testRedis(port, dir);
await redis.start();
const redisCli = (...args: string[]) => execFileSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" });
/** Calls of each command (and script, by `evalsha`) the server has run so far. */
const commandCalls = (): Record<string, number> =>
	Object.fromEntries(
		[...redisCli("info", "commandstats").matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)].map((m) => [
			m[1] as string,
			Number(m[2]),
		]),
	);
/** Bytes the server has received from all clients so far. */
const inputBytes = () => Number(/total_net_input_bytes:(\d+)/.exec(redisCli("info", "stats"))?.[1] ?? Number.NaN);

function report(partial: boolean): void {
	const by = <T>(f: (r: Run) => T) => Object.fromEntries(runs.map((r) => [String(r.processes), f(r)]));
	const table: Array<[string, (r: Run) => string]> = [
		["lessons started / with a card", (r) => `${r.lessonsStarted}/${r.lessonsLive}`],
		["s to start them", (r) => String(round(r.startSeconds, 0))],
		["starts never acked", (r) => String(r.startsUnacked)],
		["clicks in window", (r) => String(r.stats.clicks)],
		["ack p50 ms", (r) => String(round(r.stats.ackP50Ms))],
		["ack p99 ms", (r) => String(round(r.stats.ackP99Ms))],
		["ack max ms", (r) => String(round(r.stats.ackMaxMs))],
		["clicks never acked", (r) => String(r.stats.unacked)],
		["burst: clicks", (r) => String(r.burst.clicks)],
		["burst: ack p50 / p99 ms", (r) => `${round(r.burst.ackP50Ms, 0)} / ${round(r.burst.ackP99Ms, 0)}`],
		["burst: never acked", (r) => String(r.burst.unacked)],
		["turns per second", (r) => String(round(r.stats.turnsPerS, 2))],
		["lessons that turned", (r) => String(r.stats.lessonsTurning)],
		[
			"next question p50 / p99 s",
			(r) => `${round(r.stats.nextP50Ms / 1000, 1)} / ${round(r.stats.nextP99Ms / 1000, 1)}`,
		],
		["REST calls/turn (global)", (r) => String(round(r.stats.restGlobal / r.stats.turns, 2))],
		["REST calls/turn (all)", (r) => String(round(r.stats.restAll / r.stats.turns, 2))],
		["Redis bytes in/turn", (r) => String(round(r.redisBytesPerTurn, 0))],
		[
			"Redis commands/turn",
			(r) =>
				String(
					round(
						Object.values(r.redisCommandsPerTurn).reduce((a, b) => a + b, 0),
						1,
					),
				),
		],
		["bot CPU s per s", (r) => String(round(r.botCpuPerS, 2))],
		["bench loop delay p99 ms", (r) => String(round(r.benchLoopP99Ms))],
		["bench loop delay max ms", (r) => String(round(r.benchLoopMaxMs))],
		["re-clicks (click not acked)", (r) => String(r.reclicks)],
	];
	if (runs.length > 0) {
		console.log(`\nprocesses                     ${runs.map((r) => String(r.processes).padStart(12)).join("")}`);
		for (const [label, f] of table) console.log(`${label.padEnd(30)}${runs.map((r) => f(r).padStart(12)).join("")}`);
		console.log("\nglobal-limited REST calls per turn, by route:");
		const routes = new Set(runs.flatMap((r) => Object.keys(r.stats.byRoute)));
		for (const route of routes)
			console.log(
				`  ${route.padEnd(50)}${runs.map((r) => String(round((r.stats.byRoute[route] ?? 0) / r.stats.turns, 2)).padStart(8)).join("")}`,
			);
		console.log("\nRedis commands per turn, by command:");
		const commands = new Set(runs.flatMap((r) => Object.keys(r.redisCommandsPerTurn)));
		for (const command of [...commands].sort())
			console.log(
				`  ${command.padEnd(50)}${runs.map((r) => String(round(r.redisCommandsPerTurn[command] ?? 0, 2)).padStart(8)).join("")}`,
			);
	}
	const turns = runs.reduce((s, r) => s + r.stats.turns, 0);
	const rest = runs.reduce((s, r) => s + r.stats.restGlobal, 0);
	console.log(
		JSON.stringify({
			bench: "scale",
			backend: "redis",
			...(partial ? { partial: true } : {}),
			lessons_requested: LESSONS,
			lessons: by((r) => r.lessonsLive),
			ack_p50_ms: by((r) => round(r.stats.ackP50Ms)),
			ack_p99_ms: by((r) => round(r.stats.ackP99Ms)),
			ack_burst_p99_ms: by((r) => round(r.burst.ackP99Ms)),
			turns_per_s: by((r) => round(r.stats.turnsPerS, 2)),
			next_question_p50_s: by((r) => round(r.stats.nextP50Ms / 1000, 2)),
			next_question_p99_s: by((r) => round(r.stats.nextP99Ms / 1000, 2)),
			rest_calls_per_turn: turns > 0 ? round(rest / turns, 2) : null,
			rest_calls_per_turn_by_processes: by((r) => round(r.stats.restGlobal / r.stats.turns, 2)),
			redis_bytes_per_turn: by((r) => round(r.redisBytesPerTurn, 0)),
			redis_commands_per_turn: by((r) =>
				round(
					Object.values(r.redisCommandsPerTurn).reduce((a, b) => a + b, 0),
					1,
				),
			),
			bytes_per_turn: store?.after ?? null,
			bytes_per_turn_before: store?.before ?? null,
			handover_s: round(killHandover?.firstS ?? Number.NaN, 2),
			handover_all_s: round(killHandover?.allS ?? Number.NaN, 2),
			handover_in_flight: killHandover?.inFlight ?? null,
			handover_reidentify_s: round(killHandover?.reidentifyS ?? Number.NaN, 2),
			handover_store_s: round(store?.handoverS ?? Number.NaN, 2),
			lease_ttl_s: LEASE_TTL_MS / 1000,
			shard_mode: cluster?.mode ?? shardMode(),
			model_ms: [MODEL_MIN, MODEL_MAX],
			window_s: WINDOW_S,
			settle_s: SETTLE_S,
		}),
	);
}

for (const signal of ["SIGINT", "SIGTERM"] as const)
	process.once(signal, () => {
		console.error(`bench:scale: ${signal}; stopping`);
		void Promise.race([Promise.all([cluster?.stop(), redis.stop()]), sleep(12_000)]).finally(() => process.exit(130));
	});

const watchdog = setTimeout(() => {
	console.error(`bench:scale: still running after ${TIMEOUT_S} s; stopping with what it has`);
	report(true);
	void Promise.race([Promise.all([cluster?.stop(), redis.stop()]), sleep(12_000)]).finally(() => process.exit(1));
}, TIMEOUT_S * 1000);

/** The guilds of a run: GUILDS_PER_SHARD on each of 4 shards; under `count` shards, guild on 4-shard s is on s % count. */
function guildsFor(fake: FakeDiscord, count: number): BenchGuild[] {
	const out: BenchGuild[] = [];
	for (let s = 0; s < SHARD_BASE; s++)
		for (let g = 0; g < GUILDS_PER_SHARD; g++) {
			const { id, general } = fake.addGuild({ shard: [s, SHARD_BASE] });
			out.push({ id, general, shard: shardOfGuild(id, count) });
		}
	return out;
}

/** Wait (bounded) until `check` holds. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
	const end = Math.min(Date.now() + ms, deadline);
	while (Date.now() < end) {
		if (check()) return true;
		await sleep(200);
	}
	return check();
}

async function run(processes: number, modelUrl: string): Promise<void> {
	redisCli("flushall");
	// Shards may identify together (a large bot's max_concurrency): the runs start in seconds, not 5 s a shard.
	const fake = await startFakeDiscord({ shards: processes, maxConcurrency: processes });
	const guilds = guildsFor(fake, processes);
	const mode = shardMode();
	cluster = startCluster(
		processes,
		{
			DISCORD_TOKEN: fake.token,
			DISCORD_API_URL: fake.apiUrl,
			OPENAI_BASE_URL: modelUrl,
			OPENAI_API_KEY: "bench",
			LEARNHARNESS_MODEL: "bench-slow",
			LEARNHARNESS_STORE_URL: `redis://127.0.0.1:${port}`,
			LEARNHARNESS_LOG_LEVEL: "warn",
			LEARNHARNESS_RENDER_PAGES: "1",
			// The turn gate's target, to compare settings (unset: the default).
			...(process.env.LEARNHARNESS_TURN_LAG_MS
				? { LEARNHARNESS_TURN_LAG_MS: process.env.LEARNHARNESS_TURN_LAG_MS }
				: {}),
		},
		dir,
		mode,
		[...NODE_ARGS, ...(PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [])],
	);
	let learners: Learners | undefined;
	try {
		const shardsUp = () => new Set(fake.identifiedShards.filter(([, n]) => n === processes).map(([i]) => i)).size;
		const ready = await until(
			() => fake.commands.global.some((c) => c.name === "lesson") && shardsUp() === processes,
			120_000,
		);
		if (!ready)
			throw new Error(`the bot processes did not connect (${shardsUp()}/${processes} shards):\n${cluster.output()}`);
		await sleep(1000);
		console.log(
			`\n${processes} process(es) (${processes > 1 ? mode : "single"}) up after ${((Date.now() - started) / 1000).toFixed(0)} s; starting ${LESSONS} lessons`,
		);
		learners = new Learners(fake, guilds, { thinkMs: THINK_MS, stallMs: 5_000 });
		const t0 = Date.now();
		const l = learners;
		// Lessons start with clicks held back (each start costs the bot REST calls under its global limit),
		// then every learner clicks: the window sees all of them live at once.
		l.pause();
		// Warm-up: a lesson per guild first, so every shard process has loaded what a lesson needs
		// (a cold process on a loaded machine can miss Discord's 3 s ack for its first interactions).
		const warm = await l.start(Math.min(guilds.length, LESSONS), 2 * processes, deadline);
		await until(() => l.live() >= warm * 0.9, 60_000);
		const startBy = Math.min(deadline, Date.now() + START_BOUND_S * 1000);
		const sent = warm + (await l.start(LESSONS - warm, Math.min(START_RATE * processes, 60), startBy));
		await until(() => l.live() >= sent * 0.98, Math.max(5_000, startBy - Date.now()));
		console.log(
			`${l.live()} of ${sent} lessons have a quiz card after ${((Date.now() - t0) / 1000).toFixed(0)} s; learners click from now; measuring ${WINDOW_S} s`,
		);
		l.resume();
		const resumedAt = Date.now();
		await sleep(Math.max(0, Math.min(SETTLE_S * 1000, deadline - Date.now() - WINDOW_S * 1000 - 60_000)));
		const lag = monitorEventLoopDelay({ resolution: 10 });
		lag.enable();
		const cpu0 = cluster.cpuSeconds();
		const bytes0 = inputBytes();
		const calls0 = commandCalls();
		const from = Date.now();
		await sleep(Math.min(WINDOW_S * 1000, Math.max(0, deadline - Date.now() - 30_000)));
		const to = Date.now();
		const bytes1 = inputBytes();
		const calls1 = commandCalls();
		const cpu1 = cluster.cpuSeconds();
		lag.disable();
		await sleep(3_500); // acks of the window's last clicks (Discord refuses them after 3 s)
		const stats = l.window(from, to);
		if (process.env.BENCH_CLICKS_FILE)
			writeFileSync(
				`${process.env.BENCH_CLICKS_FILE}.${processes}.json`,
				JSON.stringify(
					l.clicks.map((c) => ({ at: c.it.createdAt, ack: c.it.ackedAt, ch: c.it.channelId, g: c.it.guildId })),
				),
			);
		runs.push({
			processes,
			lessonsStarted: sent,
			lessonsLive: l.live(),
			stats,
			redisBytesPerTurn: (bytes1 - bytes0) / stats.turns,
			redisCommandsPerTurn: Object.fromEntries(
				Object.entries(calls1)
					.map(([name, n]) => [name, (n - (calls0[name] ?? 0)) / stats.turns] as const)
					.filter(([, perTurn]) => perTurn >= 0.01),
			),
			botCpuPerS: (cpu1 - cpu0) / stats.seconds,
			benchLoopP99Ms: lag.percentile(99) / 1e6,
			benchLoopMaxMs: lag.max / 1e6,
			burst: l.window(resumedAt, from),
			reclicks: l.reclicks,
			startsUnacked: l.starts.filter((it) => it.ackedAt === undefined).length,
			startSeconds: (from - t0) / 1000,
		});
		const refused = l.starts.filter((it) => it.ackedAt === undefined);
		if (refused.length > 0) {
			const byShard: Record<string, number> = {};
			for (const it of refused) {
				const shard = guilds.find((g) => g.id === it.guildId)?.shard ?? -1;
				byShard[shard] = (byShard[shard] ?? 0) + 1;
			}
			console.log(`starts never acked, by shard: ${JSON.stringify(byShard)}; the bots' last output:`);
			console.log(cluster.output(3000));
		}
		console.log(`bench heap ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB at the end of the window`);
		console.log(
			`${processes} process(es): ack p50 ${round(stats.ackP50Ms)} ms, p99 ${round(stats.ackP99Ms)} ms; ${round(stats.turnsPerS, 2)} turns/s; ${round(stats.restGlobal / stats.turns, 2)} global REST calls/turn`,
		);
		if (processes === KILL_AT && processes > 1 && deadline - Date.now() > 75_000)
			await killOne(l, cluster, fake, processes);
	} finally {
		learners?.stop();
		await cluster.stop();
		await fake.close();
	}
}

/**
 * kill -9 shard 1's process mid-turn. The hand-over: from the kill until the first of the turns
 * it had in flight is finished by its replacement (a card after the shard's next IDENTIFY: what
 * arrives before it is the dead process's last request, still on the wire); also until all are.
 */
async function killOne(l: Learners, c: Cluster, fake: FakeDiscord, processes: number): Promise<void> {
	const shard = 1;
	const inFlight = new Set(l.inFlight(shard));
	const identifies = () => fake.identifiedShards.filter(([i, n]) => i === shard && n === processes).length;
	const before = identifies();
	const killedAt = Date.now();
	const mark = l.cardTimes.length;
	c.kill(shard);
	console.log(
		`killed shard ${shard} (SIGKILL) with ${inFlight.size} turns in flight; waiting for them to finish elsewhere`,
	);
	await until(() => identifies() > before, 60_000);
	const replacedAt = identifies() > before ? Date.now() : Number.NaN;
	const done = new Map<string, number>();
	await until(() => {
		if (Number.isNaN(replacedAt)) return true;
		for (const card of l.cardTimes.slice(mark))
			if (card.at >= replacedAt && inFlight.has(card.thread) && !done.has(card.thread)) done.set(card.thread, card.at);
		return done.size >= inFlight.size;
	}, 30_000);
	const times = [...done.values()].map((at) => (at - killedAt) / 1000).sort((a, b) => a - b);
	killHandover = {
		firstS: times[0] ?? Number.NaN,
		allS: done.size === inFlight.size ? (times.at(-1) ?? Number.NaN) : Number.NaN,
		inFlight: inFlight.size,
		reidentifyS: (replacedAt - killedAt) / 1000,
	};
	console.log(
		`hand-over after kill -9: shard re-identified after ${round(killHandover.reidentifyS, 2)} s; first turn re-run done ${round(killHandover.firstS, 2)} s; ${done.size}/${inFlight.size} done, the last after ${round(killHandover.allS, 2)} s`,
	);
}

let failed = false;
try {
	store = await storeBench(redis.url, inputBytes);
	const model = await startSlowModel(MODEL_MIN, MODEL_MAX);
	try {
		for (const n of PROCESSES) {
			if (deadline - Date.now() < 90_000) {
				console.log(`skipping ${n} process(es): under 90 s left of BENCH_TIMEOUT_S`);
				continue;
			}
			try {
				await run(n, model.baseURL);
			} catch (error) {
				failed = true;
				console.error(`bench:scale: the run with ${n} process(es) failed:`, error);
			}
		}
	} finally {
		await model.close();
	}
} finally {
	clearTimeout(watchdog);
	await redis.stop();
	rmSync(dir, { recursive: true, force: true });
}
report(failed || runs.length < PROCESSES.length);
