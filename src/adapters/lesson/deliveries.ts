/**
 * Deliveries seen, in the shared state store: a platform that redelivers (Slack retries an
 * event it thinks was not acknowledged, a signed request is replayed, two bot processes on
 * one Discord token both receive an interaction) must not get the work done twice. Each
 * delivery has a key (an event id, a trigger id, an interaction or message id); the first
 * `claim` of a key wins, later ones within its TTL lose and are acknowledged without work.
 * A claim is first checked in this process (no I/O: a duplicate within one process is known at
 * once, and a click's acknowledgement never waits on a write); on a store that other processes
 * share (Redis, PostgreSQL) it is then the store's setIfAbsent, atomic across processes. SQLite is
 * locked to one process, so there the process's memory is the whole truth and nothing is written.
 *
 * Fail-open: when the store errs or does not answer in time, the delivery counts as first.
 * A store outage must not drop every click; at worst a duplicate runs, as it did before.
 */

import { LRUCache } from "lru-cache";
import type { StateStore } from "../../agent/index.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { within } from "./within.ts";

/** How long each kind of delivery is remembered (bounded: every key expires). */
export const DELIVERY_TTL_MS = {
	/** Slack Events API event ids: Slack retries after about 1 and 5 minutes. */
	event: 60 * 60_000,
	/** Slack trigger ids (commands, clicks, submissions): a signed request is accepted for 5 minutes. */
	trigger: 10 * 60_000,
	/** Discord interaction ids (their tokens live 15 minutes). */
	interaction: 15 * 60_000,
	/** Typed messages (Discord message ids, Slack channel:ts). */
	message: 15 * 60_000,
} as const;

/** How long a claim may wait for the store before it counts as first. */
export const DELIVERY_CLAIM_WAIT_MS = 2_000;

/** Claims of deliveries. Never rejects. */
export interface DeliveryClaims {
	/** True when this is the first delivery of `key` within `ttlMs` (or the store could not tell within `waitMs`). */
	claim(key: string, ttlMs: number, waitMs?: number): Promise<boolean>;
	/** Forget a claim (the delivery was not handled here and another handler may take it). */
	release(key: string): Promise<void>;
}

/** Most deliveries one process remembers per store (each also expires with its TTL). */
const LOCAL_CLAIMS_MAX = 100_000;

/** The deliveries claimed in this process, per store (controllers on one store share them). */
const localClaims = new WeakMap<StateStore, LRUCache<string, true>>();

function claimedHere(store: StateStore): LRUCache<string, true> {
	let seen = localClaims.get(store);
	if (!seen) {
		seen = new LRUCache<string, true>({ max: LOCAL_CLAIMS_MAX, ttlAutopurge: false });
		localClaims.set(store, seen);
	}
	return seen;
}

/** Claims kept in this process, and on a shared store under `seen:<key>`. */
export function createDeliveryClaims(
	store: StateStore,
	logger: Logger,
	tag: string,
	waitMs: number = DELIVERY_CLAIM_WAIT_MS,
): DeliveryClaims {
	const here = claimedHere(store);
	return {
		async claim(key, ttlMs, wait = waitMs) {
			if (here.has(key)) {
				logger.info({ key }, `${tag}: dropped a duplicate delivery`);
				return false;
			}
			here.set(key, true, { ttl: ttlMs });
			if (store.shared !== true) return true;
			const first = await within(store.setIfAbsent(`seen:${key}`, 1, ttlMs), wait);
			if (first === undefined) {
				logger.warn({ key }, `${tag}: the store did not confirm a delivery in time; handling it`);
				return true;
			}
			if (!first) logger.info({ key }, `${tag}: dropped a duplicate delivery`);
			return first;
		},
		async release(key) {
			here.delete(key);
			if (store.shared === true) await within(store.delete(`seen:${key}`), waitMs);
		},
	};
}
