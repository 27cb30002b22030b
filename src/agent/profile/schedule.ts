/**
 * Spaced review scheduled by FSRS (the `ts-fsrs` package), not a formula of
 * our own. Intervals are whole days (no same-day learning steps: a review is a
 * chat session, not a flashcard deck); fuzz is off so a schedule is
 * reproducible in tests. A card is stored as plain JSON (ISO dates) and read
 * back through `parseCard`, never cast.
 */

import { type Card, createEmptyCard, type FSRS, fsrs, generatorParameters, Rating, State } from "ts-fsrs";

/** A review card as stored (ts-fsrs's Card with ISO dates). */
export interface StoredCard {
	due: string;
	stability: number;
	difficulty: number;
	scheduledDays: number;
	reps: number;
	lapses: number;
	state: number;
	lastReview?: string;
}

/** How a review went, in the learner's terms. */
export type ReviewOutcome = "again" | "hard" | "good";

const RATING: Record<ReviewOutcome, Rating.Again | Rating.Hard | Rating.Good> = {
	again: Rating.Again,
	hard: Rating.Hard,
	good: Rating.Good,
};

/** The FSRS scheduler of learnharness (one per process is enough; it holds parameters only). */
export function createScheduler(): Scheduler {
	return new Scheduler(fsrs(generatorParameters({ enable_fuzz: false, enable_short_term: false })));
}

/** Schedules review cards. Pure given its inputs (the clock is an argument). */
export class Scheduler {
	constructor(private readonly f: FSRS) {}

	/** A new card for a node checked in a lesson at `at`: a first-try success counts as "good", anything else as "again". */
	first(at: Date, outcome: ReviewOutcome): StoredCard {
		return this.review(store(createEmptyCard(at)), at, outcome);
	}

	/** The card after a review at `at`. */
	review(card: StoredCard, at: Date, outcome: ReviewOutcome): StoredCard {
		return store(this.f.next(load(card), at, RATING[outcome]).card);
	}
}

function store(card: Card): StoredCard {
	return {
		due: card.due.toISOString(),
		stability: card.stability,
		difficulty: card.difficulty,
		scheduledDays: card.scheduled_days,
		reps: card.reps,
		lapses: card.lapses,
		state: card.state,
		...(card.last_review ? { lastReview: card.last_review.toISOString() } : {}),
	};
}

function load(card: StoredCard): Card {
	return {
		due: new Date(card.due),
		stability: card.stability,
		difficulty: card.difficulty,
		elapsed_days: 0,
		scheduled_days: card.scheduledDays,
		learning_steps: 0,
		reps: card.reps,
		lapses: card.lapses,
		state: card.state as State,
		...(card.lastReview ? { last_review: new Date(card.lastReview) } : {}),
	};
}

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isoDate = (v: unknown): v is string => typeof v === "string" && !Number.isNaN(Date.parse(v));

/** A stored card read back; undefined when anything is off (the item is then rescheduled as new). */
export function parseCard(value: unknown): StoredCard | undefined {
	if (typeof value !== "object" || value === null) return undefined;
	const v = value as Record<string, unknown>;
	if (!isoDate(v.due) || !finite(v.stability) || !finite(v.difficulty) || !finite(v.scheduledDays)) return undefined;
	if (!finite(v.reps) || !finite(v.lapses) || !finite(v.state) || !(v.state in State)) return undefined;
	if (v.lastReview !== undefined && !isoDate(v.lastReview)) return undefined;
	return {
		due: v.due,
		stability: v.stability,
		difficulty: v.difficulty,
		scheduledDays: v.scheduledDays,
		reps: v.reps,
		lapses: v.lapses,
		state: v.state,
		...(v.lastReview !== undefined ? { lastReview: v.lastReview } : {}),
	};
}
