/**
 * Study groups that vote (peer instruction), the pure rules: a member's
 * ballot (the latest one counts until the tally), the tally of a closed vote,
 * when a vote splits (a revote follows the teacher's discussion) and the
 * group's verdict for mastery. No I/O, no clock: callers pass times in.
 *
 *   split:    at least two voters, at least two different answers, and the
 *             right answer got at least 30% but under 70% of the votes (Mazur's
 *             peer-instruction band: under 30% the teacher re-teaches, at 70%
 *             or more the group moves on). Check quizzes only, first round only
 *             (at most one revote per question).
 *   correct:  the group's verdict is right when more than half of the voters
 *             answered right (a tie is not right). Mastery reads this verdict.
 */

import type { Participant } from "./contracts/events.ts";

/** Default seconds a vote stays open after its first ballot. */
export const DEFAULT_VOTE_SECONDS = 60;
/** Bounds of `vote_seconds` (a server's setting is clamped into them). */
export const MIN_VOTE_SECONDS = 10;
export const MAX_VOTE_SECONDS = 600;
/** The peer-instruction band of right answers that calls for discussion and a revote. */
export const REVOTE_BAND = { from: 0.3, below: 0.7 } as const;
/** Most ballots one vote keeps (a thread with more voters keeps the first ones; bounded state). */
export const MAX_BALLOTS = 200;

/** A group lesson's vote settings, taken when the lesson starts. */
export interface GroupSettings {
	/** Seconds a vote stays open after its first ballot (clamped to the bounds). */
	voteSeconds: number;
	/** Whether the posted tally names who chose what (the teacher always sees names). */
	showNames: boolean;
}

/** Default group settings. */
export const DEFAULT_GROUP_SETTINGS: Readonly<GroupSettings> = Object.freeze({
	voteSeconds: DEFAULT_VOTE_SECONDS,
	showNames: false,
});

/** A vote length in seconds, clamped into the bounds (non-numbers give the default). */
export function clampVoteSeconds(value: unknown): number {
	if (typeof value !== "number" || !Number.isFinite(value)) return DEFAULT_VOTE_SECONDS;
	return Math.min(MAX_VOTE_SECONDS, Math.max(MIN_VOTE_SECONDS, Math.round(value)));
}

/** Group settings from anything (a stored record, a config): each malformed field falls back to the default. */
export function normalizeGroupSettings(value: unknown): GroupSettings {
	const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
	return {
		voteSeconds: clampVoteSeconds(v.voteSeconds),
		showNames: typeof v.showNames === "boolean" ? v.showNames : DEFAULT_GROUP_SETTINGS.showNames,
	};
}

/** One member's graded answer in a vote (their latest click or typed answer). */
export interface Ballot {
	by: Participant;
	answer: string;
	/** Graded like a solo answer; absent when the typed answer could not be judged. */
	correct?: boolean;
	/** ISO time of the ballot. */
	at: string;
}

/** A vote still open: its ballots and when the timer closes it. */
export interface OpenVote {
	/** ISO time the vote closes (set by the first ballot). */
	closesAt: string;
	ballots: Ballot[];
}

/** Add or replace a member's ballot (the latest counts); the new list, and whether it replaced one. */
export function castBallot(ballots: readonly Ballot[], ballot: Ballot): { ballots: Ballot[]; changed: boolean } {
	const index = ballots.findIndex((b) => b.by.id === ballot.by.id);
	if (index < 0)
		return { ballots: ballots.length >= MAX_BALLOTS ? [...ballots] : [...ballots, ballot], changed: false };
	const next = [...ballots];
	next[index] = ballot;
	return { ballots: next, changed: true };
}

/** One member's answer, as the teacher (and /lesson status) see it. */
export interface MemberVote {
	id: string;
	name?: string;
	answer: string;
	correct?: boolean;
}

/** How many chose one answer. */
export interface VoteCount {
	answer: string;
	count: number;
	correct?: boolean;
}

/** A closed vote, as the quiz's tool result carries it (authored by our code). */
export interface VoteOutcome {
	/** 1: the first vote; 2: the revote after a split. */
	round: 1 | 2;
	voters: number;
	/** Voters whose answer was right. */
	correctVotes: number;
	/** Per answer, most chosen first (ties in the order first chosen). */
	counts: VoteCount[];
	/** Per member: id, name, answer, correct. */
	members: MemberVote[];
	/** The vote split (see the rules above). */
	split: boolean;
	/** A revote of the same question follows the teacher's discussion. */
	revote: boolean;
	/** The vote closed on its timer (not everyone had voted). */
	timedOut: boolean;
	/** The posted tally names who chose what (the server's setting; the teacher then may name them too). */
	namesShown: boolean;
	/** What the teacher does next (set on a split that gets a revote). */
	next?: string;
}

/** Tally ballots. `check`: a check quiz (only those are revoted); `round`: 1 or 2. */
export function tallyVote(
	ballots: readonly Ballot[],
	options: { check: boolean; round: 1 | 2; timedOut: boolean; namesShown?: boolean },
): VoteOutcome {
	const counts: VoteCount[] = [];
	for (const b of ballots) {
		const key = b.answer.trim().toLowerCase();
		const found = counts.find((c) => c.answer.trim().toLowerCase() === key);
		if (found) found.count++;
		else counts.push({ answer: b.answer, count: 1, ...(b.correct !== undefined ? { correct: b.correct } : {}) });
	}
	counts.sort((a, b) => b.count - a.count); // stable: ties keep the order first chosen
	const voters = ballots.length;
	const correctVotes = ballots.filter((b) => b.correct === true).length;
	const share = voters === 0 ? 0 : correctVotes / voters;
	const split =
		voters >= 2 &&
		counts.length >= 2 &&
		share >= REVOTE_BAND.from &&
		share < REVOTE_BAND.below &&
		ballots.some((b) => b.correct !== undefined);
	return {
		round: options.round,
		voters,
		correctVotes,
		counts,
		members: ballots.map((b) => ({
			id: b.by.id,
			...(b.by.name !== undefined ? { name: b.by.name } : {}),
			answer: b.answer,
			...(b.correct !== undefined ? { correct: b.correct } : {}),
		})),
		split,
		revote: split && options.check && options.round === 1,
		timedOut: options.timedOut,
		namesShown: options.namesShown === true,
	};
}

/** The group's verdict: right when more than half of the voters were right; undefined with no graded ballot. */
export function groupCorrect(outcome: Pick<VoteOutcome, "voters" | "correctVotes" | "members">): boolean | undefined {
	if (outcome.voters === 0 || !outcome.members.some((m) => m.correct !== undefined)) return undefined;
	return outcome.correctVotes * 2 > outcome.voters;
}

/** True when every active member has a ballot and at least two did (a lone voter waits for the timer). */
export function everyoneVoted(active: ReadonlySet<string>, ballots: readonly Ballot[]): boolean {
	if (ballots.length < 2) return false;
	const voted = new Set(ballots.map((b) => b.by.id));
	for (const id of active) if (!voted.has(id)) return false;
	return true;
}

/** One member's results in a lesson (for /lesson status). */
export interface MemberResult {
	by: Participant;
	/** Questions they answered (each vote round counts once). */
	answered: number;
	/** Of those, graded right. */
	correct: number;
}
