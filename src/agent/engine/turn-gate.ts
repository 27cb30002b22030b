/**
 * Turns wait their turn when the process is saturated. A turn's work (the model's stream, the
 * tools, the save, the posts) runs on the same event loop as the acknowledgements of clicks
 * and forms, which have 3 seconds (Discord, Slack) and are cheap. With more turns than the CPU
 * can run, every callback waits behind the others and the cheap ones miss their deadline; so
 * a turn starts only while fewer than `limit` run, and the limit adapts to the loop (AIMD):
 * cut by a fifth when the loop is busy with this process's own work (its utilisation, capped
 * by the CPU time the process got: see ownLoad; smoothed, at or above `busyAbove`) and lags
 * more than `targetLagMs`; raised by a twentieth (at least one) while turns wait and
 * the loop is not busy. A delay while the loop is mostly idle (a garbage collection, another
 * process on the same cores) is not the turns' doing: holding turns back then would only make
 * learners wait for their next question. Turns held back wait in order, holding nothing but
 * their session's lease; what the learner sent is recorded and acknowledged first.
 *
 * Bounded: a turn waits at most `maxWaitMs`, then starts anyway (progress over latency); the
 * limit never goes under `minLimit`. The delay is read from `monitorEventLoopDelay` (a libuv
 * timer: fake JavaScript timers in tests do not touch it), the utilisation from
 * `performance.eventLoopUtilization` and the CPU time from `process.cpuUsage`, at most every `windowMs`.
 */

import { monitorEventLoopDelay, performance } from "node:perf_hooks";

/** Options of createTurnGate. */
export interface TurnGateOptions {
	/** Loop delay (ms, the window's 99th percentile) above which a busy loop's limit is cut (default 10). */
	targetLagMs?: number;
	/** Loop utilisation (0-1, smoothed over a few windows) from which the loop counts as busy (default 0.8). */
	busyAbove?: number;
	/** Fewest turns let run at once whatever the delay (default 16). */
	minLimit?: number;
	/** Most turns at once (default 10,000: in practice, no cap while the loop keeps up). */
	maxLimit?: number;
	/** Longest a turn waits before it starts anyway (default 30 s). */
	maxWaitMs?: number;
	/** How often the limit is looked at (default 100 ms). */
	windowMs?: number;
	/** The loop delay now (ms) and a reset (tests); default a `monitorEventLoopDelay` histogram. */
	lag?: { read(): number; reset(): void; close(): void };
	/** The loop's own load (0-1) since the last call (tests); default its utilisation capped by the process's CPU share (ownLoad). */
	load?: () => number;
}

/** What the gate sees (the start command logs it and shows it in /readyz; tests read it). */
export interface TurnGateStats {
	limit: number;
	running: number;
	waiting: number;
	/** The loop's smoothed utilisation (0-1) at the last look. */
	load: number;
	/** Turns that started after waiting, the longest wait and all waits together (ms), since the gate was made. */
	held: number;
	maxWaitedMs: number;
	waitedMs: number;
}

/** The process's turn gate. */
export interface TurnGate {
	/** Wait for a slot (at most maxWaitMs, or until `signal` aborts); call the returned function when the turn ends. */
	enter(signal?: AbortSignal): Promise<() => void>;
	stats(): TurnGateStats;
	/** Stop measuring; waiting turns start. */
	close(): void;
}

function histogramLag(): { read(): number; reset(): void; close(): void } {
	const histogram = monitorEventLoopDelay({ resolution: 10 });
	histogram.enable();
	return {
		// The histogram counts the timer's whole period: a loop with no delay reads about `resolution`.
		read: () => (histogram.count > 0 ? Math.max(0, histogram.percentile(99) / 1e6 - 10) : 0),
		reset: () => histogram.reset(),
		close: () => histogram.disable(),
	};
}

/**
 * How busy the loop is with this process's own work: its utilisation, but no more than the CPU time
 * the process got over the same wall time (one core = 1). The utilisation alone counts a callback
 * waiting for a core (another process holding it) as busy: cutting turns then starves a process
 * that is not the bottleneck. NaN when either is unknown.
 */
export const ownLoad = (utilisation: number, cpuShare: number): number => Math.min(utilisation, cpuShare);

/** The loop's own load (see ownLoad) since the previous call. */
function loopLoad(): () => number {
	let last = performance.eventLoopUtilization();
	let cpu = process.cpuUsage();
	let at = performance.now();
	return () => {
		const now = performance.eventLoopUtilization();
		const { utilization } = performance.eventLoopUtilization(now, last);
		const used = process.cpuUsage(cpu);
		const wallUs = (performance.now() - at) * 1000;
		last = now;
		cpu = process.cpuUsage();
		at = performance.now();
		return ownLoad(utilization, wallUs > 0 ? (used.user + used.system) / wallUs : Number.NaN);
	};
}

/** The most turns at once unless `maxLimit` says otherwise: in practice, no cap while the loop keeps up. */
export const TURN_GATE_MAX_LIMIT = 10_000;

/** Weight of the newest window in the smoothed utilisation (about three windows' memory). */
const LOAD_WEIGHT = 0.3;

/** A turn gate with `options` (see the file's comment). */
export function createTurnGate(options: TurnGateOptions = {}): TurnGate {
	const targetLagMs = options.targetLagMs ?? 10;
	const busyAbove = options.busyAbove ?? 0.8;
	const readLoad = options.load ?? loopLoad();
	let load: number | undefined;
	const minLimit = Math.max(1, options.minLimit ?? 16);
	const maxLimit = Math.max(minLimit, options.maxLimit ?? TURN_GATE_MAX_LIMIT);
	const maxWaitMs = options.maxWaitMs ?? 30_000;
	const windowMs = options.windowMs ?? 100;
	let lag = options.lag;
	let limit = maxLimit;
	let running = 0;
	let held = 0;
	let maxWaitedMs = 0;
	let waitedMs = 0;
	let lookedAt = performance.now();
	let closed = false;
	const waiting: Array<{ start: () => void; since: number }> = [];

	/** At most once a window: adapt the limit to the loop's utilisation and delay in it. */
	function adapt(): void {
		const now = performance.now();
		if (now - lookedAt < windowMs) return;
		lookedAt = now;
		lag ??= histogramLag();
		const delay = lag.read();
		lag.reset();
		const latest = readLoad(); // NaN when no time passed since the last read: nothing to learn
		if (Number.isFinite(latest)) {
			const bounded = Math.min(1, Math.max(0, latest));
			load = load === undefined ? bounded : load + LOAD_WEIGHT * (bounded - load);
		}
		const busy = load !== undefined && load >= busyAbove;
		if (busy && delay > targetLagMs) limit = Math.max(minLimit, Math.floor(Math.min(limit, running) * 0.8));
		else if (!busy && waiting.length > 0) limit = Math.min(maxLimit, limit + Math.max(1, Math.ceil(limit * 0.05)));
	}

	/** Turns let in, not started yet: one starts per turn of the event loop (see admit). */
	const starting: Array<() => void> = [];
	let starter: ReturnType<typeof setImmediate> | undefined;
	function startNext(): void {
		starter = undefined;
		starting.shift()?.();
		if (starting.length > 0) starter = setImmediate(startNext);
	}

	/**
	 * Let waiting turns in while there is room (and those that waited too long). Their slots are taken
	 * now; each starts in its own turn of the event loop, so the turns let in together do not run their
	 * first stretch (the model request's prompt) in one block ahead of the I/O waiting behind it.
	 */
	function admit(): void {
		const now = performance.now();
		for (let i = 0; i < 100_000 && waiting.length > 0; i++) {
			const first = waiting[0] as { start: () => void; since: number };
			if (!closed && running >= limit && now - first.since < maxWaitMs) break;
			waiting.shift();
			running++;
			starting.push(first.start);
		}
		if (starting.length > 0 && !starter) starter = setImmediate(startNext);
	}

	const sweeper = () => {
		adapt();
		admit();
		if (waiting.length > 0 && !closed) schedule();
	};
	let timer: ReturnType<typeof setTimeout> | undefined;
	/** While turns wait, look again every window (a release may be far off). */
	function schedule(): void {
		if (timer) return;
		timer = setTimeout(() => {
			timer = undefined;
			sweeper();
		}, windowMs);
		timer.unref?.();
	}

	/** A turn's slot (counted in `running` by the caller). */
	function slot(): () => void {
		let done = false;
		return () => {
			if (done) return;
			done = true;
			running--;
			adapt();
			admit();
		};
	}

	return {
		enter(signal) {
			adapt();
			if (closed || (running < limit && waiting.length === 0)) {
				running++;
				return Promise.resolve(slot());
			}
			const since = performance.now();
			return new Promise((resolve) => {
				const entry = {
					since,
					start: () => {
						signal?.removeEventListener("abort", onAbort);
						const waited = performance.now() - since;
						held++;
						maxWaitedMs = Math.max(maxWaitedMs, waited);
						waitedMs += waited;
						resolve(slot());
					},
				};
				const onAbort = () => {
					const at = waiting.indexOf(entry);
					if (at < 0) return; // let in already
					waiting.splice(at, 1);
					running++;
					entry.start();
				};
				signal?.addEventListener("abort", onAbort, { once: true });
				waiting.push(entry);
				schedule();
			});
		},
		stats: () => ({
			limit,
			running,
			waiting: waiting.length,
			load: Math.round((load ?? 0) * 100) / 100,
			held,
			maxWaitedMs: Math.round(maxWaitedMs),
			waitedMs: Math.round(waitedMs),
		}),
		close() {
			closed = true;
			if (timer) clearTimeout(timer);
			timer = undefined;
			lag?.close();
			admit();
		},
	};
}
