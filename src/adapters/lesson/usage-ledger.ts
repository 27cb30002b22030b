/**
 * Token usage per community, kept in the state store for cost caps and
 * `/lesson usage`: per community and UTC day (kept 2 days: what the daily
 * budgets read) and per community and month (kept 40 days), tokens per member
 * per model.
 *
 * Every charge is a handful of the store's atomic `increment`s, so processes
 * sharing a Redis or PostgreSQL store never lose each other's additions. Under
 * a period's base key `usage:<community>:<period>`:
 * - `#n`: how many slots were handed out (a counter);
 * - `#s:<i>`: slot i's owner `{ member, model }`;
 * - `#p:<json [member, model]>`: the slot a member and model charge (set once, first writer wins);
 * - `#c:<i>:<input|output|cached>`: slot i's token counters;
 * - `#name:<member>`: the member's last known name.
 * A reader sums the counters of every slot per owner (two processes registering one
 * member at once make two slots: both count). Records of earlier versions (one JSON
 * value under the base key) still read, summed with the counters, until they expire.
 *
 * Forget-me (`anonymise`) hands the member's slots to ANONYMOUS_MEMBER (the counters
 * stay where they are, so a charge landing meanwhile still counts), removes their
 * slot lookups and name, and moves their tokens in an earlier version's record into
 * the anonymous bucket, for every period that can still exist (today and yesterday,
 * this month and last): the community's totals stay right, no id or name of theirs stays.
 *
 * Cost caps do not read these records (their reads grow with the members): they read the
 * daily spend counters (`spend`, spend-counters.ts), which a charge settles too (the
 * request's reservation replaced by its usage), so both stay one path through `charge`.
 */

import type { StateStore } from "../../agent/index.ts";
import type { Reservation, TurnUsage } from "../../core/contracts/budget.ts";
import { isForgotten } from "./forgotten-members.ts";
import { SpendCounters } from "./spend-counters.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The member id forgotten members' tokens are kept under (no name). */
export const ANONYMOUS_MEMBER = "anonymous";
const DAY_TTL_MS = 2 * DAY_MS;
const MONTH_TTL_MS = 40 * DAY_MS;
/** At most this many slots per community and period are read (members x models). */
const MAX_SLOTS = 5_000;
/** Names remembered as written (skips rewriting an unchanged name), dropped past this size. */
const MAX_NAMES = 2_000;
/**
 * How long a member's slot, once looked up, is charged without reading its lookup again (a
 * charge is then only its increments). A slot never changes owner but to ANONYMOUS_MEMBER, so
 * a process that has not heard of a forget-me yet charges the anonymous slot for at most this long.
 */
const SLOT_FRESH_MS = 60_000;
/** Slots remembered, dropped past this size. */
const MAX_SLOTS_KNOWN = 5_000;

/** Tokens of one model (cached is part of input). */
export interface ModelTokens {
	input: number;
	output: number;
	cached: number;
}

/** A member's usage in a period: their last known name and tokens per model id. */
export interface MemberUsage {
	name?: string;
	models: Record<string, ModelTokens>;
}

/** A period's usage (a UTC day or month): per member id. */
export type PeriodUsage = Record<string, MemberUsage>;

const FIELDS = ["input", "output", "cached"] as const;

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

/** Coerce a stored period record of an earlier version (anything malformed counts as nothing). */
function periodOf(value: unknown): PeriodUsage {
	const out: PeriodUsage = {};
	if (typeof value !== "object" || value === null) return out;
	for (const [id, raw] of Object.entries(value as Record<string, unknown>)) {
		const member = raw as { name?: unknown; models?: unknown } | null;
		if (!member || typeof member.models !== "object" || member.models === null) continue;
		const models: Record<string, ModelTokens> = {};
		for (const [model, t] of Object.entries(member.models as Record<string, unknown>)) {
			const tokens = (t ?? {}) as Partial<Record<keyof ModelTokens, unknown>>;
			models[model] = { input: num(tokens.input), output: num(tokens.output), cached: num(tokens.cached) };
		}
		out[id] = { ...(typeof member.name === "string" ? { name: member.name } : {}), models };
	}
	return out;
}

/** A slot's owner as stored, or undefined when absent or malformed. */
function ownerOf(value: unknown): { member: string; model: string } | undefined {
	const v = value as { member?: unknown; model?: unknown } | null | undefined;
	return typeof v?.member === "string" && typeof v.model === "string"
		? { member: v.member, model: v.model }
		: undefined;
}

/** A stored slot number, or undefined. */
const slotOf = (v: unknown): number | undefined =>
	typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;

/** Add `t` to `member`'s tokens of `model` in `period`. */
function addTo(period: PeriodUsage, member: string, model: string, t: ModelTokens): void {
	const usage = period[member] ?? { models: {} };
	const before = usage.models[model] ?? { input: 0, output: 0, cached: 0 };
	usage.models[model] = {
		input: before.input + t.input,
		output: before.output + t.output,
		cached: before.cached + t.cached,
	};
	period[member] = usage;
}

/** Tokens that count against a budget (input + output) in a member's usage. */
export function memberTokens(member: MemberUsage | undefined): number {
	return Object.values(member?.models ?? {}).reduce((sum, t) => sum + t.input + t.output, 0);
}

/** Tokens that count against a budget in a whole period. */
export function periodTokens(period: PeriodUsage): number {
	return Object.values(period).reduce((sum, m) => sum + memberTokens(m), 0);
}

/** The UTC day (`YYYY-MM-DD`) and month (`YYYY-MM`) of a time. */
export function periodsOf(now: Date): { day: string; month: string } {
	const iso = now.toISOString();
	return { day: iso.slice(0, 10), month: iso.slice(0, 7) };
}

/** Keys under a period's base key (see the file comment). */
const keys = {
	count: (base: string) => `${base}#n`,
	slot: (base: string, i: number) => `${base}#s:${i}`,
	pair: (base: string, member: string, model: string) => `${base}#p:${JSON.stringify([member, model])}`,
	counter: (base: string, i: number, field: (typeof FIELDS)[number]) => `${base}#c:${i}:${field}`,
	name: (base: string, member: string) => `${base}#name:${member}`,
};

/** Per-community token usage over the state store. */
export class UsageLedger {
	/** Charges in flight per base key: a read in this process waits for them. */
	private readonly inflight = new Map<string, Set<Promise<unknown>>>();
	/** Slot registrations in flight in this process (one per member and model at a time). */
	private readonly registering = new Map<string, Promise<number>>();
	/** Names this ledger wrote, per name key. */
	private readonly names = new Map<string, string>();
	/** Slots looked up or handed out in this process, per lookup key, and until when they are used unread. */
	private readonly slots = new Map<string, { slot: number; until: number }>();
	/** Earlier versions' records rewritten by anonymise, serialized per key in this process. */
	private readonly legacyChains = new Map<string, Promise<unknown>>();

	/** The daily spend counters cost caps read and reserve against (settled by `charge`, dropped by `anonymise`). */
	readonly spend: SpendCounters;

	constructor(private readonly store: StateStore) {
		this.spend = new SpendCounters(store);
	}

	/**
	 * Add a request's usage to the community's day and month, and to the spend counters: replacing
	 * `reservation` (what reserve granted for it, on its own day) when given, else added whole.
	 * Rejects when the store fails.
	 */
	async charge(community: string, usage: TurnUsage, now: Date = new Date(), reservation?: Reservation): Promise<void> {
		const { day, month } = periodsOf(now);
		const spent = num(usage.inputTokens) + num(usage.outputTokens);
		// Tracked at once (before any await): a read in this process waits for this charge.
		const charged = this.chargeable(`usage:${community}:${day}`, usage);
		const dayBase = `usage:${community}:${day}`;
		const monthBase = `usage:${community}:${month}`;
		await Promise.all([
			this.track(
				dayBase,
				charged.then((c) => this.add(dayBase, c, DAY_TTL_MS)),
			),
			this.track(
				monthBase,
				charged.then((c) => this.add(monthBase, c, MONTH_TTL_MS)),
			),
			// Cost caps: the reservation's estimate becomes what was spent (the difference, may be negative).
			charged.then((c) => this.spend.spent(community, c.by.id, spent, reservation, now)),
		]);
	}

	/**
	 * Forget-me: a charge for a member who asked to be forgotten goes to ANONYMOUS_MEMBER (totals kept, no id or
	 * name written back). The tombstone is read only when the charge may write something of theirs not written in
	 * this process already (their slot or name fresh here: this process charged them since, so no forget-me ran here).
	 */
	private async chargeable(base: string, charged: TurnUsage): Promise<TurnUsage> {
		if (charged.by.id === ANONYMOUS_MEMBER) return charged;
		const fresh =
			(this.slots.get(keys.pair(base, charged.by.id, charged.model))?.until ?? 0) > Date.now() &&
			(!charged.by.name || this.names.get(keys.name(base, charged.by.id)) === charged.by.name);
		return fresh || !(await isForgotten(this.store, charged.by.id))
			? charged
			: { ...charged, by: { id: ANONYMOUS_MEMBER } };
	}

	/** The community's usage on `now`'s UTC day. */
	day(community: string, now: Date = new Date()): Promise<PeriodUsage> {
		return this.read(`usage:${community}:${periodsOf(now).day}`);
	}

	/** The community's usage in `now`'s UTC month. */
	month(community: string, now: Date = new Date()): Promise<PeriodUsage> {
		return this.read(`usage:${community}:${periodsOf(now).month}`);
	}

	/**
	 * Forget-me: `memberId`'s tokens in the community's day and month records go to
	 * ANONYMOUS_MEMBER (totals kept, id and name dropped). Rejects when the store fails.
	 */
	async anonymise(community: string, memberId: string, now: Date = new Date()): Promise<void> {
		if (memberId === ANONYMOUS_MEMBER) return;
		const days = new Set([0, 1].map((d) => periodsOf(new Date(now.getTime() - d * DAY_MS)).day));
		const months = new Set([0, 40].map((d) => periodsOf(new Date(now.getTime() - d * DAY_MS)).month));
		const bases = [
			...[...days].map((p) => [`usage:${community}:${p}`, DAY_TTL_MS] as const),
			...[...months].map((p) => [`usage:${community}:${p}`, MONTH_TTL_MS] as const),
		];
		for (const [base, ttlMs] of bases) {
			await this.settled(base);
			await this.anonymiseSlots(base, memberId, ttlMs);
			await this.anonymiseLegacy(base, memberId, ttlMs);
		}
		// Cost caps: their daily counter is keyed by their id (the community's total stays).
		await this.spend.forget(community, memberId, now);
	}

	private async add(base: string, usage: TurnUsage, ttlMs: number): Promise<void> {
		const slot = await this.slotFor(base, usage.by.id, usage.model, ttlMs);
		const amounts = { input: usage.inputTokens, output: usage.outputTokens, cached: usage.cachedInputTokens };
		await Promise.all(
			FIELDS.filter((f) => num(amounts[f]) > 0).map((f) =>
				this.store.increment(keys.counter(base, slot, f), Math.round(num(amounts[f])), ttlMs),
			),
		);
		const name = usage.by.name;
		const nameKey = keys.name(base, usage.by.id);
		if (name && usage.by.id !== ANONYMOUS_MEMBER && this.names.get(nameKey) !== name) {
			await this.store.set(nameKey, name, ttlMs);
			if (this.names.size >= MAX_NAMES) this.names.clear();
			this.names.set(nameKey, name);
		}
	}

	/** The slot `member` charges `model` to in the period, handing out a new one the first time. */
	private async slotFor(base: string, member: string, model: string, ttlMs: number): Promise<number> {
		const pairKey = keys.pair(base, member, model);
		const remembered = this.slots.get(pairKey);
		if (remembered && remembered.until > Date.now()) return remembered.slot;
		const known = slotOf(await this.store.get(pairKey));
		if (known !== undefined) return this.remember(pairKey, known);
		const running = this.registering.get(pairKey);
		if (running) return running;
		const work = (async () => {
			// The owner is written before the lookup: a crash in between leaves an empty slot, never a lost one.
			const slot = await this.store.increment(keys.count(base), 1, ttlMs);
			await this.store.set(keys.slot(base, slot), { member, model }, ttlMs);
			if (await this.store.setIfAbsent(pairKey, slot, ttlMs)) return this.remember(pairKey, slot);
			// Another process registered the pair first: charge its slot (ours stays empty, or counts too).
			return this.remember(pairKey, slotOf(await this.store.get(pairKey)) ?? slot);
		})();
		this.registering.set(pairKey, work);
		const forget = () => {
			if (this.registering.get(pairKey) === work) this.registering.delete(pairKey);
		};
		work.then(forget, forget);
		return work;
	}

	private remember(pairKey: string, slot: number): number {
		if (this.slots.size >= MAX_SLOTS_KNOWN) this.slots.clear();
		this.slots.set(pairKey, { slot, until: Date.now() + SLOT_FRESH_MS });
		return slot;
	}

	private async read(base: string): Promise<PeriodUsage> {
		await this.settled(base);
		const [legacy, count] = await Promise.all([this.store.get(base), this.store.get(keys.count(base))]);
		const out = periodOf(legacy);
		const n = Math.min(slotOf(count) ?? 0, MAX_SLOTS);
		const slots = Array.from({ length: n }, (_, i) => i + 1);
		const owners = await Promise.all(slots.map(async (i) => ownerOf(await this.store.get(keys.slot(base, i)))));
		const tokens = await Promise.all(
			slots.map(async (i, at) => {
				if (!owners[at]) return undefined;
				const [input, output, cached] = await Promise.all(
					FIELDS.map(async (f) => num(await this.store.get(keys.counter(base, i, f)))),
				);
				return { input, output, cached } as ModelTokens;
			}),
		);
		const members = new Set<string>();
		owners.forEach((owner, at) => {
			const t = tokens[at];
			if (!owner || !t) return;
			addTo(out, owner.member, owner.model, t);
			members.add(owner.member);
		});
		members.delete(ANONYMOUS_MEMBER);
		await Promise.all(
			[...members].map(async (member) => {
				const name: unknown = await this.store.get(keys.name(base, member));
				const usage = out[member];
				if (typeof name === "string" && usage) usage.name = name;
			}),
		);
		return out;
	}

	private async anonymiseSlots(base: string, memberId: string, ttlMs: number): Promise<void> {
		const n = Math.min(slotOf(await this.store.get(keys.count(base))) ?? 0, MAX_SLOTS);
		for (let i = 1; i <= n; i++) {
			const owner = ownerOf(await this.store.get(keys.slot(base, i)));
			if (owner?.member !== memberId) continue;
			await this.store.set(keys.slot(base, i), { member: ANONYMOUS_MEMBER, model: owner.model }, ttlMs);
			await this.store.delete(keys.pair(base, memberId, owner.model));
			this.slots.delete(keys.pair(base, memberId, owner.model));
		}
		await this.store.delete(keys.name(base, memberId));
		this.names.delete(keys.name(base, memberId));
	}

	/** An earlier version's record: move the member's tokens into the anonymous bucket. */
	private anonymiseLegacy(base: string, memberId: string, ttlMs: number): Promise<void> {
		const next = (this.legacyChains.get(base) ?? Promise.resolve())
			.catch(() => undefined)
			.then(async () => {
				const stored: unknown = await this.store.get(base);
				if (stored === undefined) return;
				const period = periodOf(stored);
				const member = period[memberId];
				if (!member) return;
				for (const [model, t] of Object.entries(member.models)) addTo(period, ANONYMOUS_MEMBER, model, t);
				delete period[memberId];
				period[ANONYMOUS_MEMBER] = { models: period[ANONYMOUS_MEMBER]?.models ?? {} };
				await this.store.set(base, period, ttlMs);
			});
		this.legacyChains.set(base, next);
		const forget = () => {
			if (this.legacyChains.get(base) === next) this.legacyChains.delete(base);
		};
		next.then(forget, forget);
		return next;
	}

	/** Remember a charge in flight under `base` until it settles. */
	private track<T>(base: string, work: Promise<T>): Promise<T> {
		const set = this.inflight.get(base) ?? new Set<Promise<unknown>>();
		set.add(work);
		this.inflight.set(base, set);
		const forget = () => {
			set.delete(work);
			if (set.size === 0 && this.inflight.get(base) === set) this.inflight.delete(base);
		};
		work.then(forget, forget);
		return work;
	}

	/** Wait for this process's charges in flight under `base` (failures are their callers'). */
	private async settled(base: string): Promise<void> {
		const set = this.inflight.get(base);
		if (set) await Promise.all([...set].map((p) => p.catch(() => undefined)));
	}
}
