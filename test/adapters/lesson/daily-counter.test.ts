/**
 * Daily lesson counts: per member and UTC day, a limit that concurrent starts
 * cannot slip past, admins counted without a check, give-back on failure,
 * forget-me, and corrupt stored values read as zero.
 */

import { describe, expect, it } from "vitest";
import { DailyLessonCounter } from "../../../src/adapters/lesson/daily-counter.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";

const day = new Date("2025-03-01T10:00:00Z");

describe("DailyLessonCounter", () => {
	it("counts per member and per UTC day", async () => {
		const counter = new DailyLessonCounter(createMemoryStateStore());
		await Promise.all([counter.take("g", "u", 0, day), counter.take("g", "u", 0, day), counter.take("g", "u", 0, day)]);
		expect(await counter.today("g", "u", day)).toBe(3);
		expect(await counter.today("g", "u", new Date("2025-03-02T00:00:01Z"))).toBe(0);
		expect(await counter.today("g", "other", day)).toBe(0);
		expect(await counter.today("other-guild", "u", day)).toBe(0);
	});

	it("lets only `limit` of many concurrent takes through", async () => {
		const counter = new DailyLessonCounter(createMemoryStateStore());
		const takes = await Promise.all(Array.from({ length: 6 }, () => counter.take("g", "u", 2, day)));
		expect(takes.filter((t) => t.ok)).toHaveLength(2);
		expect(takes.filter((t) => !t.ok).every((t) => t.count === 2)).toBe(true);
		expect(await counter.today("g", "u", day)).toBe(2);
	});

	it("forget-me drops every count still stored: those of the last three days (a count lives 2 days)", async () => {
		const counter = new DailyLessonCounter(createMemoryStateStore());
		const ago = (days: number) => new Date(day.getTime() - days * 86_400_000);
		for (const d of [0, 1, 2]) await counter.take("g", "u", 0, ago(d));
		await counter.take("g", "other", 0, day);
		await counter.forget("g", "u", day);
		for (const d of [0, 1, 2]) expect(await counter.today("g", "u", ago(d))).toBe(0);
		expect(await counter.today("g", "other", day)).toBe(1);
	});

	it("gives a take back when the lesson did not start, never below zero", async () => {
		const counter = new DailyLessonCounter(createMemoryStateStore());
		expect(await counter.take("g", "u", 1, day)).toEqual({ ok: true, count: 1 });
		expect(await counter.take("g", "u", 1, day)).toEqual({ ok: false, count: 1 });
		await counter.giveBack("g", "u", day);
		expect(await counter.take("g", "u", 1, day)).toEqual({ ok: true, count: 1 });
		await counter.giveBack("g", "u", day);
		await counter.giveBack("g", "u", day);
		expect(await counter.today("g", "u", day)).toBe(0);
	});

	it("reads a corrupt stored count as zero and keeps the key format of earlier versions", async () => {
		const keyv = createMemoryStateStore();
		await keyv.set("count:g:u:2025-03-01", "lots");
		const counter = new DailyLessonCounter(keyv);
		expect(await counter.today("g", "u", day)).toBe(0);
		await counter.take("g", "u", 0, day);
		expect(await keyv.get("count:g:u:2025-03-01")).toBe(1);
	});

	it("keeps counting after a store failure (the failure reaches that caller only)", async () => {
		const keyv = createMemoryStateStore();
		const counter = new DailyLessonCounter(keyv);
		const realIncrement = keyv.increment.bind(keyv);
		let fail = true;
		keyv.increment = (async (...args: Parameters<typeof keyv.increment>) => {
			if (fail) {
				fail = false;
				throw new Error("disk full");
			}
			return realIncrement(...args);
		}) as typeof keyv.increment;
		await expect(counter.take("g", "u", 0, day)).rejects.toThrow(/disk full/);
		expect(await counter.take("g", "u", 0, day)).toEqual({ ok: true, count: 1 });
	});
});
