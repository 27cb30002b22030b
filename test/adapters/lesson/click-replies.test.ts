/**
 * The recent clicks of a thread (how a click's turn answers through the
 * platform's interaction or response_url): the newest usable one routes the
 * thread's posts, a card finds the newest click on it, and a click stops
 * being used once it expired, was forgotten (refused, failed) or the thread
 * was cleared (a typed message's turn).
 */

import { describe, expect, it } from "vitest";
import { createClickReplies } from "../../../src/adapters/lesson/click-replies.ts";

describe("click replies", () => {
	it("routes a thread through its newest click, and a card through the newest click on it", () => {
		let now = 0;
		const clicks = createClickReplies<string>(1_000, () => now);
		expect(clicks.latest("t")).toBeUndefined();
		clicks.note("t", "m1", "a");
		now = 10;
		clicks.note("t", "m2", "b");
		clicks.note("u", "m9", "other thread");
		expect(clicks.latest("t")?.reply).toBe("b");
		expect(clicks.onMessage("t", "m1")?.reply).toBe("a");
		expect(clicks.onMessage("t", "m3")).toBeUndefined();
		expect(clicks.onMessage("u", "m1")).toBeUndefined();
	});

	it("stops using a click once it expired, was forgotten, or the thread was cleared", () => {
		let now = 0;
		const clicks = createClickReplies<string>(1_000, () => now);
		const a = clicks.note("t", "m1", "a");
		now = 500;
		const b = clicks.note("t", "m2", "b");
		clicks.forget("t", b);
		expect(clicks.latest("t")?.reply).toBe("a"); // the one before a refused click still works
		now = 1_000;
		expect(clicks.latest("t")).toBeUndefined(); // a expired
		expect(clicks.onMessage("t", "m1")).toBeUndefined();
		clicks.note("t", "m3", "c");
		clicks.clear("t");
		expect(clicks.latest("t")).toBeUndefined();
		clicks.forget("t", a); // forgetting a gone click is harmless
	});

	it("keeps a bounded number of clicks per thread", () => {
		const clicks = createClickReplies<number>(60_000);
		for (let i = 0; i < 20; i++) clicks.note("t", `m${i}`, i);
		expect(clicks.onMessage("t", "m0")).toBeUndefined();
		expect(clicks.onMessage("t", "m19")?.reply).toBe(19);
	});
});
