/**
 * Scale benchmark (`npm run bench:scale`), issues 12 and 32. On a private redis-server (a spare
 * loopback port, nothing else talking to it):
 *
 * 1. The store part (bench/scale/store.ts): bytes a turn writes at 20 and 200 messages, and the
 *    lease hand-over time at the store after a holder dies.
 * 2. Runs of 1, 2 and 4 real `learnharness start` processes (Discord shards: bench/scale/cluster.ts)
 *    on that Redis, then one on a SQLite file, each with the fake Discord (testkit/fakes/discord.ts;
 *    guilds spread over the shards), discord.js's own REST rate limiter as shipped, and a slow
 *    OpenAI-compatible model (a fake in a worker thread answering each request after 1–2 s with a
 *    quiz, forever). Learners start BENCH_LESSONS lessons by `/lesson start` (clicks held back: a
 *    warm-up lesson per guild, then BENCH_START_RATE a second per process, 11, for at most
 *    BENCH_START_BOUND_S, 90; lessons not started in time do not count, `lessons` says how many were
 *    live), then:
 *    - the headline, a human pace: a click per lesson every BENCH_HUMAN_CLICK_S (30) seconds on average
 *      (exponential think times, so there is no burst), BENCH_SETTLE_S (10) to settle, then
 *      BENCH_HUMAN_RUNS (3) windows of BENCH_HUMAN_WINDOW_S (30) seconds, reported as medians;
 *    - for the counts in BENCH_SATURATION (1,2), saturation: every learner clicks within BENCH_THINK_MS
 *      (1,500) of each card (at the switch every waiting learner at once: a burst reported on its
 *      own), a window of BENCH_WINDOW_S (30) after BENCH_SETTLE_S.
 *    Each window (bench/scale/measure.ts): ack p50/p99 of the clicks, turns per second, the wait for the
 *    next question, REST calls per turn, the bots' node CPU ms per turn and read/write syscalls per turn,
 *    and on Redis client round trips per turn (`total_reads_processed`), bytes and commands per turn.
 * 3. In the run with 2 processes (BENCH_KILL_AT), after saturation, shard 1's process is killed with
 *    SIGKILL mid-turn: the hand-over time is from the kill until the first of its turns in flight is
 *    finished by its replacement (the manager respawns it; the lease expires; the turn re-runs).
 *
 * Other knobs: BENCH_PROCESSES (1,2,4), BENCH_SQLITE (0: no SQLite run), BENCH_MODEL_MS ("1000-2000"),
 * BENCH_SHARD_MODE (manager|env), BENCH_TIMEOUT_S (1,800: a watchdog ends everything and prints what it
 * has), BENCH_PROFILE_DIR (a CPU profile per bot process), BENCH_NODE_ARGS (node flags for the bot
 * processes), BENCH_CLICKS_FILE (each click's times as JSON, one file per run); LEARNHARNESS_TURN_LAG_MS
 * goes to the bots. Loopback only. The last line is one JSON object (bench/scale/report.ts).
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LEASE_TTL_MS } from "../src/agent/engine/lease.ts";
import { freePort, redisServerInstalled, testRedis } from "../test/fixtures/redis-server.ts";
import { shardOfGuild } from "../testkit/fakes/discord/gateway.ts";
import { type FakeDiscord, startFakeDiscord } from "../testkit/fakes/discord.ts";
import { type Cluster, shardMode, startCluster } from "./scale/cluster.ts";
import { type BenchGuild, Learners, type Think } from "./scale/drive.ts";
import { type Measured, measureWindow, type RedisCounters } from "./scale/measure.ts";
import { startSlowModel } from "./scale/model.ts";
import { type RunResult, report, round } from "./scale/report.ts";
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
const TIMEOUT_S = num("BENCH_TIMEOUT_S", 1800);
const KILL_AT = num("BENCH_KILL_AT", 2);
/** The human pace: a click per lesson every BENCH_HUMAN_CLICK_S seconds on average (think time plus the turn). */
const HUMAN_CLICK_S = num("BENCH_HUMAN_CLICK_S", 30);
/** Think times of the human pace: exponential, the mean less the model's mean time, capped at 4 means. */
const HUMAN_THINK_MS = Math.max(1000, HUMAN_CLICK_S * 1000 - (MODEL_MIN + MODEL_MAX) / 2);
const HUMAN: Think = { kind: "exponential", meanMs: HUMAN_THINK_MS, capMs: 4 * HUMAN_THINK_MS };
/** Windows measured at the human pace in each run (their medians are reported), and their length. */
const HUMAN_RUNS = num("BENCH_HUMAN_RUNS", 3);
const HUMAN_WINDOW_S = num("BENCH_HUMAN_WINDOW_S", 30);
/** Process counts (on Redis) that are also measured at saturation after the human pace. */
const SATURATION = (process.env.BENCH_SATURATION ?? "1,2").split(",").map(Number);
/** One process on a SQLite file after the Redis runs (BENCH_SQLITE=0: none). */
const SQLITE = process.env.BENCH_SQLITE !== "0";
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

const runs: RunResult[] = [];
let store: { before: Record<string, number>; after: Record<string, number>; handoverS: number } | undefined;
let killHandover: { firstS: number; allS: number; inFlight: number; reidentifyS: number } | undefined;
let cluster: Cluster | undefined;

const dir = mkdtempSync(join(tmpdir(), "lh-bench-scale-"));
const port = await freePort();
const redis = testRedis(port, dir);
await redis.start();
const redisCli = (...args: string[]) => execFileSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" });
const statOf = (name: string) =>
	Number(new RegExp(`${name}:(\\d+)`).exec(redisCli("info", "stats"))?.[1] ?? Number.NaN);
const redisCounters: RedisCounters = {
	reads: () => statOf("total_reads_processed"),
	inputBytes: () => statOf("total_net_input_bytes"),
	commands: () =>
		Object.fromEntries(
			[...redisCli("info", "commandstats").matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)].map((m) => [
				m[1] as string,
				Number(m[2]),
			]),
		),
};

for (const signal of ["SIGINT", "SIGTERM"] as const)
	process.once(signal, () => {
		console.error(`bench:scale: ${signal}; stopping`);
		void Promise.race([Promise.all([cluster?.stop(), redis.stop()]), sleep(12_000)]).finally(() => process.exit(130));
	});

const watchdog = setTimeout(() => {
	console.error(`bench:scale: still running after ${TIMEOUT_S} s; stopping with what it has`);
	printReport(true);
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

/** A run to make: processes on the private Redis, or one on a SQLite file. */
interface RunSpec {
	label: string;
	processes: number;
	sqlite: boolean;
	saturation: boolean;
}

async function run(spec: RunSpec, modelUrl: string): Promise<void> {
	const { processes } = spec;
	redisCli("flushall");
	// Shards may identify together (a large bot's max_concurrency): the runs start in seconds, not 5 s a shard.
	const fake = await startFakeDiscord({ shards: processes, maxConcurrency: processes });
	const guilds = guildsFor(fake, processes);
	const mode = shardMode();
	const storeUrl = spec.sqlite ? `sqlite://${join(dir, `bench-${runs.length}.sqlite`)}` : `redis://127.0.0.1:${port}`;
	cluster = startCluster(
		processes,
		{
			DISCORD_TOKEN: fake.token,
			DISCORD_API_URL: fake.apiUrl,
			OPENAI_BASE_URL: modelUrl,
			OPENAI_API_KEY: "bench",
			LEARNHARNESS_MODEL: "bench-slow",
			LEARNHARNESS_STORE_URL: storeUrl,
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
	const c = cluster;
	const counters = spec.sqlite ? undefined : redisCounters;
	let learners: Learners | undefined;
	try {
		const shardsUp = () => new Set(fake.identifiedShards.filter(([, n]) => n === processes).map(([i]) => i)).size;
		const ready = await until(
			() => fake.commands.global.some((c) => c.name === "lesson") && shardsUp() === processes,
			120_000,
		);
		if (!ready)
			throw new Error(`the bot processes did not connect (${shardsUp()}/${processes} shards):\n${c.output()}`);
		await sleep(1000);
		console.log(
			`\n${spec.label}: ${processes} process(es) (${processes > 1 ? mode : "single"}) on ${spec.sqlite ? "SQLite" : "Redis"} up after ${((Date.now() - started) / 1000).toFixed(0)} s; starting ${LESSONS} lessons`,
		);
		learners = new Learners(fake, guilds, { stallMs: 5_000, think: HUMAN });
		const t0 = Date.now();
		const l = learners;
		// Lessons start with clicks held back (each start costs the bot REST calls under its global limit).
		l.pause();
		// Warm-up: a lesson per guild first, so every shard process has loaded what a lesson needs
		// (a cold process on a loaded machine can miss Discord's 3 s ack for its first interactions).
		const warm = await l.start(Math.min(guilds.length, LESSONS), 2 * processes, deadline);
		await until(() => l.live() >= warm * 0.9, 60_000);
		const startBy = Math.min(deadline, Date.now() + START_BOUND_S * 1000);
		const sent = warm + (await l.start(LESSONS - warm, Math.min(START_RATE * processes, 60), startBy));
		await until(() => l.live() >= sent * 0.98, Math.max(5_000, startBy - Date.now()));
		const startSeconds = (Date.now() - t0) / 1000;
		console.log(
			`${l.live()} of ${sent} lessons have a quiz card after ${startSeconds.toFixed(0)} s; learners click at a human pace from now`,
		);
		// Human pace: think times are exponential (memoryless), so the resume starts at the steady rate, no burst.
		l.resume();
		await sleep(Math.max(0, Math.min(SETTLE_S * 1000, deadline - Date.now() - 120_000)));
		const human: Measured[] = [];
		for (let i = 0; i < HUMAN_RUNS && deadline - Date.now() > HUMAN_WINDOW_S * 1000 + 60_000; i++) {
			const m = await measureWindow(l, c, counters, HUMAN_WINDOW_S, deadline);
			human.push(m);
			console.log(
				`  human pace window ${i + 1}: ${m.stats.clicks} clicks, ${round(m.stats.turnsPerS)} turns/s, ack p50 ${round(m.stats.ackP50Ms)} / p99 ${round(m.stats.ackP99Ms)} ms, ${round(m.cpuMsPerTurn)} CPU ms/turn, ${round(m.roundTripsPerTurn)} round trips/turn`,
			);
		}
		const result: RunResult = {
			label: spec.label,
			processes,
			lessonsStarted: sent,
			lessonsLive: l.live(),
			startsUnacked: l.starts.filter((it) => it.ackedAt === undefined).length,
			startSeconds,
			human,
		};
		runs.push(result);
		if (spec.saturation && deadline - Date.now() > WINDOW_S * 1000 + 60_000) {
			// Every learner as fast as a card allows: at the switch every waiting learner clicks within one think
			// time (a burst no real group makes, reported on its own); the window starts SETTLE_S later.
			l.pace({ kind: "uniform", maxMs: THINK_MS });
			const switchedAt = Date.now();
			await sleep(Math.max(0, Math.min(SETTLE_S * 1000, deadline - Date.now() - WINDOW_S * 1000 - 60_000)));
			const windowFrom = Date.now();
			const m = await measureWindow(l, c, counters, WINDOW_S, deadline);
			result.saturation = { ...m, burst: l.window(switchedAt, windowFrom), reclicks: l.reclicks };
			console.log(
				`  saturation: ack p50 ${round(m.stats.ackP50Ms)} ms, p99 ${round(m.stats.ackP99Ms)} ms; ${round(m.stats.turnsPerS, 2)} turns/s; ${round(m.cpuMsPerTurn)} CPU ms/turn`,
			);
		}
		if (process.env.BENCH_CLICKS_FILE)
			writeFileSync(
				`${process.env.BENCH_CLICKS_FILE}.${spec.label}.json`,
				JSON.stringify(
					l.clicks.map((k) => ({ at: k.it.createdAt, ack: k.it.ackedAt, ch: k.it.channelId, g: k.it.guildId })),
				),
			);
		const refused = l.starts.filter((it) => it.ackedAt === undefined);
		if (refused.length > 0) {
			const byShard: Record<string, number> = {};
			for (const it of refused) {
				const shard = guilds.find((g) => g.id === it.guildId)?.shard ?? -1;
				byShard[shard] = (byShard[shard] ?? 0) + 1;
			}
			console.log(`starts never acked, by shard: ${JSON.stringify(byShard)}; the bots' last output:`);
			console.log(c.output(3000));
		}
		if (!spec.sqlite && processes === KILL_AT && processes > 1 && deadline - Date.now() > 75_000)
			await killOne(l, c, fake, processes);
	} finally {
		learners?.stop();
		await c.stop();
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

/** The runs: each process count on Redis, then one process on SQLite; saturation for the counts in BENCH_SATURATION. */
const specs: RunSpec[] = [
	...PROCESSES.map((n) => ({ label: String(n), processes: n, sqlite: false, saturation: SATURATION.includes(n) })),
	...(SQLITE ? [{ label: "sqlite", processes: 1, sqlite: true, saturation: false }] : []),
];
const printReport = (partial: boolean) =>
	report(runs, {
		partial,
		lessonsRequested: LESSONS,
		store,
		killHandover,
		leaseTtlS: LEASE_TTL_MS / 1000,
		shardMode: cluster?.mode ?? shardMode(),
		modelMs: [MODEL_MIN, MODEL_MAX],
		humanMeanS: HUMAN_CLICK_S,
		windowS: WINDOW_S,
		humanWindowS: HUMAN_WINDOW_S,
		settleS: SETTLE_S,
	});

let failed = false;
try {
	store = await storeBench(redis.url, redisCounters.inputBytes);
	const model = await startSlowModel(MODEL_MIN, MODEL_MAX);
	try {
		for (const spec of specs) {
			if (deadline - Date.now() < 150_000) {
				console.log(`skipping run ${spec.label}: under 150 s left of BENCH_TIMEOUT_S`);
				continue;
			}
			try {
				await run(spec, model.baseURL);
			} catch (error) {
				failed = true;
				console.error(`bench:scale: run ${spec.label} failed:`, error);
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
printReport(failed || runs.length < specs.length);
