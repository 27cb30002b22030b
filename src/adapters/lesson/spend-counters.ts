/**
 * What the daily token caps count: per community and UTC day, two counters in
 * the state store, the community's total and each member's, of tokens spent
 * plus tokens reserved by requests in flight. A request reserves its estimate
 * before it is sent and settles the difference after (spent minus reserved,
 * often negative), so concurrent requests cannot pass a cap together.
 *
 * A reservation is the store's atomic increment, checked and undone when it
 * went over (like the daily lesson limit): on every backend (Redis, PostgreSQL,
 * SQLite, memory) two processes cannot both slip under a cap. A request is
 * granted when its input fits what is left: the counter after the reservation
 * (input + maximum output) stays within the cap plus that maximum output. So
 * spent tokens stay within the cap plus one request's maximum output, as long
 * as inputs are not underestimated. While a refused reservation is being
 * undone, a racing one may see a sum too high and be refused too (never the
 * other way round).
 *
 * Reading a verdict is two gets and a reservation two increments, whatever the
 * number of members (the ledger's records per member and model are for
 * `/lesson usage`). Keys: `spend:<community>:<day>#all` and
 * `spend:<community>:<day>#m:<member>`, kept 2 days.
 */

import { type StateStore, stateKeys } from "../../agent/index.ts";
import type { Reservation } from "../../core/contracts/budget.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const TTL_MS = 2 * DAY_MS;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The daily caps of a community (0: none). */
export interface DailyCaps {
	community: number;
	member: number;
}

/** A reservation's outcome: granted (on `day`), or refused by the cap it would pass. */
export type SpendReservation = { ok: true; day: string } | { ok: false; over: "community" | "member" };

/** The UTC day (`YYYY-MM-DD`) of a time. */
export const dayOf = (now: Date): string => now.toISOString().slice(0, 10);

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? Math.max(0, v) : 0);

/** The daily spend counters of cost caps over the state store. */
export class SpendCounters {
	constructor(private readonly store: StateStore) {}

	/** Tokens spent and reserved today by the community and by `member`. Two gets. */
	async today(community: string, member: string, now: Date): Promise<DailyCaps> {
		const day = dayOf(now);
		const [all, mine] = await Promise.all([
			this.store.get(this.key(community, day)),
			this.store.get(this.key(community, day, member)),
		]);
		return { community: count(all), member: count(mine) };
	}

	/**
	 * Reserve `tokens` (a request's estimated input + `allowance`, its maximum output) for `member`
	 * unless a cap would pass by more than `allowance`. Refused: nothing stays reserved. Rejects when
	 * the store fails (an increment that went through before the failure stays: it over-counts, never under).
	 */
	async reserve(
		community: string,
		member: string,
		tokens: number,
		allowance: number,
		caps: DailyCaps,
		now: Date,
	): Promise<SpendReservation> {
		const day = dayOf(now);
		const n = Math.max(0, Math.round(tokens));
		const keys = [this.key(community, day), this.key(community, day, member)] as const;
		const [all, mine] = await Promise.all(keys.map((key) => this.store.increment(key, n, TTL_MS)));
		const over =
			caps.community > 0 && (all ?? 0) > caps.community + allowance
				? "community"
				: caps.member > 0 && (mine ?? 0) > caps.member + allowance
					? "member"
					: undefined;
		if (over === undefined) return { ok: true, day };
		await Promise.all(keys.map((key) => this.store.increment(key, -n, TTL_MS)));
		return { ok: false, over };
	}

	/**
	 * A request spent `spent` tokens: replace its `reservation` (made on the day it names) with them,
	 * or add them whole without one (no cap was set, or the hook could not reserve).
	 */
	spent(
		community: string,
		member: string,
		spent: number,
		reservation: Reservation | undefined,
		now: Date,
	): Promise<void> {
		const day = reservation?.where !== undefined && DAY.test(reservation.where) ? reservation.where : dayOf(now);
		return this.add(community, member, spent - (reservation?.tokens ?? 0), day);
	}

	/** Add `tokens` (negative: give back) to the community's and `member`'s counters of `day`. */
	async add(community: string, member: string, tokens: number, day: string): Promise<void> {
		const n = Math.round(tokens);
		if (n === 0 || !Number.isFinite(n)) return;
		await Promise.all([
			this.store.increment(this.key(community, day), n, TTL_MS),
			this.store.increment(this.key(community, day, member), n, TTL_MS),
		]);
	}

	/**
	 * Forget-me: drop `member`'s counters (today's and yesterday's; the community's totals stay), so no
	 * key holds their id. Their member cap starts again from nothing.
	 */
	async forget(community: string, member: string, now: Date): Promise<void> {
		for (const back of [0, 1])
			await this.store.delete(this.key(community, dayOf(new Date(now.getTime() - back * DAY_MS)), member));
	}

	private key(community: string, day: string, member?: string): string {
		return stateKeys.spend(community, day, member);
	}
}
