/**
 * The words of cost caps: the notice when a daily token budget is used up
 * (with when it resets, formatted with Intl), the caps in `/lesson config`,
 * and the `/lesson usage` report with estimated costs from the admin's prices.
 */

import type { ModelPrice } from "./lesson-rules.ts";
import type { NoticeStyle } from "./notices.ts";
import { type MemberUsage, type ModelTokens, memberTokens, type PeriodUsage } from "./usage-ledger.ts";

const numbers = new Intl.NumberFormat("en-US");
const dollars = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 4 });
const clock = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });

/** A token count for people: `50,000`. */
export const tokens = (n: number): string => numbers.format(n);

/** The next UTC midnight after `now` (when daily budgets reset). */
export function nextUtcMidnight(now: Date): Date {
	return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** "It resets at 00:00 UTC, in 3 h 12 min." for `now`. */
export function resetText(now: Date): string {
	const at = nextUtcMidnight(now);
	const minutes = Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 60_000));
	const h = Math.floor(minutes / 60);
	const m = minutes % 60;
	const left = h > 0 ? `${h} h${m > 0 ? ` ${m} min` : ""}` : `${m} min`;
	return `It resets at ${clock.format(at)} UTC, in ${left}.`;
}

/** Whose budget ran out: the community's (`place`: "server", "workspace") or one member's. */
export type BudgetScope = { kind: "community"; place: string } | { kind: "member"; userId: string };

/** The notice shown when a daily token budget is used up. */
export function budgetNotice(scope: BudgetScope, limit: number, now: Date, style: NoticeStyle): string {
	const mention = style.mention ?? ((id: string) => `<@${id}>`);
	const whose = scope.kind === "community" ? `for this ${scope.place}` : `of ${mention(scope.userId)}`;
	return `Today's tutor budget ${whose} is used up (${tokens(limit)} tokens). ${resetText(now)}`;
}

/** The caps lines of `/lesson config`. */
export function capsLines(
	rules: { serverTokensPerDay: number; memberTokensPerDay: number; prices: Record<string, ModelPrice> },
	place: string,
): string[] {
	const cap = (n: number) => (n > 0 ? `${tokens(n)} tokens per day` : "unlimited");
	const prices = Object.entries(rules.prices).map(([model, p]) => `${model} $${p.input}/$${p.output}`);
	return [
		`• Tokens per ${place}: ${cap(rules.serverTokensPerDay)}`,
		`• Tokens per member: ${cap(rules.memberTokensPerDay)}`,
		`• Prices (per million input/output tokens): ${prices.length > 0 ? prices.join(", ") : "none set"}`,
	];
}

/** A model's estimated cost, or undefined without a price. */
function costOf(model: string, t: ModelTokens, prices: Record<string, ModelPrice>): number | undefined {
	const price = prices[model];
	return price ? (t.input * price.input + t.output * price.output) / 1_000_000 : undefined;
}

/** Members listed per period in `/lesson usage` (the largest first). */
export const USAGE_TOP_MEMBERS = 8;

/** The sum of tokens per model over members. */
function perModel(period: PeriodUsage): Record<string, ModelTokens> {
	const out: Record<string, ModelTokens> = {};
	for (const member of Object.values(period))
		for (const [model, t] of Object.entries(member.models)) {
			const sum = out[model] ?? { input: 0, output: 0, cached: 0 };
			out[model] = { input: sum.input + t.input, output: sum.output + t.output, cached: sum.cached + t.cached };
		}
	return out;
}

/** One period's section of `/lesson usage`. */
function periodLines(
	title: string,
	period: PeriodUsage,
	prices: Record<string, ModelPrice>,
	style: NoticeStyle,
): string[] {
	const mention = style.mention ?? ((id: string) => `<@${id}>`);
	const models = perModel(period);
	const total = Object.values(models).reduce(
		(s, t) => ({ input: s.input + t.input, output: s.output + t.output, cached: s.cached + t.cached }),
		{ input: 0, output: 0, cached: 0 },
	);
	const costs = Object.entries(models).map(([model, t]) => costOf(model, t, prices));
	const known = costs.filter((c): c is number => c !== undefined);
	const cost =
		known.length === 0
			? "no price set"
			: `≈ ${dollars.format(known.reduce((a, b) => a + b, 0))}${known.length < costs.length ? " (models without a price not counted)" : ""}`;
	const lines = [
		`${title}: ${tokens(total.input)} input (${tokens(total.cached)} cached) + ${tokens(total.output)} output tokens · ${cost}`,
	];
	for (const [model, t] of Object.entries(models)) {
		const c = costOf(model, t, prices);
		lines.push(
			`  • ${model}: ${tokens(t.input)} in, ${tokens(t.output)} out${c !== undefined ? ` · ≈ ${dollars.format(c)}` : ""}`,
		);
	}
	const members = Object.entries(period).sort(([, a], [, b]) => memberTokens(b) - memberTokens(a));
	// The top members only: a reply must fit one message (Discord 2,000 characters) on a large server.
	for (const [id, member] of members.slice(0, USAGE_TOP_MEMBERS))
		lines.push(`  • ${mention(id)}: ${tokens(memberTokens(member as MemberUsage))} tokens`);
	if (members.length > USAGE_TOP_MEMBERS) lines.push(`  • and ${members.length - USAGE_TOP_MEMBERS} more members`);
	return lines;
}

/** `/lesson usage`: today's and this month's tokens per model and member, with estimated costs. */
export function usageText(
	report: { day: PeriodUsage; month: PeriodUsage; prices: Record<string, ModelPrice>; now: Date },
	style: NoticeStyle,
): string {
	const bold = style.bold ?? ((t: string) => `**${t}**`);
	const { day, month } = (() => {
		const iso = report.now.toISOString();
		return { day: iso.slice(0, 10), month: iso.slice(0, 7) };
	})();
	return [
		bold("Tutor usage"),
		...periodLines(`Today (${day}, UTC)`, report.day, report.prices, style),
		...periodLines(`This month (${month})`, report.month, report.prices, style),
		"Costs are estimates from the prices set with `/lesson config` (providers change prices; check yours).",
	].join("\n");
}
