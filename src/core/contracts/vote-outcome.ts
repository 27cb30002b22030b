/**
 * A closed group vote as the quiz's tool result carries it (core/contracts/events.ts AnswerResult.vote):
 * the contract's shape, apart from the rules that compute it (core/votes.ts), which read the events'
 * Participant, so the two files do not import each other.
 */

/** One member's answer, as the teacher (and /lesson status) see it. */
export interface MemberVote {
	id: string;
	name?: string;
	answer: string;
	correct?: boolean;
	/** ISO time of the ballot (when the member was last active). */
	at?: string;
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
	/** The vote split (see core/votes.ts). */
	split: boolean;
	/** A revote of the same question follows the teacher's discussion (a split, or a wrong verdict, on a first-round check). */
	revote: boolean;
	/** Two answers or more share the most votes: these answers, in the order first chosen. */
	tie?: string[];
	/** The vote closed on its timer (not everyone had voted). */
	timedOut: boolean;
	/** The posted tally names who chose what (the server's setting; the teacher then may name them too). */
	namesShown: boolean;
	/** What the teacher does next (set on a split that gets a revote). */
	next?: string;
}
