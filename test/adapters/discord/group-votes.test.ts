/**
 * A study group that votes, end to end on the fake Discord with three members: each click
 * gets a private (ephemeral) acknowledgement, a member changes their vote, one tally message
 * is posted once everyone voted, the split gets a revote of the same question after the
 * teacher's discussion, and `/lesson status` shows each member's results.
 */

import { describe, expect, it } from "vitest";
import type { FakeInteraction, FakeUser } from "../../../testkit/fakes/discord.ts";
import { type Reply, scriptedModel, useStack, waitForAck, waitForControl } from "./helpers.ts";

const check = {
	type: "check",
	question: "Which fraction equals 2/4?",
	options: ["1/2", "2/8", "4/2"],
	correctAnswer: "1/2",
};

const script: Reply[] = [
	{
		calls: [
			{ name: "probe_done", input: { assessment: { strands: [{ strand: "fractions", assessment: "basics" }] } } },
		],
	},
	{ text: "Vote, everyone: privately.", calls: [{ name: "quiz", input: check, id: "v1" }] },
	{ text: "Some of you chose 2/8. What does the 8 count? Talk it over, then vote again." },
	{ text: "Everyone agrees now: 1/2." },
];

const model = scriptedModel(script);
const { fake, stack } = useStack(model, { png: Buffer.from([0x89]) });

/** Poll (bounded) until the check holds. */
async function until(check: () => Promise<boolean>, label: string): Promise<void> {
	for (let i = 0; i < 200; i++) {
		if (await check()) return;
		await new Promise((done) => setTimeout(done, 25));
	}
	throw new Error(`timed out waiting for ${label}`);
}

async function ackOf(click: FakeInteraction, user: FakeUser): Promise<string> {
	await waitForAck(fake, click.token);
	const notice = await fake.waitFor(() => fake.messages.get(click.followupIds[0] ?? ""), "the vote acknowledgement");
	expect(notice.visibleTo).toBe(user.id);
	return notice.content;
}

describe("a Discord study group votes", () => {
	it("three private votes, one tally, a revote after the discussion, per-member results in status", async () => {
		const { learner, other, admin } = fake.users;
		const started = fake.slash({
			user: learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "equivalent fractions", mode: "group" },
		});
		await waitForAck(fake, started.token);
		const thread = await fake.waitFor(
			() => fake.createdThreads().find((t) => t.name === "equivalent fractions"),
			"the lesson thread",
		);
		const sessionId = `discord:${fake.guild.id}:${thread.id}`;
		const quiz = await waitForControl(fake, thread.id, "lh:pick:v1:");
		// Two more members join the conversation while the vote is open (active members now).
		fake.say({ user: other, channelId: thread.id, content: "hi, I'm in" });
		fake.say({ user: admin, channelId: thread.id, content: "me too" });
		await until(
			async () => ((await stack.tutor.getSession(sessionId))?.messageCount ?? 0) >= 4,
			"both greetings recorded",
		);

		const a = await ackOf(fake.click({ user: learner, messageId: quiz.id, customId: "lh:pick:v1:1" }), learner);
		expect(a).toMatch(/^Your vote: B \(2\/8\)\. The tally comes when everyone has voted/);
		expect(await ackOf(fake.click({ user: admin, messageId: quiz.id, customId: "lh:pick:v1:1" }), admin)).toMatch(
			/^Your vote: B/,
		);
		expect(await ackOf(fake.click({ user: admin, messageId: quiz.id, customId: "lh:pick:v1:0" }), admin)).toMatch(
			/^Vote changed: A \(1\/2\)/,
		);
		// Nothing public yet: no tally, the question still open.
		expect(fake.channelMessages(thread.id).some((m) => /Vote closed/.test(m.content))).toBe(false);
		expect(await ackOf(fake.click({ user: other, messageId: quiz.id, customId: "lh:pick:v1:0" }), other)).toMatch(
			/^Your vote: A/,
		);

		// Everyone voted: one tally message, counts per option, no names, no reveal (a revote follows).
		const tally = await fake.waitFor(
			() => fake.channelMessages(thread.id).find((m) => /Vote closed/.test(m.content)),
			"the tally",
		);
		expect(tally.content).toContain("3 votes");
		expect(tally.content).toMatch(/A\. 1\/2: █+ 2\n/);
		expect(tally.content).toMatch(/B\. 2\/8: █+ 1\n/);
		expect(tally.content).toMatch(/C\. 4\/2: · 0/);
		expect(tally.content).not.toContain("✓");
		expect(tally.content).not.toContain("bob");
		expect(tally.content).toMatch(/split/);
		await fake.waitFor(() => fake.messages.get(quiz.id)?.editedAt, "the closed question");
		const closed = fake.messages.get(quiz.id)?.content ?? "";
		expect(closed).toContain("the group \\(3 votes\\)");
		expect(closed).not.toMatch(/correct|Correct answer|not quite/);

		// The teacher discussed the split; the same question re-opens as a revote.
		const revote = await waitForControl(fake, thread.id, "lh:pick:v1~revote:");
		expect(revote.content).toContain(check.question);
		for (const user of [learner, other, admin])
			await ackOf(fake.click({ user, messageId: revote.id, customId: "lh:pick:v1~revote:0" }), user);
		const second = await fake.waitFor(
			() => fake.channelMessages(thread.id).find((m) => /Revote closed/.test(m.content)),
			"the revote's tally",
		);
		expect(second.content).toMatch(/A\. 1\/2: █+ 3 ✓/);
		await stack.tutor.idle(sessionId);
		await stack.adapter.flush();
		expect(fake.channelMessages(thread.id).filter((m) => /Vote closed/.test(m.content))).toHaveLength(1);
		expect(model.doStreamCalls).toHaveLength(4);

		const status = fake.slash({ user: learner, channelId: thread.id, subcommand: "status" });
		const shown = await fake.waitFor(() => {
			const m = status.originalMessageId ? fake.messages.get(status.originalMessageId) : undefined;
			return m?.editedAt ? m : undefined;
		}, "the status reply");
		expect(shown.content).toContain("Members (this lesson):");
		expect(shown.content).toContain(`<@${learner.id}>: 2 answered, 1 right`);
		expect(shown.content).toContain(`<@${admin.id}>: 2 answered, 2 right`);
		expect(shown.content).toContain(`<@${other.id}>: 2 answered, 2 right`);
	});

	it("kept every payload within limits and logged no errors", () => {
		expect(fake.problems()).toEqual([]);
		expect(fake.calls.filter((c) => c.status >= 400).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
		expect(stack.logger.errors()).toEqual([]);
	});
});
