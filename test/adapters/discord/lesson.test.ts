/**
 * A whole solo lesson end to end: the real discord.js client against the fake
 * Discord, the real engine on a scripted mock model, the real SQLite store and
 * the real renderer. Driven by a slash command, button clicks, a select, a
 * modal and a typed message; with another member's click refused, a double
 * click recorded once, a restart between two clicks, the plan PNG posted and
 * reposted as the current node moves, and every payload within Discord's limits.
 */

import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { messageControls } from "../../../testkit/fakes/discord.ts";
import { fractionsLesson } from "../../fixtures/lesson-script.ts";
import { customIds, scriptedModel, useStack, waitForAck, waitForControl } from "./helpers.ts";

// Six options on the first predict quiz: Discord shows them as a select.
const model = scriptedModel(
	fractionsLesson({
		greeting: "Hi! A few quick questions first.",
		predictOptions: ["2", "3", "6", "9", "12", "18"],
		closing: "Well done!",
	}),
);
const { fake, stack } = useStack(model);

const answered = (id: string) =>
	stack.events.filter(
		(e): e is Extract<TutorEvent, { type: "answered" }> => e.type === "answered" && e.toolCallId === id,
	);

async function settle(sessionId: string): Promise<void> {
	await stack.tutor.idle(sessionId);
	await stack.adapter.flush(10_000);
}

describe("a whole Discord lesson", () => {
	let threadId = "";
	let sessionId = "";

	it("registers /lesson to the guild at start", () => {
		const commands = fake.commands.guild.get(fake.guild.id) ?? [];
		expect(commands.map((c) => c.name)).toEqual(["lesson"]);
		expect(fake.calls.some((c) => c.method === "PUT" && c.path.endsWith(`/guilds/${fake.guild.id}/commands`))).toBe(
			true,
		);
	});

	it("starts from a slash command: deferred first, a public thread named after the topic, linked in the reply", async () => {
		const it = fake.slash({
			user: fake.users.learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "adding fractions" },
		});
		const reply = await fake.waitFor(() => {
			const m = it.originalMessageId ? fake.messages.get(it.originalMessageId) : undefined;
			return m?.text.includes("<#") ? m : undefined;
		}, "the start reply");
		expect(it.responseType).toBe(5);
		expect(reply.visibleTo).toBe(fake.users.learner.id);
		const thread = fake.createdThreads()[0]!;
		expect(thread).toMatchObject({ name: "adding fractions", type: 11, parentId: fake.ids.general });
		expect(reply.text).toContain(`<#${thread.id}>`);
		threadId = thread.id;
		sessionId = `discord:${fake.guild.id}:${threadId}`;
		// Acks come first: the callback is the first call the interaction caused.
		const firstForIt = fake.calls.find(
			(c) => c.path.includes(it.token) || c.path === `/channels/${fake.ids.general}/threads`,
		);
		expect(firstForIt?.path).toBe(`/interactions/${it.id}/${it.token}/callback`);

		const quiz = await waitForControl(fake, threadId, "lh:pick:p1:");
		const posted = fake.channelMessages(threadId).map((m) => m.text);
		expect(posted[0]).toContain("a lesson for <@");
		// The tutor's short lead-in rides on the question it leads into: one message, not two.
		expect(posted).toHaveLength(2);
		expect(quiz.text).toMatch(/^Hi! A few quick questions first\.\n\n\*\*Quiz\*\* · /);
		expect(quiz.text).toContain("What is 1/2 + 1/4?");
		expect(customIds(quiz)).toEqual([
			"lh:pick:p1:0",
			"lh:pick:p1:1",
			"lh:pick:p1:2",
			"lh:help:p1:0",
			"lh:help:p1:2",
			"lh:help:p1:4",
		]);
	});

	it("refuses another member's click in a solo lesson with an ephemeral notice and records nothing", async () => {
		const quiz = await waitForControl(fake, threadId, "lh:pick:p1:");
		const click = fake.click({ user: fake.users.other, messageId: quiz.id, customId: "lh:pick:p1:0" });
		await fake.waitFor(() => fake.ephemeralsFor(fake.users.other).length > 0, "the refusal notice");
		expect(click.responseType).toBe(6);
		expect(fake.ephemeralsFor(fake.users.other)[0]?.text).toBe(
			`This is <@${fake.users.learner.id}>'s solo lesson, so only they can answer. Start your own with \`/lesson start\`.`,
		);
		expect(answered("p1")).toHaveLength(0);
		expect(fake.messages.get(quiz.id)?.editedAt).toBeUndefined();
		expect((await stack.tutor.getSession(sessionId))?.pending).toMatchObject([{ toolCallId: "p1", kind: "quiz" }]);
	});

	it("records a double click once, edits the quiz to its answered state, then the plan picture and a select arrive", async () => {
		const quiz = await waitForControl(fake, threadId, "lh:pick:p1:");
		const first = fake.click({ user: fake.users.learner, messageId: quiz.id, customId: "lh:pick:p1:1" });
		const second = fake.click({ user: fake.users.learner, messageId: quiz.id, customId: "lh:pick:p1:1", force: true });
		await waitForAck(fake, first.token);
		await waitForAck(fake, second.token);
		await fake.waitFor(
			() => fake.ephemeralsFor(fake.users.learner).some((m) => /already answered|no longer open/.test(m.text)),
			"the double-click notice",
		);
		await waitForControl(fake, threadId, "lh:select:t1:");
		await settle(sessionId);
		expect(answered("p1")).toHaveLength(1);
		expect(answered("p1")[0]?.result).toMatchObject({
			answer: "3/4",
			correct: true,
			by: { id: fake.users.learner.id, name: "bob" },
		});
		const edited = fake.messages.get(quiz.id)!;
		expect(edited.editedAt).toBeDefined();
		expect(edited.text).toMatch(/answered/);
		expect(edited.text).toMatch(/^Hi! A few quick questions first\.\n\n/); // the lead stays when answered
		const buttons = messageControls(edited) as Array<{ disabled?: boolean; style: number }>;
		expect(buttons.every((b) => b.disabled === true)).toBe(true);
		expect(buttons[1]?.style).toBe(3); // success: the chosen, correct answer

		const messages = fake.channelMessages(threadId);
		const contents = messages.map((m) => m.text);
		expect(contents.some((c) => c.includes("Where you are now"))).toBe(true);
		// The map drawn and then moved to the first node in one turn: ONE picture (with the current node), not two.
		const pictures = messages.filter((m) => m.attachments.some((a) => a.filename === "plan.png"));
		expect(pictures.map((m) => m.text)).toEqual([expect.stringMatching(/^🗺️ Now: Common denominators/)]);
		// ...posted before the question it is about, which carries the lead-in.
		const select = messages.findIndex((m) => customIds(m).some((id) => id.startsWith("lh:select:t1:")));
		expect(messages.indexOf(pictures[0]!)).toBe(select - 1);
		expect(messages[select]?.text).toMatch(/^Let's start with a guess\.\n\n\*\*Predict\*\*/);
	});

	it("a button posted before a restart works after it: the select answers after the process restarts", async () => {
		const before = await waitForControl(fake, threadId, "lh:select:t1:");
		await stack.restart();
		expect(fake.gateway.identifies).toBe(2);
		const pick = fake.select({
			user: fake.users.learner,
			messageId: before.id,
			customId: "lh:select:t1:0",
			values: ["2"],
		});
		await waitForAck(fake, pick.token);
		expect(pick.responseType).toBe(6);
		await waitForControl(fake, threadId, "lh:open:t2");
		await settle(sessionId);
		expect(answered("t1")[0]?.result).toMatchObject({ answer: "6", correct: true });
		const edited = fake.messages.get(before.id)!;
		expect(edited.text).toMatch(/answered/);
		expect(customIds(edited).every((id) => !id.startsWith("lh:select:"))).toBe(true);
		expect(fake.channelMessages(threadId).some((m) => m.text.includes("Both 3 and 6 divide 6."))).toBe(true);
	});

	it("the Answer button opens the modal as its first response; the submit records the typed answer", async () => {
		const card = await waitForControl(fake, threadId, "lh:open:t2");
		// The select above warmed the lesson record after the restart, so the solo check runs before the modal.
		const stranger = fake.click({ user: fake.users.other, messageId: card.id, customId: "lh:open:t2" });
		await waitForAck(fake, stranger.token);
		const open = fake.click({ user: fake.users.learner, messageId: card.id, customId: "lh:open:t2" });
		await waitForAck(fake, open.token);
		expect(open.responseType).toBe(9);
		expect(open.modal?.custom_id).toBe("lh:modal:t2");
		expect(JSON.stringify(open.modal)).toContain("lh:text:t2");
		const submit = fake.submitModal({ user: fake.users.learner, opened: open, values: { "lh:text:t2": " 10 " } });
		await waitForAck(fake, submit.token);
		expect(submit.responseType).toBe(6);
		await waitForControl(fake, threadId, "lh:open:t3");
		await settle(sessionId);
		expect(answered("t2")[0]?.result).toMatchObject({ answer: "10", correct: true });
		expect(fake.messages.get(card.id)?.text).toMatch(/answered/);
		expect(stranger.responseType).toBe(4); // an ephemeral notice instead of the modal
		expect(fake.ephemeralsFor(fake.users.other).at(-1)?.text).toBe(
			`This is <@${fake.users.learner.id}>'s solo lesson, so only they can answer. Start your own with \`/lesson start\`.`,
		);
		expect(answered("t2")).toHaveLength(1);
	});

	it("reposts the plan picture when the current node moves, with different bytes each time", async () => {
		await settle(sessionId);
		const pictures = fake
			.channelMessages(threadId)
			.flatMap((m) => m.attachments.filter((a) => a.filename === "plan.png").map((a) => ({ m, a })));
		expect(pictures.length).toBe(2); // common-denominator (superseding the bare map), unlike
		for (const { a, m } of pictures) {
			const png = PNG.sync.read(a.data);
			expect(png.width).toBeGreaterThan(50);
			expect(png.height).toBeGreaterThan(50);
			expect(a.contentType).toBe("image/png");
			expect(m.text).toMatch(/^🗺️ /);
		}
		const bytes = pictures.map(({ a }) => a.data.toString("base64"));
		expect(new Set(bytes).size).toBe(2);
	});

	it("shows /lesson status privately with the plan picture", async () => {
		const status = fake.slash({ user: fake.users.learner, channelId: threadId, subcommand: "status" });
		const reply = await fake.waitFor(() => {
			const m = status.originalMessageId ? fake.messages.get(status.originalMessageId) : undefined;
			return m?.editedAt ? m : undefined;
		}, "the status reply");
		expect(reply.visibleTo).toBe(fake.users.learner.id);
		expect(reply.text).toContain("adding fractions");
		expect(reply.text).toMatch(/ · started <t:\d+:R>\nNow: teaching · 1 question waiting for an answer\n/);
		expect(reply.text).not.toContain("messages:");
		expect(reply.attachments[0]?.filename).toBe("plan.png");
	});

	it("an answer typed in the thread is judged as the open question's answer; the tutor recaps and ends the lesson", async () => {
		fake.say({ user: fake.users.learner, channelId: threadId, content: "I think it is 5/6 but I'm not sure" });
		// Recall before the recap: the tutor asks what was learned; the learner answers in the form.
		const recall = await waitForControl(fake, threadId, "lh:open:recall");
		const form = fake.click({ user: fake.users.learner, messageId: recall.id, customId: "lh:open:recall" });
		await waitForAck(fake, form.token);
		const said = fake.submitModal({
			user: fake.users.learner,
			opened: form,
			values: { "lh:text:recall": "Common denominators" },
		});
		await waitForAck(fake, said.token);
		await fake.waitFor(
			() => stack.events.some((e) => e.type === "ended" && e.sessionId === sessionId),
			"the end of the lesson",
			15_000,
		);
		await settle(sessionId);
		const lastPrompt = JSON.stringify(model.doStreamCalls.at(-2)?.prompt);
		expect(lastPrompt).toContain("I think it is 5/6");
		const contents = fake.channelMessages(threadId).map((m) => m.text);
		expect(contents.some((c) => c.includes("Recap"))).toBe(true);
		expect(contents.at(-1)).toBe("_Lesson complete. Well done! Start another lesson any time with `/lesson start`._");
		// Typed in the thread, it is the open question's answer (never "skipped"): the card shows it answered.
		expect(answered("t3")[0]?.result).toMatchObject({ answer: "I think it is 5/6 but I'm not sure", inThread: true });
		expect(answered("t3")[0]?.result.skipped).toBeUndefined();
		const t3 = fake.channelMessages(threadId).find((m) => m.text.includes("1/2 + 1/3"));
		expect(t3?.text).not.toMatch(/Skipped/);
		expect(t3?.text).toContain("I think it is 5/6");
		expect(messageControls(t3 ?? {}).every((c) => c.disabled === true)).toBe(true);
	});

	it("answers stale clicks on answered or superseded questions with a notice and records nothing", async () => {
		const t3 = fake.channelMessages(threadId).find((m) => m.text.includes("1/2 + 1/3"))!;
		const open = fake.click({ user: fake.users.learner, messageId: t3.id, customId: "lh:open:t3", force: true });
		await waitForAck(fake, open.token);
		expect(open.responseType).toBe(4); // a notice, not a modal
		const p1 = fake.channelMessages(threadId).find((m) => customIds(m).includes("lh:pick:p1:0"))!;
		const stale = fake.click({ user: fake.users.learner, messageId: p1.id, customId: "lh:pick:p1:0", force: true });
		const notice = await fake.waitFor(() => fake.messages.get(stale.followupIds[0] ?? ""), "the stale-click notice");
		expect(notice.visibleTo).toBe(fake.users.learner.id);
		expect(notice.text).toMatch(/ended/);
		expect(answered("p1")).toHaveLength(1);
		// Its typed answer went to the grader: "checking", then the verdict; the stale click added nothing.
		expect(answered("t3").filter((a) => a.checking !== true)).toHaveLength(1);
	});

	it("kept every payload within Discord's limits, answered every interaction once, and logged no errors", () => {
		expect(fake.problems()).toEqual([]);
		const failed = fake.calls.filter((c) => c.status >= 400);
		expect(failed.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
		for (const it of fake.interactions.values()) {
			expect(it.responseType, `interaction ${it.kind}`).toBeDefined();
			expect(it.rejectedCallbacks).toBe(0);
		}
		expect(stack.logger.errors()).toEqual([]);
	});
});
