/**
 * The tally card of a group vote: counts per option, the right option marked only for a check
 * quiz without a revote, names only when the server shows them, and one message within every
 * platform limit however many options and voters and however long their texts.
 */

import { describe, expect, it } from "vitest";
import type { AnswerResult } from "../../src/core/contracts/events.ts";
import { type Ballot, tallyVote } from "../../src/core/votes.ts";
import {
	type AnsweredEvent,
	answeredCard,
	discordMessageText,
	tallyCard,
	toDiscordMessages,
	toSlackMessages,
} from "../../src/render/index.ts";
import { discordMessageProblems, slackMessageProblems } from "./platform-limits.ts";

const quiz = {
	type: "check" as const,
	question: "Which equals 2/4?",
	options: ["1/2", "2/8", "4/2"],
	correctAnswer: "1/2",
};

function event(
	ballots: Ballot[],
	opts: { namesShown?: boolean; input?: typeof quiz; round?: 1 | 2 } = {},
): AnsweredEvent {
	const input = opts.input ?? quiz;
	const vote = tallyVote(ballots, {
		check: input.type === "check",
		round: opts.round ?? 1,
		timedOut: false,
		namesShown: opts.namesShown,
	});
	const result: AnswerResult = { answer: vote.counts[0]?.answer ?? "", by: { id: "g", name: "the group" }, vote };
	return { type: "answered", sessionId: "s", toolCallId: "v", kind: "quiz", result, quiz: input as never };
}

const ballot = (id: string, answer: string, correct: boolean, name = id): Ballot => ({
	by: { id, name },
	answer,
	correct,
	at: "2026-01-01T00:00:00Z",
});

describe("tally card", () => {
	it("counts every option, hides the answer while a revote follows, reveals it after", () => {
		const split = tallyCard(event([ballot("a", "2/8", false), ballot("b", "1/2", true), ballot("c", "1/2", true)]))!;
		expect(split.text).toBe(
			[
				"🗳️ **Vote closed** · 3 votes",
				"A. 1/2: ███████ 2",
				"B. 2/8: ███ 1",
				"C. 4/2: · 0",
				"The group is split: the tutor talks it through, then you vote again.",
			].join("\n"),
		);
		const agreed = tallyCard(
			event([ballot("a", "1/2", true), ballot("b", "1/2", true)], { round: 2, namesShown: true }),
		)!;
		expect(agreed.text).toContain("🗳️ **Revote closed** · 2 votes");
		expect(agreed.text).toContain("A. 1/2: ██████████ 2 ✓");
		expect(agreed.text).toContain("a: A · b: A");
		// In the lesson's language: German and Spanish words, the same counts.
		const german = tallyCard(
			event([ballot("a", "2/8", false), ballot("b", "1/2", true), ballot("c", "1/2", true)]),
			"de",
		)!;
		expect(german.text).toContain("🗳️ **Abstimmung beendet** · 3 Stimmen");
		expect(german.text).toContain("Die Gruppe ist geteilter Meinung");
		expect(tallyCard(event([ballot("a", "1/2", true)], { round: 2 }), "es")!.text).toContain(
			"Segunda votación cerrada** · 1 voto",
		);
		expect(tallyCard({ ...event([]), result: { answer: "x", by: { id: "u" } } })).toBeUndefined();
		// The closed question's card gives nothing away before the revote either; after it, the verdict and the reveal.
		const splitEvent = event([ballot("a", "2/8", false), ballot("b", "1/2", true), ballot("c", "1/2", true)]);
		const closed = answeredCard({ ...splitEvent, result: { ...splitEvent.result, correct: true } });
		expect(closed.correct).toBeUndefined();
		expect(closed.reveal).toBeUndefined();
		const agreedEvent = event([ballot("a", "1/2", true), ballot("b", "1/2", true)], { round: 2 });
		const after = answeredCard({ ...agreedEvent, result: { ...agreedEvent.result, correct: true } });
		expect(after).toMatchObject({ correct: true, reveal: { correctAnswer: "1/2" } });
	});

	it("says a tie is a tie, and why a wrong vote is voted again, in the lesson's language", () => {
		const tie = event([ballot("a", "4/2", false), ballot("b", "2/8", false), ballot("c", "1/2", true)]);
		expect(tallyCard(tie)!.text).toContain("It's a tie between C · B · A.");
		expect(tallyCard(tie)!.text).toContain("The group is split"); // a third right: the peer-instruction band
		const card = answeredCard({ ...tie, result: { ...tie.result, correct: false } });
		expect(card).toMatchObject({ tie: ["C. 4/2", "B. 2/8", "A. 1/2"], by: { name: "the group (3 votes)" } });
		expect(card.correct).toBeUndefined();
		expect(card.chosenIndex).toBeUndefined();
		expect(discordMessageText(toDiscordMessages(card)[0] ?? {})).toContain(
			"⚖️ **the group \\(3 votes\\)** tied between **C. 4/2** · **B. 2/8** · **A. 1/2**",
		);
		expect(JSON.stringify(toSlackMessages(card))).toContain(":scales: *the group (3 votes)* tied between *C. 4/2*");
		const wrong = event([ballot("a", "2/8", false), ballot("b", "2/8", false), ballot("c", "2/8", false)]);
		expect(tallyCard(wrong)!.text).toContain("Not yet: the tutor asks what led you there");
		expect(tallyCard(wrong)!.text).not.toContain("✓");
		expect(tallyCard(wrong, "de")!.text).toContain("Noch nicht");
		expect(tallyCard(tie, "de")!.text).toContain("Gleichstand zwischen C · B · A.");
		expect(tallyCard(tie, "es")!.text).toContain("Empate entre C · B · A.");
		expect(answeredCard(tie, "de").by.name).toBe("die Gruppe (3 Stimmen)");
	});

	it("fits one Discord message and one Slack message with 25 long options and 300 long-named voters", () => {
		const options = Array.from({ length: 25 }, (_, i) => `${"option text ".repeat(40)}${i}`);
		const big = { ...quiz, options, correctAnswer: options[3] as string };
		const ballots = Array.from({ length: 300 }, (_, i) =>
			ballot(`u${i}`, options[i % 25] as string, i % 25 === 3, `member ${"x".repeat(60)} ${i}`),
		);
		const card = tallyCard(event(ballots, { input: big, namesShown: true }))!;
		const discord = toDiscordMessages(card);
		expect(discord).toHaveLength(1);
		expect(discord.flatMap(discordMessageProblems)).toEqual([]);
		const slack = toSlackMessages(card);
		expect(slack).toHaveLength(1);
		expect(slack.flatMap(slackMessageProblems)).toEqual([]);
		expect(card.text).toContain("…and 13 more");
	});
});
