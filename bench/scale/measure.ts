/**
 * One measuring window of `bench:scale`: the learners' view (acks, turns, the wait for the next question,
 * REST calls) from the fake's side, and what the turns cost the bots: CPU time of their node processes
 * (Chromium apart), their read- and write-family system calls, and on Redis the client round trips as the
 * server saw them (`total_reads_processed`: one read event per request or pipelined batch a client sent),
 * the bytes it received and its commands by name (`INFO commandstats`; commands inside scripts count too).
 */

import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Cluster } from "./cluster.ts";
import type { Learners, WindowStats } from "./drive.ts";

/** The private Redis's counters (absent on the embedded store). */
export interface RedisCounters {
	/** Read events the server processed so far (client round trips). */
	reads(): number;
	/** Bytes the server received so far. */
	inputBytes(): number;
	/** Calls of each command so far. */
	commands(): Record<string, number>;
}

/** What one window measured. */
export interface Measured {
	stats: WindowStats;
	/** CPU ms of the bots' node processes per turn (their CPU time over the window / turns). */
	cpuMsPerTurn: number;
	/** The bots' processes, their Chromium included: CPU seconds per second of the window. */
	botCpuPerS: number;
	syscallsPerTurn: number;
	roundTripsPerTurn: number;
	redisBytesPerTurn: number;
	redisCommandsPerTurn: Record<string, number>;
	benchLoopP99Ms: number;
	benchLoopMaxMs: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Measure a window of `seconds` from now (bounded by `deadline`), then wait for its last clicks' acks. */
export async function measureWindow(
	learners: Learners,
	cluster: Cluster,
	redis: RedisCounters | undefined,
	seconds: number,
	deadline: number,
): Promise<Measured> {
	const lag = monitorEventLoopDelay({ resolution: 10 });
	lag.enable();
	const usage0 = cluster.nodeUsage();
	const all0 = cluster.cpuSeconds();
	const reads0 = redis?.reads() ?? Number.NaN;
	const bytes0 = redis?.inputBytes() ?? Number.NaN;
	const calls0 = redis?.commands() ?? {};
	const from = Date.now();
	await sleep(Math.min(seconds * 1000, Math.max(0, deadline - Date.now() - 30_000)));
	const to = Date.now();
	const usage1 = cluster.nodeUsage();
	const all1 = cluster.cpuSeconds();
	const reads1 = redis?.reads() ?? Number.NaN;
	const bytes1 = redis?.inputBytes() ?? Number.NaN;
	const calls1 = redis?.commands() ?? {};
	lag.disable();
	await sleep(3_500); // acks of the window's last clicks (Discord refuses them after 3 s)
	const stats = learners.window(from, to);
	const perTurn = (n: number) => n / stats.turns;
	return {
		stats,
		cpuMsPerTurn: perTurn((usage1.cpuS - usage0.cpuS) * 1000),
		botCpuPerS: (all1 - all0) / stats.seconds,
		syscallsPerTurn: perTurn(usage1.syscalls - usage0.syscalls),
		roundTripsPerTurn: perTurn(reads1 - reads0),
		redisBytesPerTurn: perTurn(bytes1 - bytes0),
		redisCommandsPerTurn: Object.fromEntries(
			Object.entries(calls1)
				.map(([name, n]) => [name, perTurn(n - (calls0[name] ?? 0))] as const)
				.filter(([, n]) => n >= 0.01),
		),
		benchLoopP99Ms: lag.percentile(99) / 1e6,
		benchLoopMaxMs: lag.max / 1e6,
	};
}

/** Median of the finite numbers (NaN when none). */
export function median(values: number[]): number {
	const v = values.filter(Number.isFinite).sort((a, b) => a - b);
	if (v.length === 0) return Number.NaN;
	const mid = Math.floor(v.length / 2);
	return v.length % 2 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
}

/** The sum of a window's Redis commands per turn. */
export const commandsPerTurn = (m: Measured): number =>
	Object.values(m.redisCommandsPerTurn).reduce((a, b) => a + b, 0);
