/**
 * A study group votes, on each chat platform with three members (the terminal has one person: no groups):
 * every click gets a private acknowledgement, a member changes their vote, one tally is posted once everyone
 * voted; without names a split gets a revote of the same question after the teacher's discussion, with names
 * (`vote_names on`) a unanimous vote names the voters and marks the answer, with no revote; `/lesson status`
 * shows each member's results.
 */

import { describe, expect, it } from "vitest";
import { CHATS, noticeOf, switchable, until, useChat } from "./chat.ts";

const check = {
	type: "check",
	question: "Which fraction equals 2/4?",
	options: ["1/2", "2/8", "4/2"],
	correctAnswer: "1/2",
};
const probe = {
	name: "probe_done",
	input: { assessment: { strands: [{ strand: "fractions", assessment: "basics" }] } },
};
const split = [
	{ calls: [probe] },
	{ text: "Vote, everyone: privately.", calls: [{ name: "quiz", input: check, id: "v1" }] },
	{ text: "Some of you chose 2/8. What does the 8 count? Talk it over, then vote again." },
	{ text: "Everyone agrees now: 1/2." },
];
const unanimous = [
	{ calls: [probe] },
	{ text: "Vote, everyone.", calls: [{ name: "quiz", input: check, id: "v1" }] },
	{ text: "Nearly all of you: 1/2. Well reasoned." },
];

describe.each(CHATS)("a study group votes on %s", { timeout: 60_000 }, (name) => {
	const scripts = switchable();
	const handle = useChat(name, { model: scripts.model });

	/** A group lesson whose first vote is open and whose three members all spoke. */
	async function groupLesson(topic: string) {
		const { chat } = handle;
		const { sessionId } = await chat.start("learner", topic, { group: true });
		const quiz = await chat.card(sessionId, "v1");
		await chat.say("other", sessionId, "hi, I'm in");
		await chat.say("admin", sessionId, "me too");
		await until(async () => ((await chat.backend.tutor.getSession(sessionId))?.messageCount ?? 0) >= 4, "greetings");
		return { sessionId, quiz, tallies: () => chat.posts(sessionId).filter((p) => /Vote closed/.test(p)) };
	}

	it("three private votes, one tally without names, a revote after the discussion, results in status", async () => {
		const { chat } = handle;
		const model = scripts.use(split);
		const { sessionId, quiz, tallies } = await groupLesson("equivalent fractions");
		const vote = (
			who: "learner" | "other" | "admin",
			card = quiz,
			choice = "lh:pick:v1:0",
			re = /^(Your vote|Vote changed)/,
		) => noticeOf(chat, who, card, choice, re);
		expect(await vote("learner", quiz, "lh:pick:v1:1")).toMatch(
			/^Your vote: B \(2\/8\)\. The tally comes when everyone has voted/,
		);
		expect(await vote("admin", quiz, "lh:pick:v1:1")).toMatch(/^Your vote: B/);
		expect(await vote("admin", quiz, "lh:pick:v1:0")).toMatch(/^Vote changed: A \(1\/2\)/);
		expect(tallies()).toEqual([]); // nothing public yet
		expect(await vote("other")).toMatch(/^Your vote: A/);

		// Everyone voted: one tally, counts per option, no names, no reveal (a revote follows).
		const tally = await chat.waitFor(() => tallies()[0], "the tally");
		expect(tally).toContain("3 votes");
		expect(tally).toMatch(/A\. 1\/2: █+ 2\n/);
		expect(tally).toMatch(/B\. 2\/8: █+ 1\n/);
		expect(tally).toMatch(/C\. 4\/2: · 0/);
		expect(tally).not.toContain("✓");
		expect(tally).not.toContain(chat.people.learner.name);
		expect(tally).toMatch(/split/);
		const closed = await chat.waitFor(
			() => /the group \\?\(3 votes/.test(chat.view(quiz).text) && chat.view(quiz).text,
			"closed",
		);
		expect(closed).not.toMatch(/correct|Correct answer|not quite/);

		// The teacher discussed the split; the same question re-opens as a revote.
		const revote = await chat.card(sessionId, "v1~revote");
		expect(revote.text).toContain(check.question);
		for (const who of ["learner", "other", "admin"] as const)
			await vote(who, revote, "lh:pick:v1~revote:0", /^Your vote/);
		const second = await chat.waitFor(
			() => chat.posts(sessionId).find((p) => /Revote closed/.test(p)),
			"the revote's tally",
		);
		expect(second).toMatch(/A\. 1\/2: █+ 3 ✓/);
		await chat.backend.tutor.idle(sessionId);
		await chat.flush();
		expect(tallies()).toHaveLength(1);
		expect(model.doStreamCalls).toHaveLength(4);

		const status = (await chat.command("learner", "status", sessionId)).text;
		expect(status).toContain("Members (this lesson):");
		expect(status).toContain(`<@${chat.people.learner.id}>: 2 answered, 1 right`);
		expect(status).toContain(`<@${chat.people.admin.id}>: 2 answered, 2 right`);
		expect(status).toContain(`<@${chat.people.other.id}>: 2 answered, 2 right`);
	});

	it("with vote_names on: a unanimous vote names the voters, marks the answer, and needs no revote", async () => {
		const { chat } = handle;
		expect((await chat.command("admin", "config vote_names on")).text).toMatch(/the tally names voters/);
		const model = scripts.use(unanimous);
		const { sessionId, quiz, tallies } = await groupLesson("fractions");
		expect(await noticeOf(chat, "learner", quiz, "lh:pick:v1:1", /^Your vote/)).toMatch(/^Your vote: B \(2\/8\)/);
		expect(await noticeOf(chat, "other", quiz, "lh:pick:v1:0", /^Your vote/)).toMatch(/^Your vote: A \(1\/2\)/);
		expect(await noticeOf(chat, "learner", quiz, "lh:pick:v1:0", /^Vote changed/)).toMatch(/^Vote changed: A \(1\/2\)/);
		expect(tallies()).toHaveLength(0);
		expect(await noticeOf(chat, "admin", quiz, "lh:pick:v1:0", /^Your vote/)).toMatch(/^Your vote: A/);

		const tally = await chat.waitFor(() => tallies()[0], "the tally");
		expect(tally).toContain("3 votes");
		expect(tally).toMatch(/A\. 1\/2: █+ 3 ✓/);
		for (const who of ["learner", "other", "admin"] as const) expect(tally).toContain(`${chat.people[who].name}: A`);
		await chat.backend.tutor.idle(sessionId);
		await chat.waitFor(() => chat.posts(sessionId).some((p) => /Well reasoned/.test(p)), "the teacher's reply");
		expect(tallies()).toHaveLength(1);
		expect(model.doStreamCalls).toHaveLength(3); // unanimous: no revote

		const status = (await chat.command("learner", "status", sessionId)).text;
		for (const who of ["learner", "other", "admin"] as const)
			expect(status).toContain(`<@${chat.people[who].id}>: 1 answered, 1 right`);
	});

	it("kept every payload within limits and logged no errors", () => {
		expect(handle.chat.problems()).toEqual([]);
		expect(handle.chat.logger.errors()).toEqual([]);
	});
});
