/**
 * A platform's cost caps: the TurnBudget hook the engine consults (through a
 * BudgetRouter, one tutor serving several platforms), backed by the
 * community's rules and the usage ledger. The community is the thread id's
 * second part (`discord:<guild>:…`, `slack:<team>:…`: see port.ts).
 */

import type { BudgetVerdict, TurnBudget } from "../../core/contracts/budget.ts";
import type { Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { DEFAULT_LOCALE, type Locale } from "../../core/i18n/index.ts";
import { budgetNotice, nextUtcMidnight } from "./budget-texts.ts";
import type { LessonState } from "./lesson-state.ts";
import type { NoticeStyle } from "./notices.ts";
import { memberTokens, periodTokens, type UsageLedger } from "./usage-ledger.ts";

/** The community a thread id belongs to (its second part). */
export const communityOf = (threadId: string): string => threadId.split(":")[1] ?? "";

/** Routes the tutor's one budget hook to the platform whose thread id prefix a session has. */
export interface BudgetRouter {
	/** The hook to pass to createTutor. */
	readonly budget: TurnBudget;
	/** Let `budget` decide for sessions `<platform>:…`; returns the detach function. */
	attach(platform: string, budget: TurnBudget): () => void;
}

/** A router with no platform attached (every turn runs, nothing is counted). */
export function createBudgetRouter(): BudgetRouter {
	const byPlatform = new Map<string, TurnBudget>();
	const of = (sessionId: string) => byPlatform.get(sessionId.split(":")[0] ?? "");
	return {
		budget: {
			beforeTurn: (sessionId, who) => of(sessionId)?.beforeTurn(sessionId, who) ?? { ok: true },
			spent: (usage) => of(usage.sessionId)?.spent(usage),
		},
		attach(platform, budget) {
			byPlatform.set(platform, budget);
			return () => {
				if (byPlatform.get(platform) === budget) byPlatform.delete(platform);
			};
		},
	};
}

/** What a platform's budget hook reads and writes. */
export interface LessonBudgetOptions {
	state: LessonState;
	ledger: UsageLedger;
	style: NoticeStyle;
	/** "server" (Discord) or "workspace" (Slack), for the notice. */
	place: string;
	logger: Logger;
	now: () => Date;
	/** The language of a lesson, for its notice (default English). Must not throw. */
	localeOf?: (threadId: string) => Promise<Locale>;
}

/** The verdict for `who` in a thread now: the community's cap first, then the member's. Rejects when the store fails. */
export async function budgetVerdict(
	o: LessonBudgetOptions,
	threadId: string,
	who: Participant,
): Promise<BudgetVerdict> {
	const community = communityOf(threadId);
	const rules = await o.state.rules(community);
	if (rules.serverTokensPerDay === 0 && rules.memberTokensPerDay === 0) return { ok: true };
	const now = o.now();
	const day = await o.ledger.day(community, now);
	const resetsAt = nextUtcMidnight(now).toISOString();
	const over =
		(rules.serverTokensPerDay > 0 && periodTokens(day) >= rules.serverTokensPerDay) ||
		(rules.memberTokensPerDay > 0 && memberTokens(day[who.id]) >= rules.memberTokensPerDay);
	const locale = over
		? await (o.localeOf?.(threadId) ?? Promise.resolve(DEFAULT_LOCALE)).catch(() => DEFAULT_LOCALE)
		: DEFAULT_LOCALE;
	if (rules.serverTokensPerDay > 0 && periodTokens(day) >= rules.serverTokensPerDay)
		return {
			ok: false,
			resetsAt,
			message: budgetNotice({ kind: "community", place: o.place }, rules.serverTokensPerDay, now, o.style, locale),
		};
	if (rules.memberTokensPerDay > 0 && memberTokens(day[who.id]) >= rules.memberTokensPerDay)
		return {
			ok: false,
			resetsAt,
			message: budgetNotice({ kind: "member", userId: who.id }, rules.memberTokensPerDay, now, o.style, locale),
		};
	return { ok: true };
}

/** The TurnBudget of one platform. Never throws: a store failure lets the turn run (logged). */
export function createLessonBudget(o: LessonBudgetOptions): TurnBudget {
	return {
		async beforeTurn(sessionId, who) {
			try {
				return await budgetVerdict(o, sessionId, who);
			} catch (error) {
				o.logger.warn({ err: error, sessionId }, "budget check failed (store); the turn runs");
				return { ok: true };
			}
		},
		async spent(usage) {
			try {
				await o.ledger.charge(communityOf(usage.sessionId), usage, o.now());
			} catch (error) {
				o.logger.warn({ err: error, sessionId: usage.sessionId }, "recording usage failed (store)");
			}
		},
	};
}
