/**
 * within(): the value when it comes in time, undefined when it does not or
 * when the work rejects. Timeouts use fake timers (no real waiting).
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { within } from "../../../src/adapters/lesson/within.ts";

afterEach(() => {
	vi.useRealTimers();
});

describe("within", () => {
	it("resolves with the value of work that finishes", async () => {
		expect(await within(Promise.resolve(42), 1000)).toBe(42);
	});

	it("resolves undefined when the work rejects", async () => {
		expect(await within(Promise.reject(new Error("no")), 1000)).toBeUndefined();
	});

	it("resolves undefined once the time is up, leaving no timer behind", async () => {
		vi.useFakeTimers();
		const never = new Promise<number>(() => {});
		const result = within(never, 500);
		await vi.advanceTimersByTimeAsync(500);
		expect(await result).toBeUndefined();
		expect(vi.getTimerCount()).toBe(0);
	});
});
