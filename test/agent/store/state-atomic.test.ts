import { describe, expect, it } from "vitest";
import { DailyLessonCounter } from "../../../src/adapters/lesson/daily-counter.ts";
import { openStateStore, type StateStore } from "../../../src/agent/store/state-store.ts";
import { stateBackends } from "../../fixtures/shared-backends.ts";

// Two state stores on one backend stand for two processes: each has its own connection.
const { ns, backends } = await stateBackends("state");

describe.each(backends)("atomic state operations on %s", (name, up, url) => {
	const open = (): [StateStore, StateStore] => [openStateStore(url(), ns), openStateStore(url(), ns)];
	const key = (k: string) => `${name.slice(0, 2)}:${k}`;

	it.skipIf(!up)("setIfAbsent: one winner among 40 callers on two connections", async () => {
		const [a, b] = open();
		try {
			const wins = await Promise.all(
				Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).setIfAbsent(key("once"), i, 60_000)),
			);
			expect(wins.filter(Boolean)).toHaveLength(1);
			expect(await b.get(key("once"))).toBe(wins.indexOf(true));
		} finally {
			await a.close();
			await b.close();
		}
	});

	it.skipIf(!up)("a new connection's first burst: 20 writes and 20 reads at once all succeed", async () => {
		// On Redis all but the first failed with "The client is offline" (the connection was open, not ready): a
		// process's first lessons started without their learners' profiles.
		const [a, b] = open();
		try {
			await Promise.all(Array.from({ length: 20 }, (_, i) => a.set(key(`burst${i}`), i, 60_000)));
			const read = await Promise.all(Array.from({ length: 20 }, (_, i) => b.get(key(`burst${i}`))));
			expect(read).toEqual(Array.from({ length: 20 }, (_, i) => i));
		} finally {
			await a.close();
			await b.close();
		}
	});

	it.skipIf(!up)("setIfAbsent takes over an expired value", async () => {
		const [a, b] = open();
		try {
			expect(await a.setIfAbsent(key("exp"), "first", 50)).toBe(true);
			for (let i = 0; i < 100 && (await b.get(key("exp"))) !== undefined; i++)
				await new Promise((r) => setTimeout(r, 20));
			expect(await b.setIfAbsent(key("exp"), "second", 60_000)).toBe(true);
			expect(await a.get(key("exp"))).toBe("second");
		} finally {
			await a.close();
			await b.close();
		}
	});

	it.skipIf(!up)("increment: 100 concurrent adds on two connections sum to 100, readable by get()", async () => {
		const [a, b] = open();
		try {
			await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).increment(key("n"), 1, 60_000)));
			expect(await a.get(key("n"))).toBe(100);
			expect(await b.increment(key("n"), -30)).toBe(70);
		} finally {
			await a.close();
			await b.close();
		}
	});

	it.skipIf(!up)(
		"updateFields: 60 concurrent multi-field adds on two connections lose nothing, one call each",
		async () => {
			const [a, b] = open();
			try {
				const field = '["u1","m1"]:in';
				await Promise.all(
					Array.from({ length: 60 }, (_, i) =>
						(i % 2 ? a : b).updateFields(key("h"), { add: { [field]: 2, all: 1, [`m${i % 3}`]: 1 } }, 60_000),
					),
				);
				expect(await a.get(key("h"))).toEqual({ [field]: 120, all: 60, m0: 20, m1: 20, m2: 20 });
				// Set and drop fields; a field that reaches 0 goes; what comes back is the object as stored.
				const after = await b.updateFields(
					key("h"),
					{ add: { all: -60, m0: 5 }, set: { "n:u1": "Zelda" }, drop: ["m1"] },
					60_000,
				);
				expect(after).toEqual({ [field]: 120, m0: 25, m2: 20, "n:u1": "Zelda" });
				expect(await a.get(key("h"))).toEqual(after);
			} finally {
				await a.close();
				await b.close();
			}
		},
	);

	it.skipIf(!up)("updateFields starts from nothing over an expired or non-object value", async () => {
		const [a, b] = open();
		try {
			await a.set(key("old"), 7, 60_000);
			expect(await b.updateFields(key("old"), { add: { x: 3 } }, 60_000)).toEqual({ x: 3 });
			await a.updateFields(key("exp"), { add: { x: 5 } }, 50);
			for (let i = 0; i < 100 && (await b.get(key("exp"))) !== undefined; i++)
				await new Promise((r) => setTimeout(r, 20));
			expect(await b.updateFields(key("exp"), { add: { x: 1 } })).toEqual({ x: 1 });
			expect(await a.get(key("exp"))).toEqual({ x: 1 });
		} finally {
			await a.close();
			await b.close();
		}
	});

	it.skipIf(!up)("the daily lesson limit holds across processes: 20 starts at once, limit 5", async () => {
		const [a, b] = open();
		try {
			const counters = [new DailyLessonCounter(a), new DailyLessonCounter(b)];
			const takes = await Promise.all(
				Array.from({ length: 20 }, (_, i) => counters[i % 2]?.take(key("guild"), "u1", 5) ?? { ok: false, count: 0 }),
			);
			expect(takes.filter((t) => t.ok)).toHaveLength(5);
			expect(await counters[0]?.today(key("guild"), "u1")).toBe(5);
			await counters[1]?.giveBack(key("guild"), "u1");
			expect(await counters[0]?.today(key("guild"), "u1")).toBe(4);
		} finally {
			await a.close();
			await b.close();
		}
	});
});
