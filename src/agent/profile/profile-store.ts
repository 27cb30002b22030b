/**
 * The learner profile on the state store (same backend as the sessions, its
 * own namespace). Keys (declared in store/keys.ts):
 *
 *   profile:<learner>    lessons taken (facts without seeds), reviews done, reminder setting
 *   review-items:<learner>  the review items with their FSRS cards, scored by due time (an index: store/scored-items.ts)
 *   reviews:<learner>    earlier versions' list of them: moved to the index on first touch, then deleted
 *   members:<community>  the learner keys with a lesson there (the admin report reads their profiles in one read)
 *   communities          the communities with members
 *   reminders            the learner keys that turned reminders on
 *   reminded:<learner>:<day>  the once-a-day guard of a reminder (setIfAbsent, TTL 2 days)
 *
 * Values read back are checked field by field; a corrupt entry is dropped, never cast.
 */

import type { Participant } from "../../core/contracts/events.ts";
import { stateKeys } from "../store/keys.ts";
import type { ScoredItem, ScoredItems } from "../store/scored-items.ts";
import type { StateStore } from "../store/state-store.ts";
import type { LessonFacts, NodeFact, ReviewSeed } from "./lesson-facts.ts";
import { parseCard, type StoredCard } from "./schedule.ts";

/** A lesson as the profile keeps it; `joined`: a group lesson someone else started (forget-me leaves it to them). */
export type ProfileLesson = Omit<LessonFacts, "seeds"> & { reviews: number; place?: string; joined?: true };

/** Where and whether a learner is reminded of due reviews. */
export interface ReminderSetting {
	on: boolean;
	/** The platform's address for the nudge (a thread id or a DM target), set by the adapter. */
	where?: string;
}

/** A learner's profile. */
export interface LearnerProfile {
	format: 1;
	key: string;
	learner: Participant;
	lessons: ProfileLesson[];
	reviewsDone: number;
	reminders?: ReminderSetting;
	/** Places (`<community>:<channel>`) the learner started lessons in: what forget-me clears there. */
	places?: string[];
	/** Lessons started, ended or not (forget-me deletes every one). */
	sessionIds?: string[];
	/** Review threads opened for the learner (the adapters' state of each is deleted by forget-me). */
	reviewThreads?: string[];
}

/** One review item: a check question of a node (its lesson's ReviewSeed, less the mastery), scheduled by FSRS. */
export interface ReviewItem extends Omit<ReviewSeed, "mastery"> {
	id: string;
	sessionId: string;
	topic: string;
	card: StoredCard;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const str = (v: unknown): v is string => typeof v === "string";
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every(str) ? (v as string[]) : undefined);
const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

function parseNode(v: unknown): NodeFact | undefined {
	if (!isObject(v) || !str(v.id) || !str(v.label)) return undefined;
	const m = v.mastery === "learned" || v.mastery === "shaky" ? v.mastery : "not-yet";
	return { id: v.id, label: v.label, mastery: m };
}

function parseLesson(v: unknown): ProfileLesson | undefined {
	if (!isObject(v) || !str(v.sessionId) || !str(v.topic) || !str(v.startedAt)) return undefined;
	const outcome =
		v.outcome === "completed" || v.outcome === "ended-by-user" || v.outcome === "ended-by-admin" ? v.outcome : "open";
	return {
		sessionId: v.sessionId,
		topic: v.topic,
		community: str(v.community) ? v.community : "",
		startedAt: v.startedAt,
		...(str(v.endedAt) ? { endedAt: v.endedAt } : {}),
		outcome,
		questionsAnswered: count(v.questionsAnswered),
		firstTryCorrect: count(v.firstTryCorrect),
		nodes: Array.isArray(v.nodes) ? v.nodes.map(parseNode).filter((n): n is NodeFact => n !== undefined) : [],
		misconceptions: strings(v.misconceptions) ?? [],
		reviews: count(v.reviews),
		...(str(v.place) ? { place: v.place } : {}),
		...(v.joined === true ? { joined: true as const } : {}),
	};
}

/** A stored profile read back; undefined when absent or not a profile. */
export function parseProfile(v: unknown): LearnerProfile | undefined {
	if (!isObject(v) || v.format !== 1 || !str(v.key) || !isObject(v.learner) || !str(v.learner.id)) return undefined;
	const reminders = isObject(v.reminders)
		? { on: v.reminders.on === true, ...(str(v.reminders.where) ? { where: v.reminders.where } : {}) }
		: undefined;
	return {
		format: 1,
		key: v.key,
		learner: { id: v.learner.id, ...(str(v.learner.name) ? { name: v.learner.name } : {}) },
		lessons: Array.isArray(v.lessons)
			? v.lessons.map(parseLesson).filter((l): l is ProfileLesson => l !== undefined)
			: [],
		reviewsDone: count(v.reviewsDone),
		...(reminders ? { reminders } : {}),
		...(strings(v.places) ? { places: strings(v.places) } : {}),
		...(strings(v.sessionIds) ? { sessionIds: strings(v.sessionIds) } : {}),
		...(strings(v.reviewThreads) ? { reviewThreads: strings(v.reviewThreads) } : {}),
	};
}

function parseItem(v: unknown): ReviewItem | undefined {
	if (!isObject(v) || !str(v.id) || !str(v.sessionId) || !str(v.topic) || !str(v.nodeId)) return undefined;
	if (!str(v.label) || !str(v.question) || !str(v.correctAnswer)) return undefined;
	const card = parseCard(v.card);
	if (!card) return undefined;
	const options = strings(v.options);
	const accepted = strings(v.acceptedAnswers);
	return {
		id: v.id,
		sessionId: v.sessionId,
		topic: v.topic,
		nodeId: v.nodeId,
		label: v.label,
		question: v.question,
		correctAnswer: v.correctAnswer,
		...(options ? { options } : {}),
		...(accepted ? { acceptedAnswers: accepted } : {}),
		...(str(v.explanation) ? { explanation: v.explanation } : {}),
		card,
	};
}

/** A learner's due items, as the index selected them. */
export interface DueItems {
	items: ReviewItem[];
	/** Items due in all. */
	count: number;
	/** When the next not-yet-due item falls due (ms). */
	next?: number;
	total: number;
}

/** Learners whose items this process moved from the old list layout (bounded: a restart moves none twice either). */
const MIGRATED_KEPT = 50_000;

/**
 * Typed access to the profile keys and the review items. Every method may reject when the store fails.
 * Review items are scored items (store/scored-items.ts), scored by due time: a due selection reads
 * only what it returns, a grade writes one item. A learner's items stored by earlier versions as one
 * list (`reviews:<learner>`) are moved to the index on the first touch of that learner, then the
 * list is deleted; the move adds only items the index lacks, so two processes moving at once, or
 * one moving after the other graded, lose nothing.
 */
export class ProfileStore {
	private readonly migrated = new Map<string, Promise<void>>();

	constructor(
		readonly store: StateStore,
		private readonly index: ScoredItems,
	) {}

	async profile(key: string): Promise<LearnerProfile | undefined> {
		return parseProfile(await this.store.get(stateKeys.profile(key)));
	}

	saveProfile(profile: LearnerProfile): Promise<void> {
		return this.store.set(stateKeys.profile(profile.key), profile);
	}

	/** The profiles of `keys` in one read (absent or corrupt ones are left out), in order. */
	async profiles(keys: readonly string[]): Promise<LearnerProfile[]> {
		if (keys.length === 0) return [];
		const values = await this.index.getMany(keys.map((k) => stateKeys.profile(k)));
		return values.map(parseProfile).filter((p): p is LearnerProfile => p !== undefined);
	}

	/** Every review item of a learner, soonest due first. */
	async items(key: string): Promise<ReviewItem[]> {
		await this.migrate(key);
		return itemsOf(await this.index.all(stateKeys.reviewItems(key)));
	}

	/** Up to `limit` items due at `at` (ms), most overdue first, with the count and the next due time. */
	async due(key: string, at: number, limit: number): Promise<DueItems> {
		await this.migrate(key);
		const found = await this.index.lowest(stateKeys.reviewItems(key), at, limit);
		return {
			items: itemsOf(found.items),
			count: found.count,
			total: found.total,
			...(found.next !== undefined ? { next: found.next } : {}),
		};
	}

	/** One item by id. */
	async item(key: string, id: string): Promise<ReviewItem | undefined> {
		await this.migrate(key);
		const found = await this.index.get(stateKeys.reviewItems(key), id);
		return found ? parseItem(found.value) : undefined;
	}

	/** Store one item (replacing the one with its id). */
	async saveItem(key: string, item: ReviewItem): Promise<void> {
		await this.migrate(key);
		await this.index.put(stateKeys.reviewItems(key), scored(item));
	}

	/** Store the items whose ids the learner has no item of yet. */
	async addItems(key: string, items: readonly ReviewItem[]): Promise<void> {
		await this.migrate(key);
		await this.index.add(stateKeys.reviewItems(key), items.map(scored));
	}

	/** Remove items by id. */
	async removeItems(key: string, ids: readonly string[]): Promise<void> {
		await this.migrate(key);
		await this.index.remove(stateKeys.reviewItems(key), ids);
	}

	/** A string list (members:<community>, reminders). */
	async list(name: string): Promise<string[]> {
		return strings(await this.store.get(name)) ?? [];
	}

	/** Add or remove `value` in a list; a no-op write is skipped. */
	async edit(name: string, value: string, present: boolean): Promise<void> {
		const list = await this.list(name);
		const has = list.includes(value);
		if (has === present) return;
		const next = present ? [...list, value] : list.filter((v) => v !== value);
		if (next.length === 0) await this.store.delete(name);
		else await this.store.set(name, next);
	}

	/** Delete the learner's own keys (profile, review items, an unmoved old list); lists are edited by the caller. */
	async deleteOwn(key: string): Promise<void> {
		await this.store.delete(stateKeys.profile(key));
		await this.store.delete(stateKeys.reviews(key));
		await this.index.drop(stateKeys.reviewItems(key));
		this.migrated.delete(key);
	}

	/** Move the learner's old review list (if any) to the index, once per learner in this process. */
	private migrate(key: string): Promise<void> {
		const known = this.migrated.get(key);
		if (known) return known;
		const moving = (async () => {
			const old = await this.store.get(stateKeys.reviews(key));
			if (old === undefined) return;
			const items = Array.isArray(old) ? old.map(parseItem).filter((i): i is ReviewItem => i !== undefined) : [];
			if (items.length > 0) await this.index.add(stateKeys.reviewItems(key), items.map(scored));
			await this.store.delete(stateKeys.reviews(key));
		})();
		// A failed move is tried again by the next call (the list is still there).
		moving.catch(() => this.migrated.delete(key));
		if (this.migrated.size >= MIGRATED_KEPT) this.migrated.clear();
		this.migrated.set(key, moving);
		return moving;
	}
}

/** A review item as a scored item: scored by its due time. */
const scored = (item: ReviewItem): ScoredItem => ({ id: item.id, score: Date.parse(item.card.due), value: item });

/** The review items among stored scored items (a corrupt one is dropped). */
const itemsOf = (found: readonly ScoredItem[]): ReviewItem[] =>
	found.map((f) => parseItem(f.value)).filter((i): i is ReviewItem => i !== undefined);
