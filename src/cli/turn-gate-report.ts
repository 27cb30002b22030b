/**
 * What an operator sees of the turn gate (src/agent/engine/turn-gate.ts): a line in `/readyz`
 * (always ready: a saturated process still acknowledges on time, and held turns run within
 * 30 s) and, at most once a minute while turns had to wait, an info log line saying how many
 * and how long. A process that logs it is CPU-bound: learners wait longer for their next
 * question; more cores or processes help (docs/scaling.md).
 */

import { TURN_GATE_MAX_LIMIT, type TurnGate, type TurnGateStats } from "../agent/index.ts";
import type { Logger } from "../core/contracts/logger.ts";

/** How often the gate is looked at for the log line. */
export const TURN_GATE_REPORT_MS = 60_000;

/** The gate's state in words, for `/readyz`. */
export function turnGateDetail(stats: TurnGateStats): string {
	const limit = stats.limit >= TURN_GATE_MAX_LIMIT ? "no limit" : `limit ${stats.limit}`;
	return `${stats.running} running, ${stats.waiting} waiting (${limit}; loop ${Math.round(stats.load * 100)}% busy)`;
}

/** The log line's fields for the turns that waited between two looks, or undefined when none did. */
export function turnGateReport(
	before: TurnGateStats,
	now: TurnGateStats,
): { held: number; averageWaitMs: number; limit: number; waiting: number; loadPercent: number } | undefined {
	const held = now.held - before.held;
	if (held <= 0) return undefined;
	return {
		held,
		averageWaitMs: Math.round((now.waitedMs - before.waitedMs) / held),
		limit: now.limit,
		waiting: now.waiting,
		loadPercent: Math.round(now.load * 100),
	};
}

/** Log the gate's held turns every `everyMs`; returns the stop function. */
export function reportTurnGate(gate: TurnGate, logger: Logger, everyMs = TURN_GATE_REPORT_MS): () => void {
	let before = gate.stats();
	const timer = setInterval(() => {
		const now = gate.stats();
		const report = turnGateReport(before, now);
		before = now;
		if (report) logger.info(report, "turn gate: turns waited for a slot (this process is CPU-bound)");
	}, everyMs);
	timer.unref?.();
	return () => clearInterval(timer);
}
