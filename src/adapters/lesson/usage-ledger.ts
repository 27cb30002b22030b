/**
 * Token usage per community, kept in the state store for cost caps and `/lesson usage`: one
 * record per community and UTC day (usage-day.ts: tokens per member and model, names, and the
 * cost caps' spend counters), kept 40 days; a month's usage is the sum of its days.
 *
 * A model step's charge is one atomic `updateFields` on the day's record: its tokens, the
 * member's name and the true-up of its reservation (spend-counters.ts) together, so
 * processes sharing a Redis or PostgreSQL store never lose each other's additions, and a
 * charge costs one store call whatever the number of members. Records of earlier versions
 * (usage-legacy.ts) still read, summed with the day records, until they expire.
 *
 * Forget-me (`anonymise`) moves the member's tokens to ANONYMOUS_MEMBER and drops their name
 * and spend counter in every day record of this month and last, and in earlier versions'
 * records: the community's totals stay right, no id or name of theirs stays. A charge that
 * lands later (the turn running when they asked) goes to ANONYMOUS_MEMBER: through the
 * tombstone (forgotten-members.ts), read when this process has not charged them in the last
 * minute; and a charge that skipped it (charged lately in another process) finds the day's
 * forgotten mark in what its write returns, and moves its own tokens.
 */

import type { StateStore } from "../../agent/index.ts";
import type { Reservation, TurnUsage } from "../../core/contracts/budget.ts";
import { isForgotten } from "./forgotten-members.ts";
import { type AheadRequest, SpendCounters, spendChange, trueUp } from "./spend-counters.ts";
import { anonymising, DAY_RECORD_TTL_MS, dayFields, dayKey, usageOfDay } from "./usage-day.ts";
import { LegacyUsage } from "./usage-legacy.ts";
import { ANONYMOUS_MEMBER, addPeriod, dayOf, monthOf, num, type PeriodUsage } from "./usage-period.ts";

export { ANONYMOUS_MEMBER, memberTokens, type PeriodUsage, periodTokens } from "./usage-period.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Earlier versions kept days 2 days and months 40. */
const LEGACY_DAY_TTL_MS = 2 * DAY_MS;
const LEGACY_MONTH_TTL_MS = 40 * DAY_MS;
/**
 * How long a member charged in this process is charged again without reading their tombstone
 * (forget-me in this process forgets it; in another, the day record's mark catches it).
 */
const CHARGED_FRESH_MS = 60_000;
/** Members remembered as charged, dropped past this size. */
const MAX_CHARGED = 5_000;

/** Per-community token usage over the state store. */
export class UsageLedger {
	/** Charges in flight per day record: a read in this process waits for them. */
	private readonly inflight = new Map<string, Set<Promise<unknown>>>();
	/** Members charged in this process, per day record and member: their name then, and until when that counts. */
	private readonly charged = new Map<string, { name: string | undefined; until: number }>();
	private readonly legacy: LegacyUsage;

	/** The daily spend counters cost caps read and reserve against (settled by `charge`, dropped by `anonymise`). */
	readonly spend: SpendCounters;

	constructor(private readonly store: StateStore) {
		this.spend = new SpendCounters(store);
		this.legacy = new LegacyUsage(store);
	}

	/**
	 * Add a request's usage to the community's day, and to the spend counters: replacing
	 * `reservation` (what reserve granted for it, on its own day) when given, else added whole;
	 * with `ahead`, reserving in the same write what the session's next request may cost
	 * (spend-counters.ts). One store write (two when the reservation was made on another day).
	 * Rejects when the store fails.
	 */
	async charge(
		community: string,
		usage: TurnUsage,
		now: Date = new Date(),
		reservation?: Reservation,
		ahead?: AheadRequest,
	): Promise<void> {
		const key = dayKey(community, dayOf(now));
		// Tracked at once (before any await): a read in this process waits for this charge.
		await this.track(key, this.write(community, key, usage, now, reservation, ahead));
	}

	private async write(
		community: string,
		key: string,
		usage: TurnUsage,
		now: Date,
		reservation: Reservation | undefined,
		ahead: AheadRequest | undefined,
	): Promise<void> {
		const { by, checked } = await this.chargeable(key, usage);
		const tokens: Record<string, number> = {
			[dayFields.tokens("i", by.id, usage.model)]: num(usage.inputTokens),
			[dayFields.tokens("o", by.id, usage.model)]: num(usage.outputTokens),
			[dayFields.tokens("c", by.id, usage.model)]: num(usage.cachedInputTokens),
		};
		for (const field of Object.keys(tokens)) if (tokens[field] === 0) delete tokens[field];
		const spent = num(usage.inputTokens) + num(usage.outputTokens);
		const settle = trueUp(spent, reservation, now);
		const sameDay = dayKey(community, settle.day) === key;
		// Reserved ahead only on the day's record, for a member not forgotten.
		const next = sameDay && by.id === usage.by.id && by.id !== ANONYMOUS_MEMBER ? ahead : undefined;
		const add = { ...tokens, ...(sameDay ? spendChange(by.id, settle.tokens + (next?.tokens ?? 0)) : {}) };
		const set = by.name && by.id !== ANONYMOUS_MEMBER ? { [dayFields.name(by.id)]: by.name } : undefined;
		const record = await this.store.updateFields(key, { add, ...(set ? { set } : {}) }, DAY_RECORD_TTL_MS);
		this.spend.seen(key, record);
		if (!sameDay) await this.spend.spent(community, by.id, spent, reservation, now);
		if (!checked && by.id !== ANONYMOUS_MEMBER && record[dayFields.forgotten(by.id)] !== undefined) {
			// Not checked (charged here lately) and forgotten in another process meanwhile: move this charge's
			// tokens, drop what names them; the next charge reads the tombstone.
			const moved = anonymising(tokens, by.id);
			if (next) moved.add[dayFields.spendAll] = -next.tokens;
			this.spend.seen(key, await this.store.updateFields(key, moved, DAY_RECORD_TTL_MS));
			this.charged.delete(`${key}\n${by.id}`);
			return;
		}
		if (by.id === ANONYMOUS_MEMBER) return;
		if (next) await this.spend.heldAhead(record, community, by.id, settle.day, next);
		if (this.charged.size >= MAX_CHARGED) this.charged.clear();
		this.charged.set(`${key}\n${by.id}`, { name: by.name, until: Date.now() + CHARGED_FRESH_MS });
	}

	/**
	 * Forget-me: a charge for a member who asked to be forgotten goes to ANONYMOUS_MEMBER (totals kept, no id or
	 * name written back). The tombstone is read only when this process has not charged them, under that name,
	 * within the last minute (then no forget-me ran here since).
	 */
	private async chargeable(key: string, usage: TurnUsage): Promise<{ by: TurnUsage["by"]; checked: boolean }> {
		if (usage.by.id === ANONYMOUS_MEMBER) return { by: usage.by, checked: true };
		const known = this.charged.get(`${key}\n${usage.by.id}`);
		const fresh = known !== undefined && known.until > Date.now() && (!usage.by.name || known.name === usage.by.name);
		if (fresh) return { by: usage.by, checked: false };
		const forgotten = await isForgotten(this.store, usage.by.id);
		return { by: forgotten ? { id: ANONYMOUS_MEMBER } : usage.by, checked: true };
	}

	/** The community's usage on `now`'s UTC day. */
	async day(community: string, now: Date = new Date()): Promise<PeriodUsage> {
		const day = dayOf(now);
		const [current, earlier] = await Promise.all([
			this.readDay(community, day),
			this.legacy.read(`usage:${community}:${day}`),
		]);
		return addPeriod(current, earlier);
	}

	/** The community's usage in `now`'s UTC month: the sum of its days (a member's newest name kept). */
	async month(community: string, now: Date = new Date()): Promise<PeriodUsage> {
		const month = monthOf(now);
		const length = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
		const days = Array.from({ length }, (_, i) => `${month}-${String(length - i).padStart(2, "0")}`);
		const [records, earlier] = await Promise.all([
			Promise.all(days.map((day) => this.readDay(community, day))),
			this.legacy.read(`usage:${community}:${month}`),
		]);
		return addPeriod(
			records.reduce((sum, record) => addPeriod(sum, record), {} as PeriodUsage),
			earlier,
		);
	}

	/**
	 * Forget-me: `memberId`'s tokens in the community's records of this month and last go to
	 * ANONYMOUS_MEMBER (totals kept, id, name and spend counter dropped). Rejects when the store fails.
	 */
	async anonymise(community: string, memberId: string, now: Date = new Date()): Promise<void> {
		if (memberId === ANONYMOUS_MEMBER) return;
		for (const [key] of this.charged) if (key.endsWith(`\n${memberId}`)) this.charged.delete(key);
		const ago = (days: number) => new Date(now.getTime() - days * DAY_MS);
		for (let back = 0; back <= 40; back++) {
			const key = dayKey(community, dayOf(ago(back)));
			await this.settled(key);
			// Today and yesterday take charges still: mark them first (a charge landing after the mark moves itself).
			const record =
				back <= 1
					? await this.store.updateFields(key, { set: { [dayFields.forgotten(memberId)]: "1" } }, DAY_RECORD_TTL_MS)
					: await this.store.get(key);
			if (typeof record !== "object" || record === null) continue;
			const change = anonymising(record as Record<string, unknown>, memberId);
			const named = change.drop.some((field) => field in record);
			if (Object.keys(change.add).length > 0 || named) await this.store.updateFields(key, change, DAY_RECORD_TTL_MS);
			this.spend.unsee(key);
		}
		// Earlier versions' records live 2 (days) and 40 (months) days after their last write: every day and
		// month that reaches back as far (a month's record of 40 days ago may be two months back).
		for (const day of [0, 1, 2].map((d) => dayOf(ago(d))))
			await this.legacy.anonymise(`usage:${community}:${day}`, memberId, LEGACY_DAY_TTL_MS);
		for (const month of new Set(Array.from({ length: 41 }, (_, d) => monthOf(ago(d)))))
			await this.legacy.anonymise(`usage:${community}:${month}`, memberId, LEGACY_MONTH_TTL_MS);
		await this.spend.forget(community, memberId, now);
	}

	private async readDay(community: string, day: string): Promise<PeriodUsage> {
		const key = dayKey(community, day);
		await this.settled(key);
		return usageOfDay(await this.store.get(key));
	}

	/** Remember a charge in flight under `key` until it settles. */
	private track<T>(key: string, work: Promise<T>): Promise<T> {
		const set = this.inflight.get(key) ?? new Set<Promise<unknown>>();
		set.add(work);
		this.inflight.set(key, set);
		const forget = () => {
			set.delete(work);
			if (set.size === 0 && this.inflight.get(key) === set) this.inflight.delete(key);
		};
		work.then(forget, forget);
		return work;
	}

	/** Wait for this process's charges in flight under `key` (failures are their callers'). */
	private async settled(key: string): Promise<void> {
		const set = this.inflight.get(key);
		if (set) await Promise.all([...set].map((p) => p.catch(() => undefined)));
	}
}
