/**
 * Study groups that vote (peer instruction), the pure rules: a member's
 * ballot (the latest one counts until the tally), the tally of a closed vote,
 * when a vote splits (a revote follows the teacher's discussion) and the
 * group's verdict for mastery. No I/O, no clock: callers pass times in.
 *
 *   split:    at least two voters, at least two different answers, and the
 *             right answer got at least 30% but under 70% of the votes (Mazur's
 *             peer-instruction band: at 70% or more the group moves on).
 *   correct:  the group's verdict is right when more than half of the voters
 *             answered right (a tie is not right). Mastery reads this verdict.
 *   revote:   a first-round check vote that split or whose verdict is wrong is
 *             voted again after the teacher's discussion, as a solo learner's
 *             first miss gets a second try (core/struggle.ts): the answer is not
 *             revealed before the second vote. At most one revote per question.
 *   tie:      two answers or more share the most votes: the tally and the
 *             closed card show the tie, never one of them as "the group's answer".
 *   active:   a member who spoke, answered or voted in the last ACTIVE_MINUTES
 *             (from the transcript and the open ballots); a vote closes early
 *             only when every active member voted.
 */

import type { Participant } from "./contracts/events.ts";
import type { VoteCount, VoteOutcome } from "./contracts/vote-outcome.ts";

/** Default seconds a vote stays open after its first ballot. */
export const DEFAULT_VOTE_SECONDS = 60;
/** Bounds of `vote_seconds` (a server's setting is clamped into them). */
export const MIN_VOTE_SECONDS = 10;
export const MAX_VOTE_SECONDS = 600;
/** The peer-instruction band of right answers that calls for discussion and a revote. */
export const REVOTE_BAND = { from: 0.3, below: 0.7 } as const;
/** Most ballots one vote keeps (a thread with more voters keeps the first ones; bounded state). */
export const MAX_BALLOTS = 200;
/** The tool call id suffix of a revote (the re-opened copy of a question). */
export const REVOTE_SUFFIX = "~revote";
/** Minutes a member counts as active after they last spoke, answered or voted (a vote waits for them). */
export const ACTIVE_MINUTES = 10;

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
	const graded = ballots.some((b) => b.correct !== undefined);
	const split = voters >= 2 && counts.length >= 2 && share >= REVOTE_BAND.from && share < REVOTE_BAND.below && graded;
	// A wrong verdict gets the second vote a solo learner's first miss gets (no reveal before it).
	const wrong = graded && correctVotes * 2 <= voters;
	const top = counts[0]?.count ?? 0;
	const tied = counts.filter((c) => c.count === top);
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
			at: b.at,
		})),
		split,
		revote: (split || wrong) && options.check && options.round === 1,
		...(tied.length >= 2 ? { tie: tied.map((c) => c.answer) } : {}),
		timedOut: options.timedOut,
		namesShown: options.namesShown === true,
	};
}

/** The group's verdict: right when more than half of the voters were right; undefined with no graded ballot. */
export function groupCorrect(outcome: Pick<VoteOutcome, "voters" | "correctVotes" | "members">): boolean | undefined {
	if (outcome.voters === 0 || !outcome.members.some((m) => m.correct !== undefined)) return undefined;
	return outcome.correctVotes * 2 > outcome.voters;
}

/** The members whose latest activity (an ISO time) is within the last ACTIVE_MINUTES before `now` (ms since the epoch). */
export function recentlyActive(lastSeen: ReadonlyMap<string, string>, now: number): Set<string> {
	const since = now - ACTIVE_MINUTES * 60_000;
	const active = new Set<string>();
	for (const [id, at] of lastSeen) {
		const time = Date.parse(at);
		if (Number.isFinite(time) && time >= since) active.add(id);
	}
	return active;
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
