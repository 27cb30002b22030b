/**
 * The words of cost caps: the notice when a daily token budget is used up
 * (with when it resets, formatted with Intl), the caps in `/lesson config`,
 * and the `/lesson usage` report with estimated costs from the admin's prices.
 */

import {
	DEFAULT_LOCALE,
	formatDollars,
	formatDuration,
	formatUtcClock,
	type Locale,
	type MessageKey,
	t,
} from "../../i18n/index.ts";
import type { ModelPrice } from "./lesson-rules.ts";
import type { NoticeStyle } from "./notices.ts";
import { dayOf, type ModelTokens, memberTokens, monthOf, type PeriodUsage, plusTokens } from "./usage-period.ts";

/** "server" / "workspace" in `locale` (another word stays as it is). */
export function placeWord(place: string, locale: Locale = DEFAULT_LOCALE): string {
	return place === "server" || place === "workspace" ? t(locale, `place.${place}` as MessageKey) : place;
}

/** The next UTC midnight after `now` (when daily budgets reset). */
export function nextUtcMidnight(now: Date): Date {
	return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** "It resets at 00:00 UTC, in 3 hr 12 min." for `now` (the duration with Intl in `locale`). */
export function resetText(now: Date, locale: Locale = DEFAULT_LOCALE): string {
	const at = nextUtcMidnight(now);
	const minutes = Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 60_000));
	return t(locale, "budget.resets", { time: formatUtcClock(locale, at), left: formatDuration(locale, minutes) });
}

/**
 * Whose budget ran out: the community's (`place`: "server", "workspace") or one member's, by mention (a private
 * notice) or by `name` (the thread's notice: it goes out as the tutor's text, where no mention is kept).
 */
export type BudgetScope = { kind: "community"; place: string } | { kind: "member"; userId: string; name?: string };

/** The notice shown when a daily token budget is used up, in `locale`. */
export function budgetNotice(
	scope: BudgetScope,
	limit: number,
	now: Date,
	style: NoticeStyle,
	locale: Locale = DEFAULT_LOCALE,
): string {
	const mention = style.mention ?? ((id: string) => `<@${id}>`);
	const resets = resetText(now, locale);
	return scope.kind === "community"
		? t(locale, "budget.usedUpCommunity", { place: placeWord(scope.place, locale), tokens: limit, resets })
		: t(locale, "budget.usedUpMember", { member: scope.name ?? mention(scope.userId), tokens: limit, resets });
}

/** The caps lines of `/lesson config`. */
export function capsLines(
	rules: { serverTokensPerDay: number; memberTokensPerDay: number; prices: Record<string, ModelPrice> },
	place: string,
	locale: Locale = DEFAULT_LOCALE,
): string[] {
	const cap = (n: number) => (n > 0 ? t(locale, "budget.perDay", { tokens: n }) : t(locale, "budget.unlimited"));
	const prices = Object.entries(rules.prices).map(([model, p]) => `${model} $${p.input}/$${p.output}`);
	return [
		t(locale, "budget.capPlace", { place: placeWord(place, locale), cap: cap(rules.serverTokensPerDay) }),
		t(locale, "budget.capMember", { cap: cap(rules.memberTokensPerDay) }),
		t(locale, "budget.prices", { prices: prices.length > 0 ? prices.join(", ") : t(locale, "budget.noPrices") }),
	];
}

/** A model's estimated cost, or undefined without a price. */
function costOf(model: string, t: ModelTokens, prices: Record<string, ModelPrice>): number | undefined {
	const price = prices[model];
	return price ? (t.input * price.input + t.output * price.output) / 1_000_000 : undefined;
}

/** Members listed per period in `/lesson usage` (the largest first). */
export const USAGE_TOP_MEMBERS = 8;

/** One period's section of `/lesson usage`. */
function periodLines(
	title: string,
	period: PeriodUsage,
	prices: Record<string, ModelPrice>,
	style: NoticeStyle,
	locale: Locale,
): string[] {
	const mention = style.mention ?? ((id: string) => `<@${id}>`);
	// The sums per model over members, and over both.
	const models: Record<string, ModelTokens> = {};
	for (const member of Object.values(period))
		for (const [model, t] of Object.entries(member.models)) models[model] = plusTokens(models[model], t);
	const total = Object.values(models).reduce(plusTokens, { input: 0, output: 0, cached: 0 });
	const costs = Object.entries(models).map(([model, t]) => costOf(model, t, prices));
	const known = costs.filter((c): c is number => c !== undefined);
	const cost =
		known.length === 0
			? t(locale, "usage.noPrice")
			: `${t(locale, "usage.cost", {
					cost: formatDollars(
						locale,
						known.reduce((a, b) => a + b, 0),
					),
				})}${known.length < costs.length ? t(locale, "usage.someUnpriced") : ""}`;
	const lines = [
		t(locale, "usage.period", { title, input: total.input, cached: total.cached, output: total.output, cost }),
	];
	for (const [model, used] of Object.entries(models)) {
		const c = costOf(model, used, prices);
		const priced = c !== undefined ? ` · ${t(locale, "usage.cost", { cost: formatDollars(locale, c) })}` : "";
		lines.push(`  • ${t(locale, "usage.model", { model, input: used.input, output: used.output })}${priced}`);
	}
	const members = Object.entries(period).sort(([, a], [, b]) => memberTokens(b) - memberTokens(a));
	// The top members only: a reply must fit one message (Discord 2,000 characters) on a large server.
	for (const [id, member] of members.slice(0, USAGE_TOP_MEMBERS))
		lines.push(`  • ${t(locale, "usage.member", { member: mention(id), tokens: memberTokens(member) })}`);
	if (members.length > USAGE_TOP_MEMBERS)
		lines.push(`  • ${t(locale, "usage.moreMembers", { count: members.length - USAGE_TOP_MEMBERS })}`);
	return lines;
}

/** `/lesson usage`: today's and this month's tokens per model and member, with estimated costs. */
export function usageText(
	report: { day: PeriodUsage; month: PeriodUsage; prices: Record<string, ModelPrice>; now: Date },
	style: NoticeStyle,
	locale: Locale = DEFAULT_LOCALE,
): string {
	const bold = style.bold ?? ((text: string) => `**${text}**`);
	return [
		bold(t(locale, "usage.title")),
		...periodLines(t(locale, "usage.today", { day: dayOf(report.now) }), report.day, report.prices, style, locale),
		...periodLines(
			t(locale, "usage.month", { month: monthOf(report.now) }),
			report.month,
			report.prices,
			style,
			locale,
		),
		t(locale, "usage.note"),
	].join("\n");
}
