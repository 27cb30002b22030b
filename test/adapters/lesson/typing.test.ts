/**
 * "Typing…" costs a platform call each time (on Discord one that counts
 * against the bot's global limit): it shows only once a turn has posted
 * nothing for the delay, every post starts that wait again, it refreshes
 * while the turn runs, and a failing ping is logged and stops that thread.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createTypingIndicators } from "../../../src/adapters/lesson/typing.ts";
import type { Logger } from "../../../src/core/contracts/logger.ts";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function indicators(delayMs: number, fail = false) {
	const pings: Array<{ threadId: string; at: number }> = [];
	const warnings: string[] = [];
	const logger: Logger = {
		debug: () => {},
		info: () => {},
		warn: (_fields, message) => void warnings.push(message ?? ""),
		error: () => {},
		child: () => logger,
	};
	const start = Date.now();
	const typing = createTypingIndicators(
		async (threadId) => {
			pings.push({ threadId, at: Date.now() - start });
			if (fail) throw new Error("403 Missing Permissions");
		},
		8_000,
		logger,
		"test",
		delayMs,
	);
	return { typing, pings, warnings };
}

describe("typing indicators", () => {
	it("sends none for a turn that ends within the delay", async () => {
		const { typing, pings } = indicators(1_500);
		typing.set("a", true);
		await vi.advanceTimersByTimeAsync(1_400);
		typing.set("a", false);
		await vi.advanceTimersByTimeAsync(20_000);
		expect(pings).toEqual([]);
	});

	it("pings once the delay passes without output, then every refresh, until the turn stops", async () => {
		const { typing, pings } = indicators(1_500);
		typing.set("a", true);
		await vi.advanceTimersByTimeAsync(1_500 + 8_000 + 100);
		expect(pings.map((p) => p.at)).toEqual([1_500, 9_500]);
		typing.set("a", false);
		await vi.advanceTimersByTimeAsync(20_000);
		expect(pings).toHaveLength(2);
	});

	it("waits the delay again after every post", async () => {
		const { typing, pings } = indicators(1_500);
		typing.set("a", true);
		await vi.advanceTimersByTimeAsync(1_000);
		typing.posted("a");
		await vi.advanceTimersByTimeAsync(1_000);
		typing.posted("a");
		expect(pings).toEqual([]);
		await vi.advanceTimersByTimeAsync(1_500);
		expect(pings.map((p) => p.at)).toEqual([3_500]);
		typing.posted("b"); // a thread that is not typing stays quiet
		await vi.advanceTimersByTimeAsync(2_000);
		expect(pings.map((p) => p.threadId)).toEqual(["a"]);
		typing.stopAll();
	});

	it("pings at once without a delay (the default)", async () => {
		const { typing, pings } = indicators(0);
		typing.set("a", true);
		await vi.advanceTimersByTimeAsync(0);
		expect(pings.map((p) => p.at)).toEqual([0]);
		typing.stopAll();
	});

	it("logs a failing ping and stops that thread's loop", async () => {
		const { typing, pings, warnings } = indicators(1_500, true);
		typing.set("a", true);
		await vi.advanceTimersByTimeAsync(30_000);
		expect(pings).toHaveLength(1);
		expect(warnings).toEqual(["test: typing indicator failed"]);
	});
});
