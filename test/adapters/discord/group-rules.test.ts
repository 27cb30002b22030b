/**
 * Study groups that hold, as three members see them on the fake Discord (the real engine on a
 * scripted model, SQLite): a three-way split gets one discussion message and one revote, and
 * nothing of the next node is posted before it (the model's explanation and question in the
 * discussion turn are refused); a tie is shown as a tie, never as "the group answered C: not
 * quite"; a unanimous wrong answer on a check shows no answer, gets a discussion and a second
 * vote, and only then is the answer shown (here: right on the second vote).
 */

import { describe, expect, it } from "vitest";
import type { FakeInteraction, FakeUser } from "../../../testkit/fakes/discord.ts";
import { type Reply, scriptedModel, useStack, waitForAck, waitForControl } from "./helpers.ts";

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

const script: Reply[] = [
	{
		calls: [
			{ name: "probe_done", input: { assessment: { strands: [{ strand: "fractions", assessment: "basics" }] } } },
		],
	},
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

const model = scriptedModel(script);
const { fake, stack } = useStack(model, { png: Buffer.from([0x89]) });

async function voted(click: FakeInteraction, user: FakeUser): Promise<void> {
	await waitForAck(fake, click.token);
	const notice = await fake.waitFor(() => fake.messages.get(click.followupIds[0] ?? ""), "the vote acknowledgement");
	expect(notice.visibleTo).toBe(user.id);
}

/** Poll (bounded) until the check holds. */
async function until(check: () => Promise<boolean>, label: string): Promise<void> {
	for (let i = 0; i < 200; i++) {
		if (await check()) return;
		await new Promise((done) => setTimeout(done, 25));
	}
	throw new Error(`timed out waiting for ${label}`);
}

describe("a Discord study group that holds", () => {
	it("split: one discussion, one revote, nothing past it; tie shown as a tie; wrong: a second vote before the answer", async () => {
		const { learner, other, admin } = fake.users;
		const members = [learner, other, admin];
		const started = fake.slash({
			user: learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "equal fractions", mode: "group" },
		});
		await waitForAck(fake, started.token);
		const thread = await fake.waitFor(
			() => fake.createdThreads().find((t) => t.name === "equal fractions"),
			"the lesson thread",
		);
		const sessionId = `discord:${fake.guild.id}:${thread.id}`;
		const inThread = () => fake.channelMessages(thread.id);
		const cast = async (messageId: string, prefix: string, choices: number[]) => {
			for (const [i, user] of members.entries())
				await voted(fake.click({ user, messageId, customId: `${prefix}${choices[i]}` }), user);
		};
		const quiz = await waitForControl(fake, thread.id, "lh:pick:v1:");
		fake.say({ user: other, channelId: thread.id, content: "hi, I'm in" });
		fake.say({ user: admin, channelId: thread.id, content: "me too" });
		await until(async () => ((await stack.tutor.getSession(sessionId))?.messageCount ?? 0) >= 4, "the greetings");

		// 1. A three-way split: the tally says so, the closed card gives nothing away.
		await cast(quiz.id, "lh:pick:v1:", [0, 1, 2]);
		const revote = await waitForControl(fake, thread.id, "lh:pick:v1~revote:");
		await stack.tutor.idle(sessionId);
		await stack.adapter.flush();
		const tally1 = inThread().find((m) => /Vote closed/.test(m.content));
		expect(tally1?.content).toMatch(/The group is split/);
		expect(tally1?.content).not.toContain("✓");
		await fake.waitFor(() => fake.messages.get(quiz.id)?.editedAt, "the closed question");
		const closed1 = fake.messages.get(quiz.id)?.content ?? "";
		expect(closed1).toContain("⚖️ **the group \\(3 votes\\)** tied between **A. 1/2** · **B. 2/8** · **C. 4/2**");
		expect(closed1).not.toMatch(/not quite|correct/i);
		// One discussion message, one revote card, and nothing of the next node before the revote.
		expect(inThread().filter((m) => m.content.includes("Three votes, three answers"))).toHaveLength(1);
		expect(inThread().some((m) => m.content.includes("NEXT-NODE"))).toBe(false);
		expect(inThread().filter((m) => m.content.includes(first.question))).toHaveLength(2); // the question, its revote
		expect(model.doStreamCalls).toHaveLength(3);

		// 2. The revote ties three ways: a tie, with the answer shown now (the second vote), never one answer "not quite".
		await cast(revote.id, "lh:pick:v1~revote:", [1, 2, 0]);
		const tally2 = await fake.waitFor(
			() => inThread().find((m) => /Revote closed/.test(m.content)),
			"the revote's tally",
		);
		expect(tally2.content).toContain("It's a tie between B · C · A.");
		expect(tally2.content).toMatch(/A\. 1\/2: █+ 1 ✓/);
		await fake.waitFor(() => fake.messages.get(revote.id)?.editedAt, "the closed revote");
		const closedRevote = fake.messages.get(revote.id)?.content ?? "";
		expect(closedRevote).toContain("⚖️");
		expect(closedRevote).toMatch(/tied between \*\*B\. 2\/8\*\* · \*\*C\. 4\/2\*\* · \*\*A\. 1\/2\*\*/);
		expect(closedRevote).not.toMatch(/not quite/);

		// 3. A unanimous wrong answer: no answer shown, a discussion, a second vote; the answer only after it.
		const quiz2 = await waitForControl(fake, thread.id, "lh:pick:v2:");
		await cast(quiz2.id, "lh:pick:v2:", [1, 1, 1]);
		const revote2 = await waitForControl(fake, thread.id, "lh:pick:v2~revote:");
		await stack.tutor.idle(sessionId);
		await stack.adapter.flush();
		const tally3 = inThread().filter((m) => /Vote closed/.test(m.content))[1];
		expect(tally3?.content).toMatch(/B\. 3\/12: █+ 3\n/);
		expect(tally3?.content).toContain("you vote again before any answer is shown");
		expect(tally3?.content).not.toContain("✓");
		await fake.waitFor(() => fake.messages.get(quiz2.id)?.editedAt, "the closed second question");
		const closed2 = fake.messages.get(quiz2.id)?.content ?? "";
		expect(closed2).toContain("answered **B. 3/12**");
		expect(closed2).not.toMatch(/not quite|Correct answer|✅|❌/);
		expect(inThread().filter((m) => m.content.includes("What does the 12 count?"))).toHaveLength(1);

		await cast(revote2.id, "lh:pick:v2~revote:", [0, 0, 0]);
		await fake.waitFor(() => inThread().filter((m) => /Revote closed/.test(m.content))[1], "the second revote's tally");
		await fake.waitFor(() => fake.messages.get(revote2.id)?.editedAt, "the closed second revote");
		expect(fake.messages.get(revote2.id)?.content).toMatch(/✅ .*answered \*\*A\. 1\/2\*\*: correct/);
		await stack.tutor.idle(sessionId);
		await stack.adapter.flush();
		expect(model.doStreamCalls).toHaveLength(6);
		expect(inThread().filter((m) => /Vote closed|Revote closed/.test(m.content))).toHaveLength(4);
	});

	it("kept every payload within limits and logged no errors", () => {
		expect(fake.problems()).toEqual([]);
		expect(fake.calls.filter((c) => c.status >= 400).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
		expect(stack.logger.errors()).toEqual([]);
	});
});
