/**
 * Token usage per community, kept in the state store for cost caps and
 * `/lesson usage`: one record per community and UTC day (kept 2 days: what the
 * daily budgets read) and one per community and month (kept 40 days), each
 * holding tokens per member per model. The store has no atomic increment, so
 * read-add-write runs serialized per key inside this process; several
 * processes sharing a store can lose a concurrent add (an atomic increment is
 * the scale-out issue's).
 *
 * Forget-me (`anonymise`) moves a member's tokens into the ANONYMOUS_MEMBER
 * bucket of every record that can still exist (today and yesterday, this month
 * and last): the community's totals stay right, no id or name of theirs stays.
 */

import type { StateStore } from "../../agent/index.ts";
import type { TurnUsage } from "../../core/contracts/budget.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The member id forgotten members' tokens are kept under (no name). */
export const ANONYMOUS_MEMBER = "anonymous";
const DAY_TTL_MS = 2 * DAY_MS;
const MONTH_TTL_MS = 40 * DAY_MS;

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

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

/** Coerce a stored period record (anything malformed counts as nothing). */
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

/** Per-community token usage over the state store. */
export class UsageLedger {
	private readonly chains = new Map<string, Promise<unknown>>();

	constructor(private readonly store: StateStore) {}

	/** Add a step's usage to the community's day and month (rejects when the store fails). */
	async charge(community: string, usage: TurnUsage, now: Date = new Date()): Promise<void> {
		const { day, month } = periodsOf(now);
		await Promise.all([
			this.add(`usage:${community}:${day}`, usage, DAY_TTL_MS),
			this.add(`usage:${community}:${month}`, usage, MONTH_TTL_MS),
		]);
	}

	/** The community's usage on `now`'s UTC day. */
	async day(community: string, now: Date = new Date()): Promise<PeriodUsage> {
		const key = `usage:${community}:${periodsOf(now).day}`;
		await this.chains.get(key)?.catch(() => undefined); // an add in flight lands first
		return periodOf(await this.store.get(key));
	}

	/** The community's usage in `now`'s UTC month. */
	async month(community: string, now: Date = new Date()): Promise<PeriodUsage> {
		const key = `usage:${community}:${periodsOf(now).month}`;
		await this.chains.get(key)?.catch(() => undefined);
		return periodOf(await this.store.get(key));
	}

	/**
	 * Forget-me: move `memberId`'s tokens in the community's day and month records into
	 * ANONYMOUS_MEMBER (totals kept, name dropped). Rejects when the store fails.
	 */
	async anonymise(community: string, memberId: string, now: Date = new Date()): Promise<void> {
		if (memberId === ANONYMOUS_MEMBER) return;
		const days = new Set([0, 1].map((d) => periodsOf(new Date(now.getTime() - d * DAY_MS)).day));
		const months = new Set([0, 40].map((d) => periodsOf(new Date(now.getTime() - d * DAY_MS)).month));
		const keys = [
			...[...days].map((p) => [`usage:${community}:${p}`, DAY_TTL_MS] as const),
			...[...months].map((p) => [`usage:${community}:${p}`, MONTH_TTL_MS] as const),
		];
		for (const [key, ttlMs] of keys)
			await this.serialize(key, async () => {
				const period = periodOf(await this.store.get(key));
				const member = period[memberId];
				if (!member) return;
				const bucket = period[ANONYMOUS_MEMBER] ?? { models: {} };
				for (const [model, t] of Object.entries(member.models)) {
					const before = bucket.models[model] ?? { input: 0, output: 0, cached: 0 };
					bucket.models[model] = {
						input: before.input + t.input,
						output: before.output + t.output,
						cached: before.cached + t.cached,
					};
				}
				delete period[memberId];
				period[ANONYMOUS_MEMBER] = { models: bucket.models };
				await this.store.set(key, period, ttlMs);
			});
	}

	private add(key: string, usage: TurnUsage, ttlMs: number): Promise<void> {
		return this.serialize(key, async () => {
			const period = periodOf(await this.store.get(key));
			const member = period[usage.by.id] ?? { models: {} };
			const before = member.models[usage.model] ?? { input: 0, output: 0, cached: 0 };
			member.models[usage.model] = {
				input: before.input + usage.inputTokens,
				output: before.output + usage.outputTokens,
				cached: before.cached + usage.cachedInputTokens,
			};
			if (usage.by.name) member.name = usage.by.name;
			period[usage.by.id] = member;
			await this.store.set(key, period, ttlMs);
		});
	}

	private serialize<T>(key: string, work: () => Promise<T>): Promise<T> {
		const next = (this.chains.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
		this.chains.set(key, next);
		const forget = () => {
			if (this.chains.get(key) === next) this.chains.delete(key);
		};
		next.then(forget, forget);
		return next;
	}
}
