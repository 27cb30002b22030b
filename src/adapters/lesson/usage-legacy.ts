/**
 * Usage records of earlier versions, read (summed with today's records) and anonymised by
 * forget-me until they expire (days after 2, months after 40 days); nothing writes them any more.
 * Under a period's base key `usage:<community>:<period>`:
 * - the base key itself: one JSON value `{ <member>: { name?, models: { <model>: tokens } } }`;
 * - `#n`: how many slots were handed out; `#s:<i>`: slot i's owner `{ member, model }`;
 *   `#p:<json [member, model]>`: a member and model's slot; `#c:<i>:<input|output|cached>`: slot
 *   i's counters; `#name:<member>`: the member's last known name.
 * The daily spend counters of cost caps were `spend:<community>:<day>#all` and `#m:<member>`.
 */

import type { StateStore } from "../../agent/index.ts";
import { perKey } from "../../core/per-key.ts";
import { ANONYMOUS_MEMBER, addTo, type ModelTokens, num, type PeriodUsage } from "./usage-period.ts";

/** At most this many slots per community and period are read (members x models). */
const MAX_SLOTS = 5_000;
const FIELDS = ["input", "output", "cached"] as const;

/** Coerce a stored one-value period record (anything malformed counts as nothing). */
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

const slotOf = (v: unknown): number | undefined =>
	typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;

const keys = {
	count: (base: string) => `${base}#n`,
	slot: (base: string, i: number) => `${base}#s:${i}`,
	pair: (base: string, member: string, model: string) => `${base}#p:${JSON.stringify([member, model])}`,
	counter: (base: string, i: number, field: (typeof FIELDS)[number]) => `${base}#c:${i}:${field}`,
	name: (base: string, member: string) => `${base}#name:${member}`,
};

/** Earlier versions' usage records over the state store: read and anonymised, never written anew. */
export class LegacyUsage {
	/** One-value records rewritten by anonymise, serialized per key in this process. */
	private readonly serial = perKey();

	constructor(private readonly store: StateStore) {}

	/** Both earlier formats' usage under `base`, summed. */
	async read(base: string): Promise<PeriodUsage> {
		const [legacy, count] = await Promise.all([this.store.get(base), this.store.get(keys.count(base))]);
		const out = periodOf(legacy);
		const n = Math.min(slotOf(count) ?? 0, MAX_SLOTS);
		if (n === 0) return out;
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

	/** Forget-me: `memberId`'s slots and tokens under `base` go to ANONYMOUS_MEMBER, their lookups and name go. */
	async anonymise(base: string, memberId: string, ttlMs: number): Promise<void> {
		const n = Math.min(slotOf(await this.store.get(keys.count(base))) ?? 0, MAX_SLOTS);
		for (let i = 1; i <= n; i++) {
			const owner = ownerOf(await this.store.get(keys.slot(base, i)));
			if (owner?.member !== memberId) continue;
			await this.store.set(keys.slot(base, i), { member: ANONYMOUS_MEMBER, model: owner.model }, ttlMs);
			await this.store.delete(keys.pair(base, memberId, owner.model));
		}
		await this.store.delete(keys.name(base, memberId));
		await this.anonymiseValue(base, memberId, ttlMs);
	}

	/** The one-value record: move the member's tokens into the anonymous bucket. */
	private anonymiseValue(base: string, memberId: string, ttlMs: number): Promise<void> {
		return this.serial(base, async () => {
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
	}
}
