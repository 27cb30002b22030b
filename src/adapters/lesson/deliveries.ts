/**
 * Deliveries seen, in the shared state store: a platform that redelivers (Slack retries an
 * event it thinks was not acknowledged, a signed request is replayed, two bot processes on
 * one Discord token both receive an interaction) must not get the work done twice. Each
 * delivery has a key (an event id, a trigger id, an interaction or message id); the first
 * `claim` of a key wins, later ones within its TTL lose and are acknowledged without work.
 * The claim is the store's setIfAbsent (atomic across processes on Redis and PostgreSQL).
 *
 * Fail-open: when the store errs or does not answer in time, the delivery counts as first.
 * A store outage must not drop every click; at worst a duplicate runs, as it did before.
 */

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

/** Claims kept in `store` under `seen:<key>`. */
export function createDeliveryClaims(
	store: StateStore,
	logger: Logger,
	tag: string,
	waitMs: number = DELIVERY_CLAIM_WAIT_MS,
): DeliveryClaims {
	return {
		async claim(key, ttlMs, wait = waitMs) {
			const first = await within(store.setIfAbsent(`seen:${key}`, 1, ttlMs), wait);
			if (first === undefined) {
				logger.warn({ key }, `${tag}: the store did not confirm a delivery in time; handling it`);
				return true;
			}
			if (!first) logger.info({ key }, `${tag}: dropped a duplicate delivery`);
			return first;
		},
		async release(key) {
			await within(store.delete(`seen:${key}`), waitMs);
		},
	};
}
