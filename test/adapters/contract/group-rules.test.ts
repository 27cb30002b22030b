/**
 * Study groups that hold, on each chat platform (the terminal has one person: no groups). A three-way split
 * gets one discussion message and one revote, and nothing of the next node is posted before it (the model's
 * explanation and question in the discussion turn are refused); a tie is shown as a tie, never as "the group
 * answered C: not quite"; a unanimous wrong answer shows no answer, gets a discussion and a second vote, and
 * only then the answer. A vote waits for every member active in the last ten minutes, one who arrives mid-vote
 * included, not for one who spoke long ago; at the end `/lesson report` has a row per participant, each from
 * their own ballots, and each profile holds its member's own mastery.
 */

import { describe, expect, it } from "vitest";
import { ACTIVE_MINUTES } from "../../../src/core/votes.ts";
import { assessmentInput, planMermaid } from "../../fixtures/lesson-script.ts";
import { testClock } from "../../fixtures/profile-stack.ts";
import { type Card, CHATS, learnerKey, noticeOf, type PersonKey, switchable, until, useChat } from "./chat.ts";

const first = {
	type: "check",
	question: "Which fraction equals 2/4?",
	options: ["1/2", "2/8", "4/2"],
	correctAnswer: "1/2",
};
const second = {
	type: "check",
	question: "Which fraction equals 3/6?",
	options: ["1/2", "3/12", "6/3"],
	correctAnswer: "1/2",
};
const probe = {
	name: "probe_done",
	input: { assessment: { strands: [{ strand: "fractions", assessment: "basics" }] } },
};
const holding = [
	{ calls: [probe] },
	{ text: "Vote, everyone: privately.", calls: [{ name: "quiz", input: first, id: "v1" }] },
	// The discussion, and a model that would teach on: its explanation and next question are refused.
	{
		text: "Three votes, three answers. Tell each other why you chose yours.",
		calls: [
			{ name: "explain", input: { title: "Simplifying", body: "NEXT-NODE explanation." }, id: "e1" },
			{ name: "quiz", input: { ...second, question: "NEXT-NODE question?" }, id: "x1" },
		],
	},
	{ text: "A tie, and 1/2 it is. Another one.", calls: [{ name: "quiz", input: second, id: "v2" }] },
	{ text: "All of you chose 3/12. What does the 12 count?" },
	{ text: "Yes: 1/2, on the second vote." },
];
const active = [
	{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
	{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
	{ text: "Vote, everyone.", calls: [{ name: "quiz", input: { ...first, nodeId: "common-denominator" }, id: "v1" }] },
	{ text: "Bob chose 2/8: what does the 8 count? Think again, all of you." },
	{ text: "All three of you: 1/2." },
];

describe.each(CHATS)("a study group that holds on %s", { timeout: 90_000 }, (name) => {
	const scripts = switchable();
	const clock = testClock();
	// Slack shows emoji by name (`:scales:`), as slackify-markdown writes them.
	const handle = useChat(name, { model: scripts.model, clock, tutorClock: true });
	const members = ["learner", "other", "admin"] as const;
	const cast = async (card: Card, prefix: string, choices: number[]) => {
		for (const [i, who] of members.entries())
			await noticeOf(handle.chat, who, card, `${prefix}${choices[i]}`, /^Your vote|^Vote/);
	};

	it("split: one discussion, one revote, nothing past it; a tie shown as a tie; wrong: a second vote first", async () => {
		const { chat } = handle;
		const model = scripts.use(holding);
		const { sessionId } = await chat.start("learner", "equal fractions", { group: true });
		const posts = () => chat.posts(sessionId);
		const closed = (card: Card) =>
			chat.waitFor(() => chat.view(card).text !== card.text && chat.view(card).text, "closed card");
		const settle = async () => {
			await chat.backend.tutor.idle(sessionId);
			await chat.flush();
		};
		const quiz = await chat.card(sessionId, "v1");
		await chat.say("other", sessionId, "hi, I'm in");
		await chat.say("admin", sessionId, "me too");
		await until(async () => ((await chat.backend.tutor.getSession(sessionId))?.messageCount ?? 0) >= 4, "greetings");

		// 1. A three-way split: the tally says so, the closed card gives nothing away.
		await cast(quiz, "lh:pick:v1:", [0, 1, 2]);
		const revote = await chat.card(sessionId, "v1~revote");
		await settle();
		const tally1 = posts().find((p) => /Vote closed/.test(p));
		expect(tally1).toMatch(/The group is split/);
		expect(tally1).not.toContain("✓");
		const closed1 = await closed(quiz);
		expect(closed1).toMatch(
			/(⚖️|:scales:) \*+the group \\?\(3 votes\\?\)\*+ tied between \*+A\. 1\/2\*+ · \*+B\. 2\/8\*+ · \*+C\. 4\/2/,
		);
		expect(closed1).not.toMatch(/not quite|correct/i);
		// One discussion message, one revote card, and nothing of the next node before the revote.
		expect(posts().filter((p) => p.includes("Three votes, three answers"))).toHaveLength(1);
		expect(posts().some((p) => p.includes("NEXT-NODE"))).toBe(false);
		expect(posts().filter((p) => p.includes(first.question))).toHaveLength(2); // the question, its revote
		expect(model.doStreamCalls).toHaveLength(3);

		// 2. The revote ties three ways: a tie, with the answer shown now (the second vote), never one answer "not quite".
		await cast(revote, "lh:pick:v1~revote:", [1, 2, 0]);
		const tally2 = await chat.waitFor(() => posts().find((p) => /Revote closed/.test(p)), "the revote's tally");
		expect(tally2).toContain("It's a tie between B · C · A.");
		expect(tally2).toMatch(/A\. 1\/2: █+ 1 ✓/);
		const closedRevote = await closed(revote);
		expect(closedRevote).toMatch(/(⚖️|:scales:).*tied between \*+B\. 2\/8\*+ · \*+C\. 4\/2\*+ · \*+A\. 1\/2\*+/);
		expect(closedRevote).not.toMatch(/not quite/);

		// 3. A unanimous wrong answer: no answer shown, a discussion, a second vote; the answer only after it.
		const quiz2 = await chat.card(sessionId, "v2");
		await cast(quiz2, "lh:pick:v2:", [1, 1, 1]);
		const revote2 = await chat.card(sessionId, "v2~revote");
		await settle();
		const tally3 = posts().filter((p) => /Vote closed/.test(p))[1];
		expect(tally3).toMatch(/B\. 3\/12: █+ 3\n/);
		expect(tally3).toContain("you vote again before any answer is shown");
		expect(tally3).not.toContain("✓");
		const closed2 = await closed(quiz2);
		expect(closed2).toMatch(/answered \*+B\. 3\/12\*+/);
		expect(closed2).not.toMatch(/not quite|Correct answer|✅|❌|:white_check_mark:|:x:/);
		expect(posts().filter((p) => p.includes("What does the 12 count?"))).toHaveLength(1);

		await cast(revote2, "lh:pick:v2~revote:", [0, 0, 0]);
		await chat.waitFor(() => posts().filter((p) => /Revote closed/.test(p))[1], "the second revote's tally");
		expect(await closed(revote2)).toMatch(/(✅|:white_check_mark:) .*answered \*+A\. 1\/2\*+: correct/);
		await settle();
		expect(model.doStreamCalls).toHaveLength(6);
		expect(posts().filter((p) => /Vote closed|Revote closed/.test(p))).toHaveLength(4);
	});

	it("waits for a member who arrives mid-vote, not for one who left; every participant has a report row", async () => {
		const { chat } = handle;
		scripts.use(active);
		const { sessionId } = await chat.start("admin", "fractions", { group: true });
		const quiz = await chat.card(sessionId, "v1");
		let said = (await chat.backend.tutor.getSession(sessionId))?.messageCount ?? 0;
		const say = async (who: PersonKey, text: string) => {
			await chat.say(who, sessionId, text);
			said++;
			await until(async () => ((await chat.backend.tutor.getSession(sessionId))?.messageCount ?? 0) >= said, text);
		};
		const tallies = () => chat.posts(sessionId).filter((p) => /Vote closed|Revote closed/.test(p));
		// Dan says hello and leaves; the others come back later.
		await say("dan", "hi, dan here, can't stay");
		clock.advanceDays((ACTIVE_MINUTES + 1) / 1440);
		await say("other", "hi from bob");
		await noticeOf(chat, "admin", quiz, "lh:pick:v1:0", /^Your vote: A/);
		// The learner arrives while the vote is open: the vote waits for them too.
		await say("learner", "hi, just joined, what are we voting on?");
		await noticeOf(chat, "other", quiz, "lh:pick:v1:1", /^Your vote: B/);
		await chat.backend.tutor.idle(sessionId);
		// Two of three voted: the question is still open, and no tally was posted.
		expect((await chat.backend.tutor.getSession(sessionId))?.pending).toMatchObject([{ toolCallId: "v1" }]);
		expect(tallies()).toHaveLength(0);
		await noticeOf(chat, "learner", quiz, "lh:pick:v1:0", /^Your vote: A/);
		// Three of three (Dan is not waited for): the tally at once, not on the timer.
		const tally = await chat.waitFor(() => tallies()[0], "the tally");
		expect(tally).toContain("3 votes");
		expect(tally).not.toContain("time's up");

		// The split's revote: everyone right now.
		const revote = await chat.card(sessionId, "v1~revote");
		for (const who of ["admin", "other", "learner"] as const)
			await noticeOf(chat, who, revote, "lh:pick:v1~revote:0", /^Your vote: A/);
		await chat.waitFor(() => tallies()[1], "the revote's tally");
		await chat.backend.tutor.idle(sessionId);
		await chat.waitFor(() => chat.posts(sessionId).some((p) => /All three of you/.test(p)), "the teacher's reply");

		// The lesson ends: every participant's profile is written, each from their own ballots.
		await chat.command("admin", "end", sessionId);
		await until(() => chat.backend.learning.profile(learnerKey(chat, "dan")), "dan's profile");
		const report = await chat.command("admin", "report");
		const csv = report.files.find((f) => f.name.endsWith(".csv"))?.bytes?.toString("utf8") ?? "";
		const row = (who: PersonKey) =>
			csv
				.split("\r\n")
				.find((r) => r.includes(sessionId) && r.startsWith(`${chat.people[who].id},`))
				?.split(",")
				.slice(5, 8);
		expect(row("admin")).toEqual(["2", "1.000", "1"]); // right twice: learned
		expect(row("other")).toEqual(["2", "0.000", "0"]); // wrong, then right on the revote: a second try
		expect(row("learner")).toEqual(["2", "1.000", "1"]);
		expect(row("dan")).toEqual(["0", "0.000", "0"]); // spoke, never voted
		const node = async (who: PersonKey) =>
			(await chat.backend.learning.profile(learnerKey(chat, who)))?.lessons
				.find((l) => l.sessionId === sessionId)
				?.nodes.find((n) => n.id === "common-denominator")?.mastery;
		expect([await node("admin"), await node("other"), await node("learner"), await node("dan")]).toEqual([
			"learned",
			"shaky",
			"learned",
			"not-yet",
		]);
	});

	it("kept every payload within limits and logged no errors", () => {
		expect(handle.chat.problems()).toEqual([]);
		expect(handle.chat.logger.errors()).toEqual([]);
	});
});
