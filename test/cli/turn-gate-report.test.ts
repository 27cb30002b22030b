/**
 * What an operator sees of the turn gate: its state in /readyz, and a log line at most once a
 * period while turns had to wait (how many, how long on average), none while none did.
 */

import { describe, expect, it } from "vitest";
import type { TurnGate, TurnGateStats } from "../../src/agent/index.ts";
import { createTurnGate } from "../../src/agent/index.ts";
import { reportTurnGate, turnGateDetail, turnGateReport } from "../../src/cli/turn-gate-report.ts";
import { type LogFields, silentLogger } from "../../src/core/contracts/logger.ts";

const stats = (over: Partial<TurnGateStats> = {}): TurnGateStats => ({
	limit: 10_000,
	running: 0,
	waiting: 0,
	load: 0,
	held: 0,
	maxWaitedMs: 0,
	waitedMs: 0,
	...over,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("turn gate report", () => {
	it("says what runs, what waits, the limit and how busy the loop is", () => {
		expect(turnGateDetail(stats({ running: 12, load: 0.414 }))).toBe("12 running, 0 waiting (no limit; loop 41% busy)");
		expect(turnGateDetail(stats({ limit: 16, running: 16, waiting: 40, load: 0.93 }))).toBe(
			"16 running, 40 waiting (limit 16; loop 93% busy)",
		);
	});

	it("reports the turns held between two looks and their average wait, nothing when none waited", () => {
		const before = stats({ held: 10, waitedMs: 4_000 });
		expect(turnGateReport(before, stats({ held: 10, waitedMs: 4_000 }))).toBeUndefined();
		expect(turnGateReport(before, stats({ held: 14, waitedMs: 6_000, limit: 20, waiting: 3, load: 0.85 }))).toEqual({
			held: 4,
			averageWaitMs: 500,
			limit: 20,
			waiting: 3,
			loadPercent: 85,
		});
	});

	it("logs once a period while a real gate holds turns, and stays quiet otherwise", async () => {
		// A busy loop that lags: the gate lets one turn run and holds the next.
		const gate = createTurnGate({
			lag: { read: () => 50, reset: () => {}, close: () => {} },
			load: () => 1,
			minLimit: 1,
			windowMs: 0,
		});
		const lines: Array<{ fields: LogFields; message?: string }> = [];
		const logger = { ...silentLogger, info: (fields: LogFields, message?: string) => lines.push({ fields, message }) };
		const stop = reportTurnGate(gate as TurnGate, logger, 40);
		try {
			await sleep(100);
			expect(lines).toEqual([]); // nothing waited yet
			const first = await gate.enter();
			const second = gate.enter();
			await sleep(30);
			first();
			(await second)();
			// The next look logs it (polled: a loaded machine's timers run late); later looks add nothing.
			for (let i = 0; i < 100 && lines.length === 0; i++) await sleep(20);
			await sleep(100);
			expect(lines).toHaveLength(1);
			expect(lines[0]?.message).toMatch(/turns waited for a slot/);
			expect(lines[0]?.fields).toMatchObject({ held: 1, limit: 1, loadPercent: 100 });
			expect(lines[0]?.fields.averageWaitMs).toBeGreaterThanOrEqual(25);
		} finally {
			stop();
			gate.close();
		}
	});
});
