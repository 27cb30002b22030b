import { afterEach, describe, expect, it } from "vitest";
import { createTurnGate, ownLoad, type TurnGate } from "../../../src/agent/engine/turn-gate.ts";

/**
 * A loop delay (ms) and utilisation (0-1) the test sets; it starts busy (the gate smooths the
 * utilisation over a few looks), and a lagging loop is busy unless said otherwise.
 */
function fakeLag(initial = 0) {
	let delay = initial;
	let utilisation = 1;
	return {
		set: (ms: number, load = ms > 0 ? 1 : 0.2) => {
			delay = ms;
			utilisation = load;
		},
		source: { read: () => delay, reset: () => {}, close: () => {} },
		load: () => utilisation,
	};
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Whether `p` settled within `ms`. */
const settles = (p: Promise<unknown>, ms = 30) => Promise.race([p.then(() => true), sleep(ms).then(() => false)]);

describe("turn gate", () => {
	let gate: TurnGate | undefined;
	afterEach(() => gate?.close());

	it("lets every turn start while the loop keeps up", async () => {
		const lag = fakeLag(2);
		const g = createTurnGate({ lag: lag.source, load: lag.load, windowMs: 0, minLimit: 2 });
		gate = g;
		const releases = await Promise.all(Array.from({ length: 50 }, () => g.enter()));
		expect(g.stats()).toMatchObject({ running: 50, waiting: 0, held: 0, limit: 10_000 });
		for (const r of releases) r();
		expect(g.stats().running).toBe(0);
	});

	it("holds turns back while the loop lags, and starts them in order as room comes back", async () => {
		const lag = fakeLag(0);
		const g = createTurnGate({ lag: lag.source, load: lag.load, windowMs: 0, minLimit: 2, targetLagMs: 10 });
		gate = g;
		const first = await Promise.all(Array.from({ length: 5 }, () => g.enter()));
		lag.set(40); // saturated: each look cuts the limit by a fifth (5 running: 4, then 3, then the floor of 2)
		const order: number[] = [];
		const later = [0, 1, 2].map((i) =>
			g.enter().then((release) => {
				order.push(i);
				return release;
			}),
		);
		expect(await settles(later[0] as Promise<unknown>)).toBe(false);
		expect(g.stats()).toMatchObject({ limit: 2, running: 5, waiting: 3 });
		first[0]?.(); // 4 running: still over the limit
		expect(await settles(later[0] as Promise<unknown>)).toBe(false);
		lag.set(0); // the loop keeps up again: each look raises the limit while turns wait
		for (const r of first.slice(1)) r();
		const started = await Promise.all(later);
		expect(order).toEqual([0, 1, 2]);
		expect(g.stats()).toMatchObject({ running: 3, waiting: 0, held: 3 });
		for (const r of started) r();
	});

	it("holds nothing back while a lagging loop is mostly idle (a collection, another process on the cores)", async () => {
		const lag = fakeLag(0);
		const g = createTurnGate({ lag: lag.source, load: lag.load, windowMs: 0, minLimit: 1, targetLagMs: 10 });
		gate = g;
		lag.set(80, 0.3);
		const releases = await Promise.all(Array.from({ length: 20 }, () => g.enter()));
		expect(g.stats()).toMatchObject({ running: 20, waiting: 0, held: 0, limit: 10_000 });
		expect(g.stats().load).toBeLessThan(0.35);
		lag.set(80, 1); // the same delay on a busy loop: the limit falls to the floor within a few looks
		for (const r of releases.slice(0, 10)) r();
		expect(g.stats().limit).toBeLessThanOrEqual(10);
		const waited = g.enter();
		expect(await settles(waited)).toBe(false);
		lag.set(80, 0.3); // idle again: raised while the turn waits, however long the delay
		for (const r of releases.slice(10)) r();
		const release = await waited;
		expect(g.stats()).toMatchObject({ running: 1, waiting: 0, held: 1 });
		release();
	});

	it("a loop busy waiting for a core another process holds is not busy with its own work: nothing is cut", async () => {
		expect(ownLoad(0.97, 1.3)).toBe(0.97); // its own work (threads beside the loop add CPU time)
		expect(ownLoad(0.97, 0.45)).toBe(0.45); // half the time it waited for a core
		expect(Number.isNaN(ownLoad(0.97, Number.NaN))).toBe(true);
		const lag = fakeLag(0);
		let share = 0.45;
		const g = createTurnGate({ lag: lag.source, load: () => ownLoad(0.97, share), windowMs: 0, minLimit: 1 });
		gate = g;
		lag.set(80, 0.97);
		const releases = await Promise.all(Array.from({ length: 20 }, () => g.enter()));
		expect(g.stats()).toMatchObject({ running: 20, waiting: 0, held: 0, limit: 10_000 });
		share = 1; // the same delay with the process on its core the whole time: cut within a few looks
		let waited = g.enter();
		for (let look = 0; look < 10 && (await settles(waited)); look++) {
			(await waited)();
			waited = g.enter();
		}
		expect(await settles(waited)).toBe(false);
		expect(g.stats().limit).toBeLessThan(20);
		for (const r of releases) r();
		(await waited)();
	});

	it("ignores a utilisation it cannot read (no time passed) instead of losing its measure", async () => {
		const lag = fakeLag(0);
		let reading = 1;
		const g = createTurnGate({ lag: lag.source, load: () => reading, windowMs: 0, minLimit: 1, targetLagMs: 10 });
		gate = g;
		const first = await g.enter(); // reads 1: busy
		reading = Number.NaN;
		lag.set(50);
		const second = g.enter(); // a NaN reading keeps the last measure: still busy, so cut
		expect(await settles(second)).toBe(false);
		expect(g.stats().load).toBe(1);
		first();
		(await second)();
	});

	it("leaves a busy loop alone while it keeps up", async () => {
		const lag = fakeLag(0);
		const g = createTurnGate({ lag: lag.source, load: lag.load, windowMs: 0, minLimit: 1, targetLagMs: 10 });
		gate = g;
		lag.set(3, 0.97);
		const releases = await Promise.all(Array.from({ length: 30 }, () => g.enter()));
		expect(g.stats()).toMatchObject({ running: 30, waiting: 0, limit: 10_000 });
		for (const r of releases) r();
	});

	it("never cuts under the floor, and a turn waits at most maxWaitMs", async () => {
		const lag = fakeLag(0);
		const g = createTurnGate({ lag: lag.source, load: lag.load, windowMs: 5, minLimit: 1, maxWaitMs: 60 });
		gate = g;
		const a = await g.enter();
		const b = await g.enter();
		lag.set(100);
		await sleep(10);
		const waited = g.enter();
		expect(g.stats().limit).toBe(1);
		const t0 = performance.now();
		expect(await settles(waited, 20)).toBe(false);
		const release = await waited; // still lagging: starts after maxWaitMs anyway
		expect(performance.now() - t0).toBeGreaterThanOrEqual(30);
		expect(g.stats().maxWaitedMs).toBeGreaterThanOrEqual(55);
		for (const r of [a, b, release]) r();
	});

	it("starts a waiting turn when its signal aborts, and every one when it closes", async () => {
		const lag = fakeLag(0);
		const g = createTurnGate({ lag: lag.source, load: lag.load, windowMs: 0, minLimit: 1 });
		gate = g;
		const running = await g.enter();
		await g.enter();
		lag.set(100);
		const abort = new AbortController();
		const aborted = g.enter(abort.signal);
		const other = g.enter();
		expect(await settles(aborted)).toBe(false);
		abort.abort();
		expect(await settles(aborted)).toBe(true);
		expect(await settles(other)).toBe(false);
		g.close();
		expect(await settles(other)).toBe(true);
		running();
		running(); // a second call changes nothing
		expect(g.stats().running).toBe(3);
	});
});
