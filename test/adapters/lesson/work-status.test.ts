/**
 * The working status under a thread (lesson/work-status.ts): "thinking" when a turn starts, "drawing" for a map
 * and "checking" for a grader call, shown again after each post while the turn runs, cleared only once nothing
 * runs; calls of one thread in order; a failing platform is logged, never thrown.
 */

import { describe, expect, it } from "vitest";
import type { WorkPhase } from "../../../src/adapters/lesson/port.ts";
import { createWorkStatuses } from "../../../src/adapters/lesson/work-status.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";

function recording(fail = false) {
	const calls: Array<[string, WorkPhase | undefined, string]> = [];
	const port = {
		name: "test",
		workStatus: async (threadId: string, phase: WorkPhase | undefined, locale: string) => {
			calls.push([threadId, phase, locale]);
			if (fail) throw new Error("platform down");
		},
	};
	const statuses = createWorkStatuses(port, async () => "es", silentLogger);
	if (!statuses) throw new Error("expected statuses");
	return { calls, statuses };
}

describe("working status", () => {
	it("is undefined for a port without one", () => {
		expect(createWorkStatuses({ name: "x" }, async () => "en", silentLogger)).toBeUndefined();
	});

	it("thinking at a turn's start, drawing for a map, thinking again after a post, cleared once the turn settled", async () => {
		const { calls, statuses } = recording();
		statuses.phase("t", "drawing"); // no turn: nothing
		statuses.turn("t", true);
		statuses.phase("t", "drawing");
		statuses.posted("t");
		await statuses.settled("t"); // a turn runs: kept
		statuses.turn("t", false);
		statuses.posted("t"); // after the turn: nothing
		await statuses.settled("t");
		await statuses.settled("t"); // once
		expect(calls).toEqual([
			["t", "thinking", "es"],
			["t", "drawing", "es"],
			["t", "thinking", "es"],
			["t", undefined, "es"],
		]);
	});

	it("shows checking outside a turn, and clears it when the verdict settles", async () => {
		const { calls, statuses } = recording();
		statuses.phase("t", "checking");
		await statuses.settled("t");
		expect(calls.map((c) => c[1])).toEqual(["checking", undefined]);
	});

	it("a failing platform is logged, never thrown", async () => {
		const { calls, statuses } = recording(true);
		statuses.turn("t", true);
		statuses.turn("t", false);
		await expect(statuses.settled("t")).resolves.toBeUndefined();
		expect(calls.map((c) => c[1])).toEqual(["thinking", undefined]);
	});
});
