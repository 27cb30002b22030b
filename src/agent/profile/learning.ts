/**
 * Lessons across lessons: the learner profile, review items scheduled by
 * FSRS, the prober's note of what a learner already knows, the admin report's
 * rows, reminders' due list and forget-me. Built on the public interfaces of
 * the session store and the state store only; every read-modify-write of a
 * learner is serialized per learner in this process. The clock is injected.
 */

import { ANONYMOUS_PARTICIPANT, type Participant } from "../../core/contracts/events.ts";
import { type Logger, silentLogger } from "../../core/contracts/logger.ts";
import { platformOf } from "../../core/contracts/thread-id.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import { perKey } from "../../core/per-key.ts";
import type { Locale } from "../../i18n/index.ts";
import { stateKeys } from "../store/keys.ts";
import type { LibraryStore } from "../store/library-store.ts";
import type { MaterialStore } from "../store/material-store.ts";
import type { PictureStore } from "../store/picture-store.ts";
import { type ScoredItems, scoredItemsOnState } from "../store/scored-items.ts";
import type { StateStore } from "../store/state-store.ts";
import type { SessionRecord, SessionStore } from "../store/types.ts";
import { type LessonFacts, learnerKeyOf, lessonFacts, lessonParticipants } from "./lesson-facts.ts";
import { type LessonDigest, LessonIndex, lessonDigest } from "./lesson-index.ts";
import { priorKnowledge } from "./prior-note.ts";
import { type LearnerProfile, ProfileStore, type ReviewItem } from "./profile-store.ts";
import { type ReportRow, readReport, removeReportRows, saveReportRows } from "./report-rows.ts";
import { type AnswerGrader, judgeReviewAnswer, type ReviewJudgement, type ReviewQuestion } from "./review-judge.ts";
import { createScheduler, type ReviewOutcome, type Scheduler } from "./schedule.ts";

export type { DigestPerson, LessonDigest } from "./lesson-index.ts";
export type { LearnerProfile, ProfileLesson, ReviewItem } from "./profile-store.ts";
export type { ReportRow } from "./report-rows.ts";

/** Days a lesson's record (transcript, profile entry, review items) is kept when its server set no retention. */
export const DEFAULT_RETENTION_DAYS = 365;
/** Longest retention a server may set (ten years). */
export const MAX_RETENTION_DAYS = 3650;

/** Review threads a profile remembers (older ones' state has expired: it lives a day). */
const REVIEW_THREADS_KEPT = 50;
/** How long a reminder's once-a-day guard is kept. */
const REMINDED_TTL_MS = 2 * 24 * 60 * 60 * 1000;

/** Options of createLearning. */
export interface LearningOptions {
	/** Where profiles live (its own namespace on the sessions' backend). */
	state: StateStore;
	/**
	 * The review items' index on the same backend and namespace (store/state-store.ts `stateWithItems`); without it,
	 * the items are state values of `state` (fine in memory, slow on a real backend: read and written whole).
	 */
	items?: ScoredItems;
	/** The sessions: read at a lesson's end, deleted by forget-me (and compacted after it, where the store can). */
	sessions: Pick<SessionStore, "get" | "delete"> & Partial<Pick<SessionStore, "compact">>;
	/** The lessons' picture bytes: deleted with their lesson (forget-me, the retention sweep). */
	pictures?: Pick<PictureStore, "forgetLesson">;
	/** The lessons' material indexes: deleted with their lesson (forget-me, the retention sweep). */
	material?: Pick<MaterialStore, "forgetLesson">;
	/** The communities' libraries: items older than their community's retention go with the sweep. */
	library?: Pick<LibraryStore, "communities" | "expire">;
	now?: () => Date;
	logger?: Logger;
	scheduler?: Scheduler;
	/** Days lessons are kept where a community set no retention (LEARNHARNESS_RETENTION_DAYS; default DEFAULT_RETENTION_DAYS). */
	defaultRetentionDays?: number;
	/** The grader for review answers the judge leaves open (review-judge.ts createAnswerGrader); without it they are misses. */
	grade?: AnswerGrader;
}

/** The due items of a learner and what comes after them. */
export interface DueReview {
	items: ReviewItem[];
	/** Items due now in all (items holds at most `limit` of them). */
	dueCount: number;
	/** When the next not-yet-due item falls due (ISO), if any. */
	nextDue?: string;
	total: number;
}

/** What a lesson sends to spaced review, as its closing message tells it. */
export interface LessonReviewPlan {
	/** Each checked node's review item, soonest first: its label and when it is first due (ISO). */
	items: Array<{ label: string; due: string }>;
	/** The learner has reminders on already (no need to offer them). */
	remindersOn: boolean;
}

/** The learning service. Every method may reject when a store fails (the caller tells the person). */
export interface Learning {
	/** The service's clock (review deadlines and "next review" lines read it too). */
	now(): Date;
	/**
	 * Build (or rebuild) the profile entry of an ended lesson and its review items; idempotent per lesson.
	 * A group lesson builds one for every participant, from their own ballots (lesson-facts.ts).
	 */
	recordLesson(record: SessionRecord): Promise<void>;
	/**
	 * What an ended lesson sends to review and when (the same items and due dates recordLesson stores, computed
	 * from the stored record whether or not it ran yet); undefined when the lesson is unknown or checked nothing.
	 */
	reviewPlan(sessionId: string): Promise<LessonReviewPlan | undefined>;
	/** Record the place a lesson started in (what forget-me clears there). */
	notePlace(sessionId: string, learner: Participant, place: string): Promise<void>;
	/** Record a review thread opened for the learner (the last REVIEW_THREADS_KEPT are kept). */
	noteReviewThread(key: string, learner: Participant, threadId: string): Promise<void>;
	/** The profile of a learner key (see learnerKeyOf). */
	profile(key: string): Promise<LearnerProfile | undefined>;
	/** The prober's note on what this learner already knows of a related topic; undefined when nothing relates. */
	priorNote(sessionId: string, learner: Participant, topic: string): Promise<string | undefined>;
	/** Every review item of a learner. */
	items(key: string): Promise<ReviewItem[]>;
	/** Up to `limit` due items, most overdue first. */
	due(key: string, limit?: number): Promise<DueReview>;
	/** Judge a typed review answer as a lesson judges a typed quiz answer: the judge, then the grader. Never rejects. */
	judge(item: ReviewQuestion, text: string, locale?: Locale): Promise<ReviewJudgement>;
	/** Feed one review's outcome to the scheduler; the item as rescheduled (undefined when it is gone). */
	grade(key: string, itemId: string, outcome: ReviewOutcome): Promise<ReviewItem | undefined>;
	/**
	 * A community's recorded lessons, one digest each (lesson-index.ts), in no particular order; `community` is
	 * `<platform>:<guild or team>`. What the admins' dashboard reads.
	 */
	lessons(community: string): Promise<LessonDigest[]>;
	/** The same digests as the index reader keeps them, per bucket (LessonIndex.buckets): the dashboard's sums follow them. */
	lessonBuckets(community: string): Promise<ReadonlyArray<readonly LessonDigest[]>>;
	/** A community's report rows (members with a lesson there), in member then start order. */
	report(community: string): Promise<ReportRow[]>;
	/** Turn reminders on or off; `where` is the adapter's address of the nudge. */
	setReminders(key: string, on: boolean, where?: string): Promise<void>;
	/** Learners (keys starting with `prefix`) with reminders on and something due, each claimed for today (setIfAbsent): a nudge is sent once. */
	claimReminders(prefix?: string): Promise<Array<{ key: string; where?: string; due: number }>>;
	/**
	 * Delete the learner's profile, review items and their lessons' transcripts; returns the deleted session ids and
	 * the review threads. `deleteLesson` deletes one lesson (the tutor's forgetLesson: it stops the lesson's turns
	 * first); default: the session store's delete.
	 */
	forget(
		key: string,
		options?: { deleteLesson?: (sessionId: string) => Promise<unknown> },
	): Promise<{ sessions: string[]; reviewThreads: string[] }>;
	/**
	 * After forget-me's deletions: the deleted bytes leave the store's files (SQLite: secure delete, a WAL checkpoint,
	 * a VACUUM while free pages remain); nothing to do on the other stores. Rejects when the store fails.
	 */
	compact(): Promise<void>;
	/** A community's retention in days (the default retention when it set none). */
	retention(community: string): Promise<number>;
	/** Set a community's retention (1..MAX_RETENTION_DAYS days); the next sweep applies it. */
	setRetention(community: string, days: number): Promise<number>;
	/** Delete lessons older than their community's retention: transcripts, profile entries, review items. Returns how many went. */
	sweep(): Promise<number>;
	/** Record each lesson's facts when it ends (only `platform`'s sessions when given); returns the unsubscribe function. */
	observe(tutor: Pick<Tutor, "subscribe">, platform?: string): () => void;
}

const newProfile = (key: string, learner: Participant): LearnerProfile => ({
	format: 1,
	key,
	learner: { id: learner.id },
	lessons: [],
	reviewsDone: 0,
});

/** Create the learning service. */
export function createLearning(options: LearningOptions): Learning {
	const wanted = options.defaultRetentionDays;
	const defaultRetention =
		wanted !== undefined && Number.isInteger(wanted) && wanted >= 1 && wanted <= MAX_RETENTION_DAYS
			? wanted
			: DEFAULT_RETENTION_DAYS;
	const items = options.items ?? scoredItemsOnState(options.state);
	const store = new ProfileStore(options.state, items);
	const index = new LessonIndex(options.state);
	const now = options.now ?? (() => new Date());
	const logger = options.logger ?? silentLogger;
	const scheduler = options.scheduler ?? createScheduler();
	const serial = perKey();
	/** Delete a lesson's pictures' bytes (found through its transcript). */
	const forgetPictures = async (sessionId: string): Promise<void> => {
		if (!options.pictures) return;
		const record = await options.sessions.get(sessionId);
		if (record) await options.pictures.forgetLesson(record);
	};
	/** Delete a lesson: its pictures' bytes (its record names them), then its record (`remove`: default the store's delete). */
	const deleteLesson = async (
		sessionId: string,
		remove: (id: string) => Promise<unknown> = (id) => options.sessions.delete(id),
	): Promise<void> => {
		await forgetPictures(sessionId);
		await options.material?.forgetLesson(sessionId);
		await remove(sessionId);
		await index.drop(sessionId);
	};

	/** A lesson's new review items: one per checked node, first due by its mastery at the lesson's end. */
	const reviewItemsOf = (record: SessionRecord, seeds: LessonFacts["seeds"]): ReviewItem[] => {
		const at = record.ended ? new Date(record.ended.at) : now();
		return seeds.map(({ mastery, ...question }) => ({
			id: `${record.sessionId}#${question.nodeId}`,
			sessionId: record.sessionId,
			topic: record.topic,
			...question,
			card: scheduler.first(at, mastery === "learned" ? "good" : "again"),
		}));
	};

	/** One participant's entry of a lesson (`joined`: a group lesson someone else started; forget-me keeps it). */
	const recordFor = (record: SessionRecord, person: Participant, facts: LessonFacts): Promise<void> => {
		const key = learnerKeyOf(record.sessionId, person);
		const joined = person.id !== record.learner.id;
		return serial(key, async () => {
			const profile = (await store.profile(key)) ?? newProfile(key, person);
			const { seeds, ...lesson } = facts;
			const before = profile.lessons.find((l) => l.sessionId === record.sessionId);
			profile.lessons = [
				...profile.lessons.filter((l) => l.sessionId !== record.sessionId),
				{
					...lesson,
					reviews: before?.reviews ?? 0,
					...(before?.place ? { place: before.place } : {}),
					...(joined ? { joined: true } : {}),
				},
			];
			// Only items the learner has no item of yet (a rebuilt lesson keeps its items' schedules).
			await store.addItems(key, reviewItemsOf(record, seeds));
			await store.saveProfile(profile);
			await saveReportRows(items, profile, [facts.community]);
			if (facts.community !== "") {
				await store.edit(stateKeys.members(facts.community), key, true);
				await store.edit(stateKeys.communities(), facts.community, true);
			}
		});
	};

	const learning: Learning = {
		now,
		async reviewPlan(sessionId) {
			const record = await options.sessions.get(sessionId);
			if (!record) return undefined;
			const items = reviewItemsOf(record, lessonFacts(record).seeds);
			if (items.length === 0) return undefined;
			const profile = await store.profile(learnerKeyOf(sessionId, record.learner));
			return {
				items: items
					.map((i) => ({ label: i.label, due: i.card.due }))
					.sort((a, b) => Date.parse(a.due) - Date.parse(b.due)),
				remindersOn: profile?.reminders?.on === true,
			};
		},
		async recordLesson(record) {
			const people = record.mode === "group" ? lessonParticipants(record) : [record.learner];
			const facts = people.map((person) => ({ person, facts: lessonFacts(record, person) }));
			for (const f of facts) await recordFor(record, f.person, f.facts);
			// The community's digest of the lesson, from the same facts (the dashboard's source).
			const digest = lessonDigest(record.mode, facts);
			if (digest) await index.put(digest);
		},

		notePlace(sessionId, learner, place) {
			const key = learnerKeyOf(sessionId, learner);
			return serial(key, async () => {
				const profile = (await store.profile(key)) ?? newProfile(key, learner);
				if (profile.places?.includes(place) && profile.sessionIds?.includes(sessionId)) return;
				if (!profile.places?.includes(place)) profile.places = [...(profile.places ?? []), place];
				if (!profile.sessionIds?.includes(sessionId)) profile.sessionIds = [...(profile.sessionIds ?? []), sessionId];
				await store.saveProfile(profile);
			});
		},

		noteReviewThread(key, learner, threadId) {
			return serial(key, async () => {
				const profile = (await store.profile(key)) ?? newProfile(key, learner);
				profile.reviewThreads = [...(profile.reviewThreads ?? []), threadId].slice(-REVIEW_THREADS_KEPT);
				await store.saveProfile(profile);
			});
		},

		profile: (key) => store.profile(key),
		items: (key) => store.items(key),

		async priorNote(sessionId, learner, topic) {
			const profile = await store.profile(learnerKeyOf(sessionId, learner));
			return profile ? priorKnowledge(profile, topic) : undefined;
		},

		async due(key, limit = 10) {
			// The index selects: only the returned items are read, whatever the learner has.
			const due = await store.due(key, now().getTime(), Math.max(0, limit));
			return {
				items: due.items,
				dueCount: due.count,
				total: due.total,
				...(due.next !== undefined ? { nextDue: new Date(due.next).toISOString() } : {}),
			};
		},

		judge: (item, text, locale) => judgeReviewAnswer(item, text, locale, options.grade),

		grade(key, itemId, outcome) {
			return serial(key, async () => {
				const item = await store.item(key, itemId);
				if (!item) return undefined;
				const next = { ...item, card: scheduler.review(item.card, now(), outcome) };
				await store.saveItem(key, next);
				const profile = await store.profile(key);
				if (profile) {
					profile.reviewsDone++;
					const lesson = profile.lessons.find((l) => l.sessionId === item.sessionId);
					if (lesson) lesson.reviews++;
					await store.saveProfile(profile);
					if (lesson) await saveReportRows(items, profile, [lesson.community]);
				}
				return next;
			});
		},

		lessons: (community) => index.list(community),
		lessonBuckets: (community) => index.buckets(community),

		// The community's rows kept ready (report-rows.ts): one read, whatever the members' profiles hold.
		report: (community) => readReport(store, items, community),

		setReminders(key, on, where) {
			return serial(key, async () => {
				const profile = await store.profile(key);
				if (!profile) return;
				profile.reminders = { on, ...(where ? { where } : {}) };
				await store.saveProfile(profile);
				await store.edit(stateKeys.reminders(), key, on);
			});
		},

		async claimReminders(prefix = "") {
			const out: Array<{ key: string; where?: string; due: number }> = [];
			const day = now().toISOString().slice(0, 10);
			for (const key of await store.list(stateKeys.reminders())) {
				if (!key.startsWith(prefix)) continue;
				const profile = await store.profile(key);
				if (!profile?.reminders?.on) continue;
				const { dueCount } = await learning.due(key, 0);
				if (dueCount === 0) continue;
				// The once-guard: whoever stores it first (this process or another, after a restart or not) nudges.
				if (!(await options.state.setIfAbsent(stateKeys.reminded(key, day), now().toISOString(), REMINDED_TTL_MS)))
					continue;
				out.push({ key, due: dueCount, ...(profile.reminders.where ? { where: profile.reminders.where } : {}) });
			}
			return out;
		},

		forget(key, forgetOptions = {}) {
			return serial(key, async () => {
				const profile = await store.profile(key);
				const sessions = new Set([...(profile?.lessons.map((l) => l.sessionId) ?? []), ...(profile?.sessionIds ?? [])]);
				for (const item of await store.items(key)) sessions.add(item.sessionId);
				// Group lessons someone else started stay (the tutor takes the learner out of them: forgetParticipant).
				for (const l of profile?.lessons ?? []) {
					if (l.joined !== true) continue;
					sessions.delete(l.sessionId);
					if (profile) await index.anonymise(l.sessionId, profile.learner.id, ANONYMOUS_PARTICIPANT);
				}
				// Through the tutor when it is given one (it stops the lesson's turns first).
				for (const id of sessions) await deleteLesson(id, forgetOptions.deleteLesson);
				const communities = new Set(profile?.lessons.map((l) => l.community) ?? []);
				for (const community of communities)
					if (community !== "") await store.edit(stateKeys.members(community), key, false);
				await removeReportRows(items, key, communities);
				await store.edit(stateKeys.reminders(), key, false);
				// A once-guard lives REMINDED_TTL_MS (2 days) after its day's claim: the last three days' may be there.
				for (let d = 0; d <= 2; d++) {
					const day = new Date(now().getTime() - d * 86_400_000).toISOString().slice(0, 10);
					await options.state.delete(stateKeys.reminded(key, day));
				}
				await store.deleteOwn(key);
				return { sessions: [...sessions], reviewThreads: profile?.reviewThreads ?? [] };
			});
		},

		async compact() {
			await options.sessions.compact?.();
		},

		async retention(community) {
			const v = await options.state.get(stateKeys.retention(community));
			return typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= MAX_RETENTION_DAYS ? v : defaultRetention;
		},

		async setRetention(community, days) {
			const d = Math.max(1, Math.min(MAX_RETENTION_DAYS, Math.floor(days)));
			await options.state.set(stateKeys.retention(community), d);
			return d;
		},

		async sweep() {
			let removed = 0;
			for (const community of await store.list(stateKeys.communities())) {
				const cutoff = now().getTime() - (await learning.retention(community)) * 86_400_000;
				for (const key of await store.list(stateKeys.members(community))) {
					removed += await serial(key, async () => {
						const profile = await store.profile(key);
						if (!profile) return 0;
						const old = profile.lessons.filter(
							(l) => l.community === community && Date.parse(l.endedAt ?? l.startedAt) < cutoff,
						);
						if (old.length === 0) return 0;
						const gone = new Set(old.map((l) => l.sessionId));
						for (const id of gone) await deleteLesson(id);
						profile.lessons = profile.lessons.filter((l) => !gone.has(l.sessionId));
						if (profile.sessionIds) profile.sessionIds = profile.sessionIds.filter((id) => !gone.has(id));
						const reviewItems = await store.items(key);
						await store.removeItems(
							key,
							reviewItems.filter((i) => gone.has(i.sessionId)).map((i) => i.id),
						);
						await store.saveProfile(profile);
						await saveReportRows(items, profile, [community]);
						if (!profile.lessons.some((l) => l.community === community))
							await store.edit(stateKeys.members(community), key, false);
						return gone.size;
					});
				}
			}
			if (removed > 0) logger.info({ removed }, "lessons past their retention were deleted");
			// Library documents are kept as long as lessons are: the community's retention, counted from when added.
			if (options.library) {
				let documents = 0;
				for (const community of await options.library.communities()) {
					const cutoff = now().getTime() - (await learning.retention(community)) * 86_400_000;
					documents += await options.library.expire(community, new Date(cutoff));
				}
				if (documents > 0) logger.info({ documents }, "library documents past their retention were deleted");
			}
			return removed;
		},

		observe(tutor, platform) {
			return tutor.subscribe(async (event) => {
				if (event.type !== "ended") return;
				if (platform !== undefined && platformOf(event.sessionId) !== platform) return;
				try {
					const record = await options.sessions.get(event.sessionId);
					if (record) await learning.recordLesson(record);
				} catch (error) {
					logger.warn({ err: error, sessionId: event.sessionId }, "the learner profile could not be updated");
				}
			});
		},
	};
	return learning;
}
