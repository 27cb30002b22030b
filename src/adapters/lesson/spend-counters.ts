/**
 * What the daily token caps count: per community and UTC day, two fields of the day's usage
 * record (usage-day.ts), the community's total (`$all`) and each member's (`$m:<member>`), of
 * tokens spent plus tokens reserved by requests in flight. A request reserves its estimate
 * before it is sent and settles the difference after (spent minus reserved, often negative), so
 * concurrent requests cannot pass a cap together. Every request reserves, caps or none, so a
 * click costs the same store calls whether caps are on (and a cap set later today counts what
 * was spent before it).
 *
 * A reservation is one atomic `updateFields` adding to both counters, checked and undone when
 * it went over (like the daily lesson limit): on every backend (Redis, PostgreSQL, SQLite,
 * memory) two processes cannot both slip under a cap. A request is granted when its input fits
 * what is left: the counter after the reservation (input + maximum output) stays within the
 * cap plus that maximum output. So spent tokens stay within the cap plus one request's maximum
 * output, as long as inputs are not underestimated. While a refused reservation is being undone,
 * a racing one may see a sum too high and be refused too (never the other way round). The
 * settlement rides the usage ledger's one write per charge.
 *
 * Counters of earlier versions (`spend:<community>:<day>#…` keys, no longer written) are read
 * once per process, community, day and member, and added.
 */

import { type StateStore, stateKeys } from "../../agent/index.ts";
import type { Reservation } from "../../core/contracts/budget.ts";
import { DAY_RECORD_TTL_MS, dayFields, dayKey } from "./usage-day.ts";
import { dayOf, num } from "./usage-period.ts";

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** How long the counters this process last wrote or read stand in for a read (the verdict after a click). */
const SEEN_FRESH_MS = 60_000;
/** Remembered entries (records seen, earlier counters), dropped past this size. */
const MAX_KNOWN = 5_000;

/** The daily caps of a community (0: none), or what was spent and reserved against them. */
export interface DailyCaps {
	community: number;
	member: number;
}

/** A reservation's outcome: granted (on `day`), or refused by the cap it would pass. */
export type SpendReservation = { ok: true; day: string } | { ok: false; over: "community" | "member" };

/** The counters' fields of a settlement or reservation of `tokens` by `member`. */
export function spendChange(member: string, tokens: number): Record<string, number> {
	const n = Math.round(tokens);
	return n === 0 || !Number.isFinite(n) ? {} : { [dayFields.spendAll]: n, [dayFields.spendOf(member)]: n };
}

/** The day a charge settles on (its reservation's, else today) and the tokens it adds there. */
export function settlement(
	spent: number,
	reservation: Reservation | undefined,
	now: Date,
): { day: string; tokens: number } {
	const day = reservation?.where !== undefined && DAY.test(reservation.where) ? reservation.where : dayOf(now);
	return { day, tokens: spent - (reservation?.tokens ?? 0) };
}

/** The daily spend counters of cost caps over the state store. */
export class SpendCounters {
	/** The day records this process last wrote or read, and when. */
	private readonly seenRecords = new Map<string, { record: Record<string, unknown>; at: number }>();
	/** Earlier versions' counters, read once (nothing writes them any more). */
	private readonly earlier = new Map<string, Promise<number>>();

	constructor(private readonly store: StateStore) {}

	/** Remember a day record as this process just wrote or read it (the newest stands in for a read). */
	seen(key: string, record: Record<string, unknown>): void {
		if (this.seenRecords.size >= MAX_KNOWN) this.seenRecords.clear();
		this.seenRecords.set(key, { record, at: Date.now() });
	}

	/** Forget what this process saw of a day record (forget-me changed it). */
	unsee(key: string): void {
		this.seenRecords.delete(key);
	}

	/** Tokens spent and reserved today by the community and by `member`: one read (earlier counters once). */
	async today(community: string, member: string, now: Date): Promise<DailyCaps> {
		const day = dayOf(now);
		const key = dayKey(community, day);
		const stored: unknown = await this.store.get(key);
		const record = typeof stored === "object" && stored !== null ? (stored as Record<string, unknown>) : {};
		this.seen(key, record);
		return this.counters(record, community, member, day);
	}

	/**
	 * Like `today`, from the record this process last wrote or read when that was under a minute
	 * ago (no read: what a verdict after a click uses; another process's spending since may be
	 * missing, which the request's own reservation then catches).
	 */
	async recent(community: string, member: string, now: Date): Promise<DailyCaps> {
		const day = dayOf(now);
		const seen = this.seenRecords.get(dayKey(community, day));
		if (seen && Date.now() - seen.at < SEEN_FRESH_MS) return this.counters(seen.record, community, member, day);
		return this.today(community, member, now);
	}

	/**
	 * Reserve `tokens` (a request's estimated input + `allowance`, its maximum output) for `member`
	 * unless a cap would pass by more than `allowance` (no caps: granted). Refused: nothing stays
	 * reserved. Rejects when the store fails (a reservation that went through before the failure
	 * stays: it over-counts, never under).
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
		const key = dayKey(community, day);
		const n = Math.max(0, Math.round(tokens));
		const record = await this.store.updateFields(key, { add: spendChange(member, n) }, DAY_RECORD_TTL_MS);
		this.seen(key, record);
		if (caps.community === 0 && caps.member === 0) return { ok: true, day };
		const { community: all, member: mine } = await this.counters(record, community, member, day);
		const over =
			caps.community > 0 && all > caps.community + allowance
				? "community"
				: caps.member > 0 && mine > caps.member + allowance
					? "member"
					: undefined;
		if (over === undefined) return { ok: true, day };
		this.seen(key, await this.store.updateFields(key, { add: spendChange(member, -n) }, DAY_RECORD_TTL_MS));
		return { ok: false, over };
	}

	/**
	 * A request spent `spent` tokens: replace its `reservation` (made on the day it names) with them,
	 * or add them whole without one. (The usage ledger's charge does this in its own write.)
	 */
	async spent(
		community: string,
		member: string,
		spent: number,
		reservation: Reservation | undefined,
		now: Date,
	): Promise<void> {
		const { day, tokens } = settlement(spent, reservation, now);
		const add = spendChange(member, tokens);
		if (Object.keys(add).length === 0) return;
		const key = dayKey(community, day);
		this.seen(key, await this.store.updateFields(key, { add }, DAY_RECORD_TTL_MS));
	}

	/**
	 * Forget-me: drop `member`'s counters of earlier versions (the community's totals stay): those of the last
	 * three days, since a counter lives 2 days after its last write (late on its day).
	 */
	async forget(community: string, member: string, now: Date): Promise<void> {
		for (const back of [0, 1, 2]) {
			const day = dayOf(new Date(now.getTime() - back * 24 * 60 * 60 * 1000));
			await this.store.delete(stateKeys.spend(community, day, member));
			this.earlier.delete(stateKeys.spend(community, day, member));
		}
	}

	/** The counters of a day record, plus earlier versions' counters of that day. */
	private async counters(
		record: Record<string, unknown>,
		community: string,
		member: string,
		day: string,
	): Promise<DailyCaps> {
		const [all, mine] = await Promise.all([
			this.earlierCount(stateKeys.spend(community, day)),
			this.earlierCount(stateKeys.spend(community, day, member)),
		]);
		return {
			community: num(record[dayFields.spendAll]) + all,
			member: num(record[dayFields.spendOf(member)]) + mine,
		};
	}

	private earlierCount(key: string): Promise<number> {
		let known = this.earlier.get(key);
		if (!known) {
			known = this.store.get(key).then(num);
			if (this.earlier.size >= MAX_KNOWN) this.earlier.clear();
			this.earlier.set(key, known);
			// A failed read is read again next time.
			known.catch(() => this.earlier.delete(key));
		}
		return known;
	}
}
