/**
 * The learner profile on the state store (same backend as the sessions, its
 * own namespace). Keys (declared in store/keys.ts):
 *
 *   profile:<learner>    lessons taken (facts without seeds), reviews done, reminder setting
 *   reviews:<learner>    the review items with their FSRS cards
 *   members:<community>  the learner keys with a lesson there (the admin report's index)
 *   communities          the communities with members
 *   reminders            the learner keys that turned reminders on
 *   reminded:<learner>:<day>  the once-a-day guard of a reminder (setIfAbsent, TTL 2 days)
 *
 * Values read back are checked field by field; a corrupt entry is dropped, never cast.
 */

import type { Participant } from "../../core/contracts/events.ts";
import { stateKeys } from "../store/keys.ts";
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

/** Typed access to the profile keys. Every method may reject when the store fails. */
export class ProfileStore {
	constructor(readonly store: StateStore) {}

	async profile(key: string): Promise<LearnerProfile | undefined> {
		return parseProfile(await this.store.get(stateKeys.profile(key)));
	}

	saveProfile(profile: LearnerProfile): Promise<void> {
		return this.store.set(stateKeys.profile(profile.key), profile);
	}

	async items(key: string): Promise<ReviewItem[]> {
		const v = await this.store.get(stateKeys.reviews(key));
		return Array.isArray(v) ? v.map(parseItem).filter((i): i is ReviewItem => i !== undefined) : [];
	}

	saveItems(key: string, items: readonly ReviewItem[]): Promise<void> {
		return this.store.set(stateKeys.reviews(key), items);
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

	/** Delete the learner's own keys (profile, reviews); lists are edited by the caller. */
	async deleteOwn(key: string): Promise<void> {
		await this.store.delete(stateKeys.profile(key));
		await this.store.delete(stateKeys.reviews(key));
	}
}
