/**
 * Deliveries seen, in the shared state store: a platform that redelivers (Slack retries an
 * event it thinks was not acknowledged, a signed request is replayed, two bot processes on
 * one Discord token both receive an interaction) must not get the work done twice. Each
 * delivery has a key (an event id, a trigger id, an interaction or message id); the first
 * `claim` of a key wins, later ones within its TTL lose and are acknowledged without work.
 *
 * A claim is provisional until `confirm`: the winner writes "pending" for `PENDING_TTL_MS`
 * and "done" (for the key's TTL) once the delivery's work is recorded and acknowledged. A
 * process killed between the two leaves a pending claim that expires, so the platform's
 * retry is handled by another process instead of being dropped as a duplicate. A claim that
 * finds another process's pending claim waits (bounded) for it to be confirmed ("seen") and
 * otherwise answers "busy": the caller must not acknowledge, so the platform redelivers.
 *
 * A claim is first checked in this process (no I/O: a duplicate within one process is known at
 * once), then it is the store's setIfAbsent under `seen:<key>`, atomic across the processes that
 * share the store (Redis, PostgreSQL). A store one process owns (SQLite, memory) keeps `seen:`
 * keys in that process's memory and writes nothing (its decision, declared in keys.ts): this
 * module never asks which it has.
 *
 * Fail-open: when the store errs or does not answer in time, the delivery counts as first.
 * A store outage must not drop every click; at worst a duplicate runs, as it did before.
 */

import { LRUCache } from "lru-cache";
import { type StateStore, stateKeys } from "../../agent/index.ts";
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

/** How long an unconfirmed claim holds its key (its process may have died before recording the delivery). */
export const PENDING_TTL_MS = 15_000;

/** What a claim found: handle it (then confirm), a duplicate (acknowledge, no work), or another process on it (do not acknowledge). */
export type DeliveryVerdict = "first" | "seen" | "busy";

/** Claims of deliveries. Never rejects. */
export interface DeliveryClaims {
	/**
	 * Claim `key` for `ttlMs`: "first" when this is its first delivery (or the store could not tell within
	 * `waitMs`); "seen" when it was handled (or is being handled in this process); "busy" when another
	 * process claimed it and has not confirmed within `waitMs`.
	 */
	claim(key: string, ttlMs: number, waitMs?: number): Promise<DeliveryVerdict>;
	/**
	 * Claim `key` as handled at once, for `ttlMs` (no pending step, no confirm): for a platform that never
	 * redelivers (Discord), where a copy another process claimed is dropped whether it was recorded or not.
	 * "first" or "seen" ("first" too when the store could not tell within `waitMs`).
	 */
	claimFinal(key: string, ttlMs: number, waitMs?: number): Promise<Exclude<DeliveryVerdict, "busy">>;
	/** The delivery's work is recorded: the claim holds for `ttlMs` (call after a "first"). */
	confirm(key: string, ttlMs: number): Promise<void>;
	/** Forget a claim (the delivery was not handled here and another handler may take it). */
	release(key: string): Promise<void>;
}

/** Most deliveries one process remembers per store (each also expires with its TTL). */
const LOCAL_CLAIMS_MAX = 100_000;
/** How often a claim that met another process's pending claim looks again. */
const PENDING_POLL_MS = 50;
const PENDING = "pending";
const DONE = "done";

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Claims kept in this process, and on a shared store under `seen:<key>`. */
export function createDeliveryClaims(
	store: StateStore,
	logger: Logger,
	tag: string,
	waitMs: number = DELIVERY_CLAIM_WAIT_MS,
): DeliveryClaims {
	const here = claimedHere(store);
	/** The store's verdict, polling another process's pending claim until `deadline`. */
	async function shared(key: string, deadline: number): Promise<DeliveryVerdict> {
		for (let round = 0; ; round++) {
			if (await store.setIfAbsent(stateKeys.seen(key), PENDING, PENDING_TTL_MS)) return "first";
			const value = await store.get(stateKeys.seen(key));
			// Confirmed (or an older process's `1`): a duplicate. Gone meanwhile (released, expired): try again.
			if (value !== undefined && value !== PENDING) return "seen";
			if (value === PENDING && Date.now() + PENDING_POLL_MS > deadline) return "busy";
			if (round > 1_000) return "busy"; // bounded in count too
			if (value === PENDING) await sleep(PENDING_POLL_MS);
		}
	}
	/** True when this process claimed `key` already (a duplicate, logged); else it is claimed here now. */
	function seenHere(key: string, ttlMs: number): boolean {
		if (here.has(key)) {
			logger.info({ key }, `${tag}: dropped a duplicate delivery`);
			return true;
		}
		here.set(key, true, { ttl: ttlMs });
		return false;
	}
	return {
		async claim(key, ttlMs, wait = waitMs) {
			if (seenHere(key, ttlMs)) return "seen";
			const verdict = await within(shared(key, Date.now() + wait), wait);
			if (verdict === undefined) {
				logger.warn({ key }, `${tag}: the store did not confirm a delivery in time; handling it`);
				return "first";
			}
			if (verdict === "seen") logger.info({ key }, `${tag}: dropped a duplicate delivery`);
			// Another process has it and may still die before recording it: not ours, and not acknowledged.
			if (verdict === "busy") {
				here.delete(key);
				logger.info({ key }, `${tag}: another process is handling this delivery; not acknowledged`);
			}
			return verdict;
		},
		async claimFinal(key, ttlMs, wait = waitMs) {
			if (seenHere(key, ttlMs)) return "seen";
			const won = await within(store.setIfAbsent(stateKeys.seen(key), DONE, ttlMs), wait);
			if (won === undefined) {
				logger.warn({ key }, `${tag}: the store did not confirm a delivery in time; handling it`);
				return "first";
			}
			if (!won) logger.info({ key }, `${tag}: dropped a duplicate delivery`);
			return won ? "first" : "seen";
		},
		async confirm(key, ttlMs) {
			here.set(key, true, { ttl: ttlMs });
			if (
				(await within(
					store.set(stateKeys.seen(key), DONE, ttlMs).then(() => true),
					waitMs,
				)) === undefined
			)
				logger.warn({ key }, `${tag}: a delivery's claim was not confirmed in the store`);
		},
		async release(key) {
			here.delete(key);
			await within(store.delete(stateKeys.seen(key)), waitMs);
		},
	};
}
