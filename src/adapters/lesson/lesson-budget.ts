/**
 * A platform's cost caps: the TurnBudget hook the engine consults before and
 * after every model request (through a BudgetRouter, one tutor serving several
 * platforms), backed by the community's rules, the daily spend counters and
 * the usage ledger. The community is read from the thread id by the
 * one `communityOf` (core/contracts/thread-id.ts).
 */

import { LRUCache } from "lru-cache";
import type { BudgetVerdict, TurnBudget } from "../../core/contracts/budget.ts";
import type { Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { communityOf, platformOf } from "../../core/contracts/thread-id.ts";
import { DEFAULT_LOCALE, type Locale } from "../../i18n/index.ts";
import { budgetNotice, nextUtcMidnight } from "./budget-texts.ts";
import type { LessonState } from "./lesson-state.ts";
import type { NoticeStyle } from "./notices.ts";
import { type AheadRequest, aheadTokens } from "./spend-counters.ts";
import type { UsageLedger } from "./usage-ledger.ts";

/** Routes the tutor's one budget hook to the platform whose thread id prefix a session has. */
export interface BudgetRouter {
	/** The hook to pass to createTutor. */
	readonly budget: TurnBudget;
	/** Let `budget` decide for sessions `<platform>:…`; returns the detach function. */
	attach(platform: string, budget: TurnBudget): () => void;
}

/** A router with no platform attached (every request is sent, nothing is counted). */
export function createBudgetRouter(): BudgetRouter {
	const byPlatform = new Map<string, TurnBudget>();
	const of = (sessionId: string) => byPlatform.get(platformOf(sessionId));
	return {
		budget: {
			reserve: (estimate) => of(estimate.sessionId)?.reserve(estimate) ?? { ok: true },
			spent: (usage, reservation) => of(usage.sessionId)?.spent(usage, reservation),
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

/** The refusal of `who` in a thread by the cap `over`, worded in the lesson's language. */
async function refusal(
	o: LessonBudgetOptions,
	threadId: string,
	who: Participant,
	over: "community" | "member",
	rules: { serverTokensPerDay: number; memberTokensPerDay: number },
	now: Date,
	inThread = false,
): Promise<{ ok: false; message: string; resetsAt: string }> {
	const locale = await (o.localeOf?.(threadId) ?? Promise.resolve(DEFAULT_LOCALE)).catch(() => DEFAULT_LOCALE);
	const message =
		over === "community"
			? budgetNotice({ kind: "community", place: o.place }, rules.serverTokensPerDay, now, o.style, locale)
			: budgetNotice(
					{ kind: "member", userId: who.id, ...(inThread ? { name: who.name } : {}) },
					rules.memberTokensPerDay,
					now,
					o.style,
					locale,
				);
	return { ok: false, message, resetsAt: nextUtcMidnight(now).toISOString() };
}

/**
 * Is a cap of `who` in a thread used up now (the community's first, then the member's)? Reads the
 * community's rules (cached) and the day's spend counters as this process last wrote or read them
 * (under a minute ago: no store call; else one read), whatever the number of members. A request may
 * still be refused below the cap when its input does not fit what is left. Rejects when the store fails.
 */
export async function budgetVerdict(
	o: LessonBudgetOptions,
	threadId: string,
	who: Participant,
): Promise<BudgetVerdict> {
	const community = communityOf(threadId);
	const rules = await o.state.rules(community);
	if (rules.serverTokensPerDay === 0 && rules.memberTokensPerDay === 0) return { ok: true };
	const now = o.now();
	const today = await o.ledger.spend.recent(community, who.id, now);
	if (rules.serverTokensPerDay > 0 && today.community >= rules.serverTokensPerDay)
		return refusal(o, threadId, who, "community", rules, now);
	if (rules.memberTokensPerDay > 0 && today.member >= rules.memberTokensPerDay)
		return refusal(o, threadId, who, "member", rules, now);
	return { ok: true };
}

/** The agents whose requests a turn makes one after another (a reservation ahead waits for the next). */
const TURN_AGENTS = new Set(["prober", "teacher"]);

/**
 * The TurnBudget of one platform: each request reserves its estimate on the day's spend counters (one
 * write; refused when its input does not fit under a cap: see spend-counters.ts), and its usage goes to
 * the ledger, settling the reservation (one write) and, after a turn step, reserving ahead for the
 * session's next request (which then needs no write). Never throws: a store failure lets the request go (logged).
 */
export function createLessonBudget(o: LessonBudgetOptions): TurnBudget {
	/**
	 * Each session's last request: its estimate (input + maximum output) and maximum output. The least recently
	 * used go first past 5,000 sessions (a session forgotten here only reserves nothing ahead for its next request).
	 */
	const lastRequest = new LRUCache<string, { tokens: number; output: number }>({ max: 5_000 });
	return {
		async reserve(estimate) {
			try {
				const community = communityOf(estimate.sessionId);
				const rules = await o.state.rules(community);
				// Reserved with caps or without (the same one write: a cap set later today counts it, and a click
				// costs the same store calls either way).
				const input = Math.max(0, Math.ceil(estimate.inputTokens));
				const output = Math.max(0, Math.ceil(estimate.outputTokens));
				const now = o.now();
				const caps = { community: rules.serverTokensPerDay, member: rules.memberTokensPerDay };
				const held = await o.ledger.spend.reserve(
					community,
					estimate.by.id,
					input + output,
					output,
					caps,
					now,
					estimate.sessionId,
				);
				// Said in the thread, as the tutor's text (where Slack keeps no mention): the member by name.
				if (!held.ok) return await refusal(o, estimate.sessionId, estimate.by, held.over, rules, now, true);
				lastRequest.set(estimate.sessionId, { tokens: input + output, output });
				return { ok: true, reservation: { tokens: held.tokens, where: held.day } };
			} catch (error) {
				o.logger.warn(
					{ err: error, sessionId: estimate.sessionId },
					"budget reservation failed (store); the request goes",
				);
				return { ok: true };
			}
		},
		async spent(usage, reservation) {
			try {
				const community = communityOf(usage.sessionId);
				const last = lastRequest.get(usage.sessionId);
				let ahead: AheadRequest | undefined;
				if (last && reservation && TURN_AGENTS.has(usage.agent) && usage.outputTokens > 0) {
					const rules = await o.state.rules(community);
					const caps = { community: rules.serverTokensPerDay, member: rules.memberTokensPerDay };
					const tokens = aheadTokens(last.tokens, usage.outputTokens);
					ahead = { sessionId: usage.sessionId, tokens, allowance: last.output, caps };
				}
				await o.ledger.charge(community, usage, o.now(), reservation, ahead);
			} catch (error) {
				o.logger.warn({ err: error, sessionId: usage.sessionId }, "recording usage failed (store)");
			}
		},
	};
}
