/**
 * Who may act, end to end: per-guild config by admins only (channels, daily
 * limit, default mode), a group lesson where any member answers (the
 * transcript says who), an admin starting a lesson for a member, `/lesson end`
 * by the wrong person refused and by an admin accepted, quiet handling of
 * another member's typing in a solo lesson, and `/lesson help`.
 */

import { describe, expect, it } from "vitest";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import type { FakeInteraction, FakeUser } from "../../../testkit/fakes/discord.ts";
import { type Reply, scriptedModel, useStack, waitForAck, waitForControl } from "./helpers.ts";

const script: Reply[] = [
	// lesson A (group), prober turn 1
	{
		text: "Hello, group!",
		calls: [
			{
				name: "quiz",
				id: "a1",
				input: { question: "Is 2/4 equal to 1/2?", options: ["yes", "no"], correctAnswer: "yes" },
			},
		],
	},
	// after the answer
	{ text: "Nice teamwork." },
	// lesson B (solo, started by an admin for bob)
	{ calls: [{ name: "ask", id: "b1", input: { question: "What do you want to get out of this lesson?" } }] },
];

const model = scriptedModel(script);
const { fake, stack } = useStack(model);

/** The ephemeral (or edited deferred) reply text of a command interaction, once it is final. */
async function replyOf(it: FakeInteraction): Promise<string> {
	const m = await fake.waitFor(() => {
		const msg = it.originalMessageId ? fake.messages.get(it.originalMessageId) : undefined;
		return msg && (it.responseType === 4 || msg.editedAt) ? msg : undefined;
	}, `the reply to ${it.kind}`);
	return m.text;
}

function run(
	user: FakeUser,
	channelId: string,
	subcommand: string,
	options?: Record<string, string | number | boolean>,
) {
	return fake.slash({ user, channelId, subcommand, ...(options ? { options } : {}) });
}

const threadOf = (topic: string) => fake.createdThreads().find((t) => t.name === topic);

describe("who may act in Discord lessons", () => {
	it("lets only admins change the guild config, and shows it", async () => {
		const denied = await replyOf(run(fake.users.learner, fake.ids.general, "config", { "lessons-per-day": 5 }));
		expect(denied).toMatch(/Manage Server/);
		const saved = await replyOf(
			run(fake.users.admin, fake.ids.general, "config", {
				"allow-channel": fake.ids.general,
				"lessons-per-day": 1,
				"default-mode": "group",
			}),
		);
		expect(saved).toContain("Saved.");
		expect(saved).toContain(`<#${fake.ids.general}>`);
		expect(saved).toMatch(/1 per member per day/);
		expect(saved).toMatch(/Default mode: group/);
		const shown = await replyOf(run(fake.users.admin, fake.ids.general, "config"));
		expect(shown).not.toContain("Saved.");
		expect(shown).toMatch(/Default mode: group/);
	});

	it("refuses a lesson outside the allowed channels, and a lesson for someone else from a non-admin", async () => {
		expect(await replyOf(run(fake.users.learner, fake.ids.other, "start", { topic: "nope" }))).toBe(
			`Lessons can't run in this channel. Run \`/lesson start\` in <#${fake.ids.general}>.`,
		);
		expect(
			await replyOf(run(fake.users.other, fake.ids.general, "start", { topic: "nope", for: fake.users.learner.id })),
		).toMatch(/Only admins/);
		expect(fake.createdThreads()).toEqual([]);
	});

	it("runs a group lesson (the guild default) where members vote and the tally says who chose what", async () => {
		const reply = await replyOf(run(fake.users.learner, fake.ids.general, "start", { topic: "equivalent fractions" }));
		expect(reply).toMatch(/group lesson/);
		const thread = threadOf("equivalent fractions")!;
		const quiz = await waitForControl(fake, thread.id, "lh:pick:a1:");
		// Each member's click is a private vote (test/adapters/discord/group-votes.test.ts has the full flow).
		const click = fake.click({ user: fake.users.other, messageId: quiz.id, customId: "lh:pick:a1:0" });
		await waitForAck(fake, click.token);
		const mine = fake.click({ user: fake.users.learner, messageId: quiz.id, customId: "lh:pick:a1:0" });
		await waitForAck(fake, mine.token);
		const sessionId = `discord:${fake.guild.id}:${thread.id}`;
		await fake.waitFor(() => fake.messages.get(quiz.id)?.editedAt, "the answered edit");
		await stack.tutor.idle(sessionId);
		await stack.adapter.flush();
		const answered = stack.events.find((e): e is Extract<TutorEvent, { type: "answered" }> => e.type === "answered");
		expect(answered?.result).toMatchObject({
			answer: "yes",
			correct: true,
			by: { id: fake.users.learner.id, name: "the group (2 votes)" },
			vote: { members: [{ id: fake.users.other.id, name: "carol", answer: "yes", correct: true }, { answer: "yes" }] },
		});
		expect(fake.messages.get(quiz.id)?.text).toContain("the group \\(2 votes\\)** answered **A. yes**");
		// carol's only notice is her vote's acknowledgement (no refusal).
		expect(click.followupIds.map((id) => fake.messages.get(id)?.text)).toEqual([
			expect.stringMatching(/^Your vote: A \(yes\)/),
		]);
	});

	it("enforces the daily limit for members but not for admins starting a lesson for a member", async () => {
		expect(await replyOf(run(fake.users.learner, fake.ids.general, "start", { topic: "again" }))).toBe(
			"You have already started 1 lesson today; the limit here is 1 lesson per member per day (UTC). Try again tomorrow.",
		);
		const reply = await replyOf(
			run(fake.users.admin, fake.ids.general, "start", {
				topic: "mixed numbers",
				mode: "solo",
				for: fake.users.learner.id,
			}),
		);
		expect(reply).toMatch(new RegExp(`for <@${fake.users.learner.id}>`));
		const thread = threadOf("mixed numbers")!;
		await waitForControl(fake, thread.id, "lh:open:b1");
		const intro = fake.channelMessages(thread.id)[0]!;
		expect(intro.text).toContain(`<@${fake.users.learner.id}>`);
		expect(intro.text).toMatch(/started by/);
		const session = await stack.tutor.getSession(`discord:${fake.guild.id}:${thread.id}`);
		expect(session?.learner.id).toBe(fake.users.learner.id);
		expect(session?.mode).toBe("solo");
	});

	it("in a solo lesson, ignores another member's typing and refuses their modal submit", async () => {
		const thread = threadOf("mixed numbers")!;
		const sessionId = `discord:${fake.guild.id}:${thread.id}`;
		const requests = model.doStreamCalls.length;
		fake.say({ user: fake.users.other, channelId: thread.id, content: "can I join?" });
		const card = await waitForControl(fake, thread.id, "lh:open:b1");
		// carol sees a notice instead of the modal...
		const stranger = fake.click({ user: fake.users.other, messageId: card.id, customId: "lh:open:b1" });
		await waitForAck(fake, stranger.token);
		expect(stranger.responseType).toBe(4);
		// ...and a submit she got anyway (e.g. a cold cache after a restart) is refused by the tutor.
		const open = fake.click({ user: fake.users.learner, messageId: card.id, customId: "lh:open:b1" });
		await waitForAck(fake, open.token);
		const submit = fake.submitModal({ user: fake.users.other, opened: open, values: { "lh:text:b1": "my answer" } });
		await waitForAck(fake, submit.token);
		const notice = await fake.waitFor(
			() => fake.messages.get(submit.followupIds[0] ?? ""),
			"the refusal of the submit",
		);
		expect(notice.visibleTo).toBe(fake.users.other.id);
		expect(notice.text).toBe(
			`This is <@${fake.users.learner.id}>'s solo lesson, so only they can answer. Start your own with \`/lesson start\`.`,
		);
		await stack.tutor.idle(sessionId);
		expect(model.doStreamCalls.length).toBe(requests);
		expect((await stack.tutor.getSession(sessionId))?.pending).toMatchObject([{ toolCallId: "b1", kind: "ask" }]);
		expect(fake.messages.get(card.id)?.editedAt).toBeUndefined();
	});

	it("refuses /lesson end from a member who is neither learner nor admin; an admin ends it", async () => {
		const thread = threadOf("equivalent fractions")!;
		expect(await replyOf(run(fake.users.other, thread.id, "end"))).toBe(
			`Only <@${fake.users.learner.id}> or an admin (Manage Server) can end this lesson.`,
		);
		expect(await replyOf(run(fake.users.admin, thread.id, "end"))).toMatch(/Ending/);
		await fake.waitFor(
			() => fake.channelMessages(thread.id).some((m) => /ended by an admin/.test(m.text)),
			"the end notice",
		);
		expect(await replyOf(run(fake.users.learner, thread.id, "end"))).toMatch(/has ended/);
		// Run in a channel, not a lesson thread: say where to run it instead of "no lesson in this thread".
		const notHere = "There is no lesson here. Start one with `/lesson start`.";
		expect(await replyOf(run(fake.users.learner, fake.ids.general, "status"))).toBe(notHere);
		expect(await replyOf(run(fake.users.learner, fake.ids.general, "end"))).toBe(notHere);
	});

	it("answers /lesson help at once, privately", async () => {
		const help = run(fake.users.other, fake.ids.general, "help");
		const text = await replyOf(help);
		expect(help.responseType).toBe(4);
		expect(text).toContain("/lesson start");
	});

	it("kept every payload within limits and logged no errors", () => {
		expect(fake.problems()).toEqual([]);
		expect(fake.calls.filter((c) => c.status >= 400).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
		expect(stack.logger.errors()).toEqual([]);
	});
});
