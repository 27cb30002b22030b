/**
 * One community's usage of one UTC day, one object in the state store under
 * `usage:<community>:<day>#d` (kept 40 days: a month's view sums its days), changed only
 * through the store's atomic `updateFields`, so a model step's whole charge is one write:
 * - `i:<json [member, model]>`, `o:…`, `c:…`: input, output and cached input tokens;
 * - `n:<member>`: the member's last known name;
 * - `$all`, `$m:<member>`: the cost caps' spend counters (tokens spent plus reserved);
 * - `x:<hash of member>`: the member asked to be forgotten today (a late charge then moves itself).
 */

import { createHash } from "node:crypto";
import { ANONYMOUS_MEMBER, addTo, num, type PeriodUsage } from "./usage-period.ts";

/** How long a day's record is kept (a month's view sums the month's days). */
export const DAY_RECORD_TTL_MS = 40 * 24 * 60 * 60 * 1000;

/** The key of a community's day record. */
export const dayKey = (community: string, day: string): string => `usage:${community}:${day}#d`;

/** Field names of a day record (see the file comment). */
export const dayFields = {
	tokens: (kind: "i" | "o" | "c", member: string, model: string) => `${kind}:${JSON.stringify([member, model])}`,
	name: (member: string) => `n:${member}`,
	spendAll: "$all",
	spendOf: (member: string) => `$m:${member}`,
	forgotten: (member: string) => `x:${createHash("sha256").update(member).digest("hex").slice(0, 32)}`,
};

/** A token field's kind, member and model, or undefined for any other field. */
function tokenField(field: string): { kind: "i" | "o" | "c"; member: string; model: string } | undefined {
	const kind = field[0];
	if ((kind !== "i" && kind !== "o" && kind !== "c") || field[1] !== ":") return undefined;
	try {
		const pair: unknown = JSON.parse(field.slice(2));
		if (Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string" && typeof pair[1] === "string")
			return { kind, member: pair[0], model: pair[1] };
	} catch {
		// Not ours: skipped.
	}
	return undefined;
}

/** A day record's usage per member and model (malformed fields count as nothing). */
export function usageOfDay(record: unknown): PeriodUsage {
	const out: PeriodUsage = {};
	if (typeof record !== "object" || record === null) return out;
	const fields = record as Record<string, unknown>;
	for (const [field, value] of Object.entries(fields)) {
		const t = tokenField(field);
		if (!t) continue;
		const n = num(value);
		addTo(out, t.member, t.model, {
			input: t.kind === "i" ? n : 0,
			output: t.kind === "o" ? n : 0,
			cached: t.kind === "c" ? n : 0,
		});
	}
	for (const [member, usage] of Object.entries(out)) {
		const name = fields[dayFields.name(member)];
		if (typeof name === "string" && member !== ANONYMOUS_MEMBER) usage.name = name;
	}
	return out;
}

/**
 * The change that moves `member`'s token fields in `record` (as read) to ANONYMOUS_MEMBER and
 * drops their name and spend counter: what forget-me writes.
 */
export function anonymising(
	record: Record<string, unknown>,
	member: string,
): { add: Record<string, number>; drop: string[] } {
	const add: Record<string, number> = {};
	for (const [field, value] of Object.entries(record)) {
		const t = tokenField(field);
		if (!t || t.member !== member || typeof value !== "number" || !Number.isFinite(value)) continue;
		add[field] = (add[field] ?? 0) - value;
		const to = dayFields.tokens(t.kind, ANONYMOUS_MEMBER, t.model);
		add[to] = (add[to] ?? 0) + value;
	}
	return { add, drop: [dayFields.name(member), dayFields.spendOf(member)] };
}
