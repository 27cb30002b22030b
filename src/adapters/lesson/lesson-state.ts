/**
 * What the controller remembers beside the engine, in the state store: each
 * lesson's intro (its ended update re-shows it), per-community lesson rules,
 * and each place's latest lesson (Slack's `/lesson end` runs in a channel, not
 * in the thread). Never a copy of engine state: who may answer, what is
 * pending, which map was shown, where a card was posted and which process
 * posts it are the tutor's. Values read back are checked, never cast.
 */

import { LRUCache } from "lru-cache";
import type { StateStore } from "../../agent/index.ts";
import { isLocale } from "../../i18n/index.ts";
import { DailyLessonCounter } from "./daily-counter.ts";
import { DEFAULT_LESSON_RULES, type LessonRules, normalizeLessonRules } from "./lesson-rules.ts";
import type { LessonIntro } from "./port.ts";

/** How long a lesson's intro and place index are kept (a lesson paused longer still answers). */
export const LESSON_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * How long a community's rules read from the store are used before they are read again (every click and
 * turn asks for them): a change made through another process sharing the store applies within it; this
 * process's own saves replace its copy at once.
 */
export const RULES_FRESH_MS = 5_000;

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
		this.rulesRead = new LRUCache({ max: 10_000, ttl: RULES_FRESH_MS });
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
