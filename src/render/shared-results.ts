/**
 * Results by key, shared by the picture renderers (plans, formulas): finished ones from an
 * LRU (none when its size is 0), running ones joined, so identical requests draw once.
 */

import { LRUCache } from "lru-cache";

/** A keyed result store: `get` returns the cached or running result, or starts `run`. */
export interface SharedResults<T> {
	/** The result for `key`: cached (then `onHit` runs), joined if running, else `run()`. */
	get(key: string, run: () => Promise<T>, onHit?: () => void): Promise<T>;
	/** Keep a finished result (a run decides what is worth keeping, e.g. not a transient failure). */
	keep(key: string, value: T): void;
	/** Forget every finished result (running ones finish on their own). */
	clear(): void;
}

/** A SharedResults keeping at most `size` finished results. */
export function sharedResults<T extends {}>(size: number): SharedResults<T> {
	const cache = size > 0 ? new LRUCache<string, T>({ max: size }) : undefined;
	const running = new Map<string, Promise<T>>();
	return {
		get(key, run, onHit) {
			const hit = cache?.get(key);
			if (hit !== undefined) {
				onHit?.();
				return Promise.resolve(hit);
			}
			const joined = running.get(key);
			if (joined !== undefined) return joined;
			const job = run().finally(() => running.delete(key));
			running.set(key, job);
			return job;
		},
		keep(key, value) {
			cache?.set(key, value);
		},
		clear() {
			cache?.clear();
		},
	};
}
