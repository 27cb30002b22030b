/**
 * The pure vote rules: the latest ballot counts, the peer-instruction band for a split (30% to
 * under 70% right, two or more voters and answers), a revote for a first-round check that split
 * or whose verdict is wrong, a tie named as a tie, the group's verdict (more than half right),
 * who is active (the last ACTIVE_MINUTES), when everyone voted, bounded settings; and mastery
 * derived from the group's verdict.
 */

import { describe, expect, it } from "vitest";
import { derivePlanMastery } from "../../src/core/mastery.ts";
import {
	ACTIVE_MINUTES,
	type Ballot,
	castBallot,
	clampVoteSeconds,
	everyoneVoted,
	groupCorrect,
	normalizeGroupSettings,
	recentlyActive,
	tallyVote,
} from "../../src/core/votes.ts";

const b = (id: string, answer: string, correct?: boolean): Ballot => ({
	by: { id },
	answer,
	...(correct !== undefined ? { correct } : {}),
	at: "t",
});
const first = { check: true, round: 1 as const, timedOut: false };

describe("vote rules", () => {
	it("keeps one ballot per member, the latest", () => {
		const one = castBallot([], b("a", "x", false));
		const two = castBallot(one.ballots, b("a", "y", true));
		expect(two).toEqual({ ballots: [b("a", "y", true)], changed: true });
		expect(castBallot(two.ballots, b("b", "x", false)).ballots).toHaveLength(2);
	});

	it("splits in the 30%-70% band with two answers or more; revotes first-round checks only", () => {
		const third = [b("a", "x", true), b("b", "y", false), b("c", "y", false)];
		expect(tallyVote(third, first)).toMatchObject({ split: true, revote: true, correctVotes: 1, voters: 3 });
		expect(tallyVote(third, { ...first, round: 2 })).toMatchObject({ split: true, revote: false });
		expect(tallyVote(third, { ...first, check: false })).toMatchObject({ split: true, revote: false });
		const most = [b("a", "x", true), b("b", "x", true), b("c", "x", true), b("d", "y", false)];
		expect(tallyVote(most, first).split).toBe(false); // 75% right: move on
		const none = [b("a", "y", false), b("b", "z", false), b("c", "z", false)];
		// 0% right: no split, but a wrong verdict gets the second vote a solo learner's first miss gets.
		expect(tallyVote(none, first)).toMatchObject({ split: false, revote: true });
		expect(tallyVote(none, { ...first, round: 2 }).revote).toBe(false); // at most one revote
		expect(tallyVote(none, { ...first, check: false }).revote).toBe(false); // a prediction is a guess
		expect(tallyVote([b("a", "y", false)], first).revote).toBe(true); // a lone wrong voter too
		expect(tallyVote([b("a", "words")], first).revote).toBe(false); // ungraded: nothing to try again
		expect(tallyVote([b("a", "x", true)], first).split).toBe(false); // one voter is no group
		expect(tallyVote(third, first).counts).toEqual([
			{ answer: "y", count: 2, correct: false },
			{ answer: "x", count: 1, correct: true },
		]);
	});

	it("names a tie: every answer with the most votes, in the order first chosen", () => {
		const three = [b("a", "z", false), b("b", "x", true), b("c", "y", false)];
		expect(tallyVote(three, first).tie).toEqual(["z", "x", "y"]);
		expect(tallyVote([...three, b("d", "x", true)], first).tie).toBeUndefined(); // x leads
		expect(tallyVote([b("a", "x", true), b("b", "y", false)], first).tie).toEqual(["x", "y"]);
		expect(tallyVote([b("a", "x", true)], first).tie).toBeUndefined();
		expect(tallyVote([b("a", "X ", true), b("b", "x", true)], first).tie).toBeUndefined(); // the same answer
	});

	it("counts as active whoever was seen in the last ACTIVE_MINUTES", () => {
		const now = Date.parse("2026-01-01T12:00:00Z");
		const ago = (minutes: number) => new Date(now - minutes * 60_000).toISOString();
		const seen = new Map([
			["fresh", ago(1)],
			["edge", ago(ACTIVE_MINUTES)],
			["gone", ago(ACTIVE_MINUTES + 1)],
			["broken", "not a time"],
		]);
		expect([...recentlyActive(seen, now)]).toEqual(["fresh", "edge"]);
	});

	it("gives the group's verdict by a strict majority", () => {
		expect(groupCorrect(tallyVote([b("a", "x", true), b("b", "y", false)], first))).toBe(false);
		expect(groupCorrect(tallyVote([b("a", "x", true), b("b", "x", true), b("c", "y", false)], first))).toBe(true);
		expect(groupCorrect(tallyVote([b("a", "words")], first))).toBeUndefined();
	});

	it("waits for every active member and for at least two voters", () => {
		expect(everyoneVoted(new Set(["a"]), [b("a", "x")])).toBe(false);
		expect(everyoneVoted(new Set(["a", "b"]), [b("a", "x")])).toBe(false);
		expect(everyoneVoted(new Set(["a", "b"]), [b("a", "x"), b("b", "y")])).toBe(true);
	});

	it("bounds the settings", () => {
		expect(clampVoteSeconds(1)).toBe(10);
		expect(clampVoteSeconds(1e9)).toBe(600);
		expect(clampVoteSeconds(Number.NaN)).toBe(60);
		expect(normalizeGroupSettings({ voteSeconds: 30, showNames: "yes" })).toEqual({
			voteSeconds: 30,
			showNames: false,
		});
	});

	it("mastery reads the group's verdict: majority right is learned, majority wrong is shaky", () => {
		const tree = { nodes: [{ id: "n", label: "N" }], edges: [], version: 1 };
		const part = (ballots: Ballot[]) => {
			const vote = tallyVote(ballots, first);
			const correct = groupCorrect(vote);
			return {
				parts: [
					{
						type: "tool-quiz",
						state: "output-available",
						input: { type: "check", nodeId: "n", question: "q", correctAnswer: "x" },
						output: { answer: "x", ...(correct !== undefined ? { correct } : {}), by: { id: "g" }, vote },
					},
				],
			};
		};
		expect(
			derivePlanMastery(tree as never, [part([b("a", "x", true), b("b", "x", true), b("c", "y", false)])]),
		).toEqual({
			n: "learned",
		});
		expect(
			derivePlanMastery(tree as never, [part([b("a", "x", true), b("b", "y", false), b("c", "y", false)])]),
		).toEqual({
			n: "shaky",
		});
	});
});
