/**
 * What the controller remembers beside the engine, in the state store: on
 * stores several processes share, the claims to post question cards; each
 * lesson's intro (its ended update re-shows it), per-community lesson rules,
 * and each place's latest lesson (Slack's `/lesson end` runs in a channel, not
 * in the thread). Never a copy of engine state: who may answer, what is
 * pending, which map was shown and where a card was posted are asked of the
 * tutor. Values read back are checked, never cast.
 */

import { randomUUID } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { StateStore } from "../../agent/index.ts";
import { isLocale } from "../../i18n/index.ts";
import { DailyLessonCounter } from "./daily-counter.ts";
import { DEFAULT_LESSON_RULES, type LessonRules, normalizeLessonRules } from "./lesson-rules.ts";
import type { LessonIntro } from "./port.ts";

/** How long a lesson's intro and place index are kept (a lesson paused longer still answers). */
export const LESSON_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** How long the claim to post a question's card is kept (longer than any pause a takeover bridges). */
export const POST_CLAIM_MS = 10 * 60 * 1000;
/** A re-post takes over a claim this old whose card never appeared (a post takes seconds at most). */
export const STALE_POST_CLAIM_MS = 20_000;

/** A claim to post a question's card: this process's (its token), or another's (and how old it is). */
export type PostClaim = { mine: true; token: string; tookOverFrom?: number } | { mine: false; ageMs: number };

/**
 * How long a community's rules read from a store other processes share are used before they are read
 * again (every click and turn asks for them): a change made through another process applies within it.
 * On a store of this process alone, its own saves keep the copy current.
 */
export const RULES_FRESH_MS = 5_000;

const postKey = (threadId: string, toolCallId: string) => `posting:${threadId}:${toolCallId}`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isParticipant = (v: unknown): boolean => isObject(v) && typeof v.id === "string";

/** Typed access to the controller's keys. Every method may reject when the store fails. */
export class LessonState {
	/** Lessons started per member per UTC day (keys `count:<community>:<user>:<day>`). */
	readonly counter: DailyLessonCounter;
	readonly ruleDefaults: LessonRules;
	/** Rules read lately, per community (see RULES_FRESH_MS). */
	private readonly rulesRead: LRUCache<string, LessonRules>;
	/** Rules saves in this process so far: a read that a save overtook is not kept (it may hold the old rules). */
	private rulesSaves = 0;

	constructor(
		readonly store: StateStore,
		ruleDefaults: Partial<LessonRules> = {},
	) {
		this.counter = new DailyLessonCounter(store);
		this.ruleDefaults = normalizeLessonRules({ ...DEFAULT_LESSON_RULES, ...ruleDefaults });
		this.rulesRead = new LRUCache({ max: 10_000, ...(store.shared === true ? { ttl: RULES_FRESH_MS } : {}) });
	}

	/**
	 * Claim the posting of a question's card (atomic in the store, kept `POST_CLAIM_MS`): one process posts
	 * it, whether it is the one whose turn asked it or one that took the lesson over and re-posts it.
	 * `staleAfterMs` (re-posts only) takes over a claim that old whose card never appeared: its poster died
	 * or was paused posting (one process takes a given stale claim over; `tookOverFrom` says when it was made,
	 * so the new poster can look whether its card reached the thread after all).
	 */
	async claimPost(threadId: string, toolCallId: string, options: { staleAfterMs?: number } = {}): Promise<PostClaim> {
		const key = postKey(threadId, toolCallId);
		const now = Date.now();
		const token = randomUUID();
		if (await this.store.setIfAbsent(key, { at: now, by: token }, POST_CLAIM_MS)) return { mine: true, token };
		const claim = await this.store.get(key);
		const at = isObject(claim) && typeof claim.at === "number" ? claim.at : 0;
		const ageMs = Math.max(0, now - at);
		if (options.staleAfterMs === undefined || ageMs < options.staleAfterMs) return { mine: false, ageMs };
		// Two re-posters of one stale claim (a restart and a takeover): the first to mark it takes it over.
		const by = isObject(claim) && typeof claim.by === "string" ? claim.by : String(at);
		if (!(await this.store.setIfAbsent(`${key}:over:${by}`, { at: now }, POST_CLAIM_MS)))
			return { mine: false, ageMs: 0 };
		await this.store.set(key, { at: now, by: token }, POST_CLAIM_MS);
		return { mine: true, token, tookOverFrom: at };
	}

	/**
	 * Whether the claim `token` took is still the card's: false once a re-poster took it over (this process
	 * was paused past the stale bound), so a poster that wakes up does not post the card a second time.
	 */
	async holdsPost(threadId: string, toolCallId: string, token: string): Promise<boolean> {
		const claim = await this.store.get(postKey(threadId, toolCallId));
		return isObject(claim) && claim.by === token;
	}

	/** A lesson's intro, if this controller started it. */
	async intro(threadId: string): Promise<LessonIntro | undefined> {
		const v = await this.store.get(`intro:${threadId}`);
		if (!isObject(v) || typeof v.topic !== "string" || !isParticipant(v.learner) || !isParticipant(v.startedBy))
			return undefined;
		if (v.mode !== "solo" && v.mode !== "group") return undefined;
		// A language this version does not know is dropped (English), never passed on; the place is placeOf's.
		const { language, place: _place, ...rest } = v as unknown as LessonIntro & { place?: unknown };
		return { ...rest, ...(isLocale(language) ? { language } : {}) };
	}

	/** Where a lesson this controller started opened (its community and channel); undefined for older lessons. */
	async placeOf(threadId: string): Promise<{ community: string; channelId: string } | undefined> {
		const v = await this.store.get(`intro:${threadId}`);
		const place = isObject(v) ? v.place : undefined;
		if (!isObject(place) || typeof place.community !== "string" || typeof place.channelId !== "string")
			return undefined;
		return { community: place.community, channelId: place.channelId };
	}

	/** Remember a started lesson: its intro, and as its learner's and its channel's latest. */
	async saveLesson(
		threadId: string,
		place: { community: string; channelId: string },
		intro: LessonIntro,
	): Promise<void> {
		const where = `${place.community}:${place.channelId}`;
		const { community, channelId } = place;
		await this.store.set(`intro:${threadId}`, { ...intro, place: { community, channelId } }, LESSON_TTL_MS);
		await this.store.set(`latest:${where}:${intro.learner.id}`, threadId, LESSON_TTL_MS);
		await this.store.set(`latest:${where}`, threadId, LESSON_TTL_MS);
	}

	/** The latest lesson of `userId` in a channel, or (userId undefined) the channel's latest. */
	async latest(community: string, channelId: string, userId?: string): Promise<string | undefined> {
		const v = await this.store.get(`latest:${community}:${channelId}${userId ? `:${userId}` : ""}`);
		return typeof v === "string" ? v : undefined;
	}

	/** A community's lesson rules (the defaults when none are stored, or they are corrupt). */
	async rules(community: string): Promise<LessonRules> {
		const known = this.rulesRead.get(community);
		if (known) return known;
		const saves = this.rulesSaves;
		const rules = normalizeLessonRules(await this.store.get(`rules:${community}`), this.ruleDefaults);
		if (saves === this.rulesSaves) this.rulesRead.set(community, rules);
		return rules;
	}

	/** Store a community's lesson rules. */
	async saveRules(community: string, rules: LessonRules): Promise<void> {
		const normal = normalizeLessonRules(rules, this.ruleDefaults);
		// Counted before and after the write: a read that overlaps it in any way is not kept.
		this.rulesSaves++;
		this.rulesRead.delete(community);
		try {
			await this.store.set(`rules:${community}`, normal);
		} finally {
			this.rulesSaves++;
		}
		this.rulesRead.set(community, normal);
	}
}
