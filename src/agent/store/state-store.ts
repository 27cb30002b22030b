/**
 * The state store: the small things adapters must remember beside the
 * sessions (lesson intros, per-community lesson rules, daily counters, usage,
 * deliveries seen), with a TTL, on the same backend as the sessions
 * (`LEARNHARNESS_STORE_URL`). Values are plain JSON; what comes back is
 * `unknown` and is checked by the reader, never cast blindly. Callers never ask
 * whether other processes share the store: a store one process owns (SQLite,
 * memory) keeps the keys keys.ts declares `embedded: "process"` in that
 * process's memory instead of writing them, since no other process can ask.
 */

import type Keyv from "keyv";
import type { Logger } from "../../core/contracts/logger.ts";
import { perKey } from "../../core/per-key.ts";
import { declaredPrefixOf, type KeySpec, STATE_KEYS } from "./keys.ts";
import { openKeyv } from "./keyv.ts";
import { type ScoredItems, scoredItemsOnState } from "./scored-items.ts";
import { redisScoredItems } from "./scored-items-redis.ts";
import { sqlScoredItems } from "./scored-items-sql.ts";
import { atomicOps, type FieldChange, isSharedBackend, mergeFields } from "./state-atomic.ts";

export type { FieldChange } from "./state-atomic.ts";

/** Key-value state with TTL. Every method may reject when the backend fails (a store error is an error). */
export interface StateStore {
	/** The value under `key`, or undefined when absent or expired. */
	get(key: string): Promise<unknown>;
	/** Store `value` (plain JSON) under `key`, expiring after `ttlMs` when given. */
	set(key: string, value: unknown, ttlMs?: number): Promise<void>;
	/**
	 * Store `value` only when `key` holds nothing (or only an expired value); true when it was
	 * stored. Atomic across processes sharing the store (Redis `SET NX`, PostgreSQL and SQLite one
	 * `INSERT ... ON CONFLICT` statement).
	 */
	setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean>;
	/**
	 * Add `by` to the number under `key` (absent, expired or not a number counts as 0) and return
	 * the sum; atomic across processes sharing the store. `ttlMs` sets the expiry from now.
	 */
	increment(key: string, by: number, ttlMs?: number): Promise<number>;
	/**
	 * Change fields of the object under `key` (an absent, expired or non-object value counts as `{}`):
	 * add `change.add`'s numbers (a non-number field counts as 0; a field that reaches 0 is dropped),
	 * set `change.set`'s, drop `change.drop`'s; return the object as stored. One atomic operation
	 * across processes sharing the store (HINCRBY-like: no addition is lost). `ttlMs` sets the expiry from now.
	 */
	updateFields(key: string, change: FieldChange, ttlMs?: number): Promise<Record<string, unknown>>;
	/** Remove `key`; true when something was removed. */
	delete(key: string): Promise<boolean>;
	/** Release the connection (a no-op in memory). Never rejects. */
	close(): Promise<void>;
}

/** Most keys an embedded store keeps in its process's memory (each also expires with its TTL). */
const PROCESS_KEYS_MAX = 100_000;

/** True when keys.ts declares `key` kept in the process's memory on a store one process owns. */
export function keptInProcess(key: string): boolean {
	const prefix = declaredPrefixOf(key);
	return prefix !== undefined && (STATE_KEYS[prefix] as KeySpec).embedded === "process";
}

/**
 * A store one process owns (`inner`), with the keys keys.ts declares process-local kept in memory (`local`,
 * bounded) instead: same contract, no write for them.
 */
function withProcessKeys(inner: StateStore, local: StateStore): StateStore {
	const pick = (key: string) => (keptInProcess(key) ? local : inner);
	return {
		get: (key) => pick(key).get(key),
		set: (key, value, ttlMs) => pick(key).set(key, value, ttlMs),
		setIfAbsent: (key, value, ttlMs) => pick(key).setIfAbsent(key, value, ttlMs),
		increment: (key, by, ttlMs) => pick(key).increment(key, by, ttlMs),
		updateFields: (key, change, ttlMs) => pick(key).updateFields(key, change, ttlMs),
		delete: (key) => pick(key).delete(key),
		close: () => inner.close(),
	};
}

/**
 * A state store over one keyv namespace. setIfAbsent and increment are single atomic operations
 * on the backend (state-atomic.ts): a Lua script on Redis, one `INSERT ... ON CONFLICT` statement
 * on PostgreSQL and SQLite; a memory keyv serializes them per key in this process.
 */
export function stateStoreOnKeyv(keyv: Keyv): StateStore {
	const serial = perKey();
	const atomic = atomicOps(keyv);
	const store: StateStore = {
		get: (key) => keyv.get(key),
		async set(key, value, ttlMs) {
			await keyv.set(key, value, ttlMs);
		},
		setIfAbsent: (key, value, ttlMs) =>
			atomic
				? atomic.setIfAbsent(key, value, ttlMs)
				: serial(key, async () => {
						if ((await keyv.get(key)) !== undefined) return false;
						await keyv.set(key, value, ttlMs);
						return true;
					}),
		increment: (key, by, ttlMs) =>
			atomic
				? atomic.increment(key, by, ttlMs)
				: serial(key, async () => {
						const now: unknown = await keyv.get(key);
						const sum = (typeof now === "number" && Number.isFinite(now) ? now : 0) + by;
						await keyv.set(key, sum, ttlMs);
						return sum;
					}),
		updateFields: (key, change, ttlMs) =>
			atomic
				? atomic.updateFields(key, change, ttlMs)
				: serial(key, async () => {
						const next = mergeFields(await keyv.get(key), change);
						await keyv.set(key, next, ttlMs);
						return next;
					}),
		delete: (key) => keyv.delete(key),
		async close() {
			await keyv.disconnect().catch(() => undefined);
		},
	};
	return isSharedBackend(keyv) ? store : withProcessKeys(store, createMemoryStateStore(Date.now, PROCESS_KEYS_MAX));
}

/** The state store on the backend `url` names (sqlite://, redis://, postgres://, memory://), one namespace. Throws on a bad URL. */
export function openStateStore(url: string, namespace: string, logger?: Logger): StateStore {
	return stateStoreOnKeyv(openKeyv(url, namespace, logger));
}

/**
 * A state store and its scored items (scored-items.ts) on one keyv, one connection: the SQL table
 * or the Redis hash and sorted set of its backend; on a memory keyv, values of the state store.
 */
export function stateWithItems(keyv: Keyv): { state: StateStore; items: ScoredItems } {
	const state = stateStoreOnKeyv(keyv);
	return { state, items: sqlScoredItems(keyv) ?? redisScoredItems(keyv) ?? scoredItemsOnState(state) };
}

/** stateWithItems on the backend `url` names, one namespace. Throws on a bad URL. */
export function openStateWithItems(
	url: string,
	namespace: string,
	logger?: Logger,
): { state: StateStore; items: ScoredItems } {
	return stateWithItems(openKeyv(url, namespace, logger));
}

/**
 * An in-memory state store (tests, the playground): a Map with expiry; values are copied through JSON like a real
 * backend's. With `max`, the oldest keys go first once it holds more.
 */
export function createMemoryStateStore(now: () => number = Date.now, max = Number.POSITIVE_INFINITY): StateStore {
	const map = new Map<string, { json: string; expires: number }>();
	const read = (key: string): unknown => {
		const hit = map.get(key);
		if (!hit) return undefined;
		if (hit.expires <= now()) {
			map.delete(key);
			return undefined;
		}
		return JSON.parse(hit.json);
	};
	const write = (key: string, value: unknown, ttlMs?: number) => {
		map.delete(key); // re-inserted last: the newest stays
		map.set(key, { json: JSON.stringify(value), expires: ttlMs !== undefined && ttlMs > 0 ? now() + ttlMs : Infinity });
		for (const oldest of map.keys()) {
			if (map.size <= max) break;
			map.delete(oldest);
		}
	};
	return {
		get: async (key) => read(key),
		async set(key, value, ttlMs) {
			write(key, value, ttlMs);
		},
		async setIfAbsent(key, value, ttlMs) {
			if (read(key) !== undefined) return false;
			write(key, value, ttlMs);
			return true;
		},
		async increment(key, by, ttlMs) {
			const now = read(key);
			const sum = (typeof now === "number" && Number.isFinite(now) ? now : 0) + by;
			write(key, sum, ttlMs);
			return sum;
		},
		async updateFields(key, change, ttlMs) {
			const next = mergeFields(read(key), change);
			write(key, next, ttlMs);
			return next;
		},
		delete: async (key) => read(key) !== undefined && map.delete(key),
		async close() {},
	};
}
