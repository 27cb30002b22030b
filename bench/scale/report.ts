/**
 * What `bench:scale` prints: a table per pace (the runs side by side), the saturation runs' REST calls and
 * Redis commands by route and by command, and the last line, one JSON object.
 */

import type { WindowStats } from "./drive.ts";
import { commandsPerTurn, type Measured, median } from "./measure.ts";

/** One run as bench/scale.ts keeps it. */
export interface RunResult {
	label: string;
	processes: number;
	lessonsStarted: number;
	lessonsLive: number;
	startsUnacked: number;
	startSeconds: number;
	human: Measured[];
	saturation?: Measured & { burst: WindowStats; reclicks: number };
}

/** Everything else the JSON carries. */
export interface ReportExtras {
	partial: boolean;
	lessonsRequested: number;
	store?: { before: Record<string, number>; after: Record<string, number>; handoverS: number };
	killHandover?: { firstS: number; allS: number; inFlight: number; reidentifyS: number };
	leaseTtlS: number;
	shardMode: string;
	modelMs: [number, number];
	humanMeanS: number;
	windowS: number;
	humanWindowS: number;
	settleS: number;
}

export const round = (n: number, d = 1) => (Number.isFinite(n) ? Number(n.toFixed(d)) : null);

/** The median over a run's human-pace windows of `f`. */
const humanMedian = (r: RunResult, f: (m: Measured) => number) => median(r.human.map(f));

function table(title: string, columns: RunResult[], rows: Array<[string, (r: RunResult) => string]>): void {
	if (columns.length === 0) return;
	console.log(`\n${title}`);
	console.log(`${"runs".padEnd(34)}${columns.map((r) => r.label.padStart(12)).join("")}`);
	for (const [label, f] of rows) console.log(`${label.padEnd(34)}${columns.map((r) => f(r).padStart(12)).join("")}`);
}

/** Print the tables and the JSON line. */
export function report(runs: RunResult[], x: ReportExtras): void {
	const s = (n: number, d = 1) => String(round(n, d));
	const redisRuns = runs.filter((r) => r.label !== "sqlite");
	table(
		`human pace (a click per lesson every ~${x.humanMeanS} s), medians of each run's windows of ${x.humanWindowS} s:`,
		runs,
		[
			["lessons started / with a card", (r) => `${r.lessonsStarted}/${r.lessonsLive}`],
			["s to start them", (r) => s(r.startSeconds, 0)],
			["starts never acked", (r) => String(r.startsUnacked)],
			["windows", (r) => String(r.human.length)],
			[
				"clicks per window",
				(r) =>
					s(
						humanMedian(r, (m) => m.stats.clicks),
						0,
					),
			],
			[
				"turns per second",
				(r) =>
					s(
						humanMedian(r, (m) => m.stats.turnsPerS),
						1,
					),
			],
			["ack p50 ms", (r) => s(humanMedian(r, (m) => m.stats.ackP50Ms))],
			["ack p99 ms", (r) => s(humanMedian(r, (m) => m.stats.ackP99Ms))],
			["ack p99 ms, each window", (r) => r.human.map((m) => s(m.stats.ackP99Ms, 0)).join("/")],
			["clicks never acked (all windows)", (r) => String(r.human.reduce((n, m) => n + m.stats.unacked, 0))],
			[
				"next question p50 s",
				(r) =>
					s(
						humanMedian(r, (m) => m.stats.nextP50Ms / 1000),
						2,
					),
			],
			["bot CPU ms per turn (node)", (r) => s(humanMedian(r, (m) => m.cpuMsPerTurn))],
			[
				"bot CPU cores (with Chromium)",
				(r) =>
					s(
						humanMedian(r, (m) => m.botCpuPerS),
						2,
					),
			],
			[
				"read/write syscalls per turn",
				(r) =>
					s(
						humanMedian(r, (m) => m.syscallsPerTurn),
						0,
					),
			],
			["Redis round trips per turn", (r) => s(humanMedian(r, (m) => m.roundTripsPerTurn))],
			["Redis commands per turn", (r) => s(humanMedian(r, commandsPerTurn))],
			[
				"Redis bytes in per turn",
				(r) =>
					s(
						humanMedian(r, (m) => m.redisBytesPerTurn),
						0,
					),
			],
		],
	);
	const sat = runs.filter((r) => r.saturation);
	const S = (r: RunResult) => r.saturation as NonNullable<RunResult["saturation"]>;
	table(`saturation (every learner clicks within 1.5 s of a card), a window of ${x.windowS} s:`, sat, [
		["clicks in window", (r) => String(S(r).stats.clicks)],
		["turns per second", (r) => s(S(r).stats.turnsPerS, 2)],
		[
			"ack p50 / p99 / max ms",
			(r) => `${s(S(r).stats.ackP50Ms, 0)}/${s(S(r).stats.ackP99Ms, 0)}/${s(S(r).stats.ackMaxMs, 0)}`,
		],
		["clicks never acked", (r) => String(S(r).stats.unacked)],
		["switch burst: clicks", (r) => String(S(r).burst.clicks)],
		["switch burst: ack p50 / p99 ms", (r) => `${s(S(r).burst.ackP50Ms, 0)}/${s(S(r).burst.ackP99Ms, 0)}`],
		["next question p50 / p99 s", (r) => `${s(S(r).stats.nextP50Ms / 1000)}/${s(S(r).stats.nextP99Ms / 1000)}`],
		[
			"REST calls/turn (global / all)",
			(r) => `${s(S(r).stats.restGlobal / S(r).stats.turns, 2)}/${s(S(r).stats.restAll / S(r).stats.turns, 2)}`,
		],
		["bot CPU ms per turn (node)", (r) => s(S(r).cpuMsPerTurn)],
		["bot CPU cores (with Chromium)", (r) => s(S(r).botCpuPerS, 2)],
		["read/write syscalls per turn", (r) => s(S(r).syscallsPerTurn, 0)],
		["Redis round trips per turn", (r) => s(S(r).roundTripsPerTurn)],
		["Redis commands per turn", (r) => s(commandsPerTurn(S(r)))],
		["bench loop delay p99 / max ms", (r) => `${s(S(r).benchLoopP99Ms, 0)}/${s(S(r).benchLoopMaxMs, 0)}`],
		["re-clicks (click not acked)", (r) => String(S(r).reclicks)],
	]);
	if (sat.length > 0) {
		console.log("\nsaturation: global-limited REST calls per turn, by route:");
		const routes = new Set(sat.flatMap((r) => Object.keys(S(r).stats.byRoute)));
		for (const route of routes)
			console.log(
				`  ${route.padEnd(50)}${sat.map((r) => s((S(r).stats.byRoute[route] ?? 0) / S(r).stats.turns, 2).padStart(8)).join("")}`,
			);
	}
	if (redisRuns.length > 0) {
		console.log("\nhuman pace: Redis commands per turn, by command (median windows):");
		const commands = new Set(redisRuns.flatMap((r) => r.human.flatMap((m) => Object.keys(m.redisCommandsPerTurn))));
		for (const command of [...commands].sort())
			console.log(
				`  ${command.padEnd(50)}${redisRuns
					.map((r) =>
						s(
							humanMedian(r, (m) => m.redisCommandsPerTurn[command] ?? 0),
							2,
						).padStart(8),
					)
					.join("")}`,
			);
	}
	const by = <T>(list: RunResult[], f: (r: RunResult) => T) => Object.fromEntries(list.map((r) => [r.label, f(r)]));
	const human = (f: (m: Measured) => number, d = 1) => by(runs, (r) => round(humanMedian(r, f), d));
	const humanRedis = (f: (m: Measured) => number, d = 1) => by(redisRuns, (r) => round(humanMedian(r, f), d));
	const saturation = (f: (m: NonNullable<RunResult["saturation"]>) => number, d = 1) =>
		by(sat, (r) => round(f(S(r)), d));
	console.log(
		JSON.stringify({
			bench: "scale",
			...(x.partial ? { partial: true } : {}),
			lessons_requested: x.lessonsRequested,
			lessons: by(runs, (r) => r.lessonsLive),
			human_pace: {
				click_every_s: x.humanMeanS,
				windows: by(runs, (r) => r.human.length),
				ack_p50_ms: human((m) => m.stats.ackP50Ms),
				ack_p99_ms: human((m) => m.stats.ackP99Ms),
				unacked: by(runs, (r) => r.human.reduce((n, m) => n + m.stats.unacked, 0)),
				turns_per_s: human((m) => m.stats.turnsPerS),
				next_question_p50_s: human((m) => m.stats.nextP50Ms / 1000, 2),
				cpu_ms_per_turn: human((m) => m.cpuMsPerTurn),
				syscalls_per_turn: human((m) => m.syscallsPerTurn, 0),
				round_trips_per_turn: humanRedis((m) => m.roundTripsPerTurn),
				redis_commands_per_turn: humanRedis(commandsPerTurn),
				redis_bytes_per_turn: humanRedis((m) => m.redisBytesPerTurn, 0),
			},
			saturation: {
				turns_per_s: saturation((m) => m.stats.turnsPerS, 2),
				ack_p50_ms: saturation((m) => m.stats.ackP50Ms),
				ack_p99_ms: saturation((m) => m.stats.ackP99Ms),
				unacked: saturation((m) => m.stats.unacked, 0),
				burst_ack_p99_ms: saturation((m) => m.burst.ackP99Ms),
				cpu_ms_per_turn: saturation((m) => m.cpuMsPerTurn),
				round_trips_per_turn: saturation((m) => m.roundTripsPerTurn),
				rest_calls_per_turn: saturation((m) => m.stats.restGlobal / m.stats.turns, 2),
			},
			bytes_per_turn: x.store?.after ?? null,
			bytes_per_turn_before: x.store?.before ?? null,
			handover_s: round(x.killHandover?.firstS ?? Number.NaN, 2),
			handover_all_s: round(x.killHandover?.allS ?? Number.NaN, 2),
			handover_in_flight: x.killHandover?.inFlight ?? null,
			handover_reidentify_s: round(x.killHandover?.reidentifyS ?? Number.NaN, 2),
			handover_store_s: round(x.store?.handoverS ?? Number.NaN, 2),
			lease_ttl_s: x.leaseTtlS,
			shard_mode: x.shardMode,
			model_ms: x.modelMs,
			window_s: { human: x.humanWindowS, saturation: x.windowS },
			settle_s: x.settleS,
		}),
	);
}
