/**
 * What the daily token caps count: per community and UTC day, two fields of the day's usage
 * record (usage-day.ts), the community's total (`$all`) and each member's (`$m:<member>`), of
 * tokens spent plus tokens reserved by requests in flight. A request reserves its estimate
 * before it is sent and trues it up after (spent minus reserved, often negative), so
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
 * true-up rides the usage ledger's one write per charge.
 *
 * Reserved ahead: a turn step's charge also reserves, in the same write, what the session's next
 * request may cost (its reservation grown by the step's output and a margin), checked against the
 * caps like any reservation. The next request of the same member (the learner's click, the next
 * step of a turn) then goes without a write of its own, so a click costs one usage write, not two.
 * What is reserved ahead and not used within AHEAD_MS is given back (one write per day record,
 * off the click's path); this process's own reservations ahead do not count against the requests
 * and verdicts it makes (another process's do, until they are given back or the day ends).
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
/** How long a reservation made ahead waits for its session's next request before it is given back. */
export const AHEAD_MS = 120_000;
/** Tokens added to a reservation ahead beyond the last step's reservation and output (the learner's answer, tool results). */
const AHEAD_MARGIN = 1_024;
/** Reservations ahead held at once (sessions); past it, none is made until some are used or given back. */
const MAX_AHEAD = 5_000;

/** The daily caps of a community (0: none), or what was spent and reserved against them. */
export interface DailyCaps {
	community: number;
	member: number;
}

/** A reservation's outcome: granted (`tokens` on `day`), or refused by the cap it would pass. */
export type SpendReservation = { ok: true; day: string; tokens: number } | { ok: false; over: "community" | "member" };

/** A reservation made ahead for a session's next request. */
interface Ahead {
	community: string;
	member: string;
	day: string;
	tokens: number;
	until: number;
}

/** What a charge reserves ahead for its session's next request. */
export interface AheadRequest {
	sessionId: string;
	tokens: number;
	/** The next request's maximum output (the caps' allowance). */
	allowance: number;
	caps: DailyCaps;
}

/** The size of a reservation ahead after a step estimated at `estimate` tokens that wrote `output`. */
export const aheadTokens = (estimate: number, output: number): number =>
	Math.max(0, Math.round(estimate + output + AHEAD_MARGIN));

/** `a` and `b` added field by field. */
const sum = (a: Record<string, number>, b: Record<string, number>): Record<string, number> => {
	const out = { ...a };
	for (const [field, n] of Object.entries(b)) out[field] = (out[field] ?? 0) + n;
	return out;
};

/** The counters' fields of a true-up or reservation of `tokens` by `member`. */
export function spendChange(member: string, tokens: number): Record<string, number> {
	const n = Math.round(tokens);
	return n === 0 || !Number.isFinite(n) ? {} : { [dayFields.spendAll]: n, [dayFields.spendOf(member)]: n };
}

/** The day a charge trues up on (its reservation's, else today) and the tokens it adds there. */
export function trueUp(
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
	/** Reservations made ahead, by session id. */
	private readonly ahead = new Map<string, Ahead>();

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
	 * stays: it over-counts, never under). With `sessionId`, what was reserved ahead for the session is
	 * used (no write) when it is this member's and enough, else given back in the reservation's write.
	 */
	async reserve(
		community: string,
		member: string,
		tokens: number,
		allowance: number,
		caps: DailyCaps,
		now: Date,
		sessionId?: string,
	): Promise<SpendReservation> {
		const day = dayOf(now);
		const key = dayKey(community, day);
		const n = Math.max(0, Math.round(tokens));
		const ahead = sessionId === undefined ? undefined : this.take(sessionId);
		const here = ahead?.community === community && ahead.day === day ? ahead : undefined;
		// Made ahead for this member's next request, and enough: granted with no write.
		if (here && here.member === member && here.tokens >= n && here.until > Date.now())
			return { ok: true, day, tokens: here.tokens };
		// Else given back in the reservation's write (on another day: in its own).
		if (ahead && !here) await this.giveBack([ahead]);
		const change = sum(spendChange(member, n), here ? spendChange(here.member, -here.tokens) : {});
		const record = await this.store.updateFields(key, { add: change }, DAY_RECORD_TTL_MS);
		this.seen(key, record);
		const over = await this.over(record, community, member, day, caps, allowance);
		if (over === undefined) return { ok: true, day, tokens: n };
		this.seen(key, await this.store.updateFields(key, { add: spendChange(member, -n) }, DAY_RECORD_TTL_MS));
		return { ok: false, over };
	}

	/**
	 * A charge's write reserved `request.tokens` ahead for `member` on `day` (its `record` after): held for the
	 * session's next request when it fits under the caps, else given back at once.
	 */
	async heldAhead(
		record: Record<string, unknown>,
		community: string,
		member: string,
		day: string,
		request: AheadRequest,
	): Promise<void> {
		const fits =
			this.ahead.size < MAX_AHEAD &&
			(await this.over(record, community, member, day, request.caps, request.allowance)) === undefined;
		const ahead = { community, member, day, tokens: request.tokens, until: Date.now() + AHEAD_MS };
		if (!fits) return this.giveBack([ahead]);
		const before = this.take(request.sessionId);
		this.ahead.set(request.sessionId, ahead);
		if (before) await this.giveBack([before]);
	}

	/** Give back what was reserved ahead and not used within AHEAD_MS (all of it with `all`): one write per day record. */
	async expire(all = false): Promise<void> {
		const due: Ahead[] = [];
		for (const [sessionId, ahead] of this.ahead)
			if (all || ahead.until <= Date.now()) {
				this.ahead.delete(sessionId);
				due.push(ahead);
			}
		await this.giveBack(due);
	}

	/** The cap `member`'s counters in `record` pass by more than `allowance` (this process's reservations ahead not counted). */
	private async over(
		record: Record<string, unknown>,
		community: string,
		member: string,
		day: string,
		caps: DailyCaps,
		allowance: number,
	): Promise<"community" | "member" | undefined> {
		if (caps.community === 0 && caps.member === 0) return undefined;
		const { community: all, member: mine } = await this.counters(record, community, member, day);
		if (caps.community > 0 && all > caps.community + allowance) return "community";
		if (caps.member > 0 && mine > caps.member + allowance) return "member";
		return undefined;
	}

	private take(sessionId: string): Ahead | undefined {
		const ahead = this.ahead.get(sessionId);
		this.ahead.delete(sessionId);
		return ahead;
	}

	/** Subtract reservations ahead from their day records' counters (a member's own counter unless forgotten). */
	private async giveBack(list: Ahead[], forgotten?: string): Promise<void> {
		const changes = new Map<string, Record<string, number>>();
		for (const a of list) {
			const key = dayKey(a.community, a.day);
			const back = a.member === forgotten ? { [dayFields.spendAll]: -a.tokens } : spendChange(a.member, -a.tokens);
			changes.set(key, sum(changes.get(key) ?? {}, back));
		}
		for (const [key, add] of changes) this.seen(key, await this.store.updateFields(key, { add }, DAY_RECORD_TTL_MS));
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
		const { day, tokens } = trueUp(spent, reservation, now);
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
		// Reserved ahead for them: given back to the community's total only (no counter of theirs written again).
		const theirs: Ahead[] = [];
		for (const [sessionId, ahead] of this.ahead)
			if (ahead.member === member && ahead.community === community) {
				this.ahead.delete(sessionId);
				theirs.push(ahead);
			}
		await this.giveBack(theirs, member);
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
		let aheadAll = 0;
		let aheadMine = 0;
		for (const a of this.ahead.values())
			if (a.community === community && a.day === day) {
				aheadAll += a.tokens;
				if (a.member === member) aheadMine += a.tokens;
			}
		return {
			community: num(record[dayFields.spendAll]) + all - aheadAll,
			member: num(record[dayFields.spendOf(member)]) + mine - aheadMine,
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
