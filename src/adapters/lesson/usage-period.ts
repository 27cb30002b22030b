/**
 * The shape of token usage per period (a UTC day or month) as `/lesson usage` and the report
 * read it, and the pure sums over it: what the usage ledger returns, whatever format its
 * records were written in.
 */

/** The member id forgotten members' tokens are kept under (no name). */
export const ANONYMOUS_MEMBER = "anonymous";

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

/** A stored count: a finite number at least 0, anything else 0. */
export const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

/** The sum of two token counts (`a` missing: `b`). */
export const plusTokens = (a: ModelTokens | undefined, b: ModelTokens): ModelTokens => ({
	input: (a?.input ?? 0) + b.input,
	output: (a?.output ?? 0) + b.output,
	cached: (a?.cached ?? 0) + b.cached,
});

/** Add `t` to `member`'s tokens of `model` in `period`. */
export function addTo(period: PeriodUsage, member: string, model: string, t: ModelTokens): void {
	const usage = period[member] ?? { models: {} };
	usage.models[model] = plusTokens(usage.models[model], t);
	period[member] = usage;
}

/** `from`'s usage added into `into` (names: `into`'s kept, else `from`'s). */
export function addPeriod(into: PeriodUsage, from: PeriodUsage): PeriodUsage {
	for (const [member, usage] of Object.entries(from)) {
		for (const [model, t] of Object.entries(usage.models)) addTo(into, member, model, t);
		const target = into[member] ?? { models: {} };
		if (target.name === undefined && usage.name !== undefined) target.name = usage.name;
		into[member] = target;
	}
	return into;
}

/** Tokens that count against a budget (input + output) in a member's usage. */
export function memberTokens(member: MemberUsage | undefined): number {
	return Object.values(member?.models ?? {}).reduce((sum, t) => sum + t.input + t.output, 0);
}

/** Tokens that count against a budget in a whole period. */
export function periodTokens(period: PeriodUsage): number {
	return Object.values(period).reduce((sum, m) => sum + memberTokens(m), 0);
}

/** The UTC day (`YYYY-MM-DD`) of a time: what daily caps, lesson counts and day records go by. */
export const dayOf = (now: Date): string => now.toISOString().slice(0, 10);

/** The UTC month (`YYYY-MM`) of a time. */
export const monthOf = (now: Date): string => now.toISOString().slice(0, 7);
