/**
 * Struggle before the answer on the fake Discord: a wrong check turns the card into
 * "Not quite" (Try again, Hint, Show answer) with no answer shown; Try again shows the
 * choices again, Hint posts the teacher's hint, the right answer then resolves it with
 * the attempt and the hint; Not sure on the next check is an answer of its own.
 */

import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { assessmentInput, checkQuiz, planMermaid, probeQuiz } from "../../fixtures/lesson-script.ts";
import { customIds, scriptedModel, useStack, waitForAck, waitForControl } from "./helpers.ts";

const model = scriptedModel([
	{ calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
	{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
	{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
	{ text: "Now check it.", calls: [checkQuiz("c1")] },
	{ text: "Make the denominators match first." }, // the hint side call
	{ text: "Right.", calls: [checkQuiz("c2")] },
	{ text: "Let's go over it together." },
]);
const png = PNG.sync.write(new PNG({ width: 4, height: 4 }));
const { fake, stack } = useStack(model, { png });

describe("struggle before the answer on Discord", () => {
	let threadId = "";
	let sessionId = "";
	const settle = async () => {
		await stack.tutor.idle(sessionId);
		await stack.adapter.flush(10_000);
	};
	/** Click, then wait until the card (or the thread) shows `until`. */
	const click = async (messageId: string, customId: string, until: string) => {
		const it = fake.click({ user: fake.users.learner, messageId, customId });
		await waitForAck(fake, it.token);
		await fake.waitFor(
			() =>
				fake.messages.get(messageId)?.content.includes(until) ||
				fake.channelMessages(threadId).some((m) => m.content.includes(until)),
			`"${until}" after ${customId}`,
		);
		await settle();
	};

	it("a wrong check: Not quite with Try again, Hint and Show answer, and no answer shown", async () => {
		fake.slash({
			user: fake.users.learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "fractions" },
		});
		const probe = await fake.waitFor(() => fake.createdThreads()[0], "the thread");
		threadId = probe.id;
		sessionId = `discord:${fake.guild.id}:${threadId}`;
		const p1 = await waitForControl(fake, threadId, "lh:pick:p1:");
		// The probe's quiz has the help row too.
		expect(customIds(p1)).toContain("lh:help:p1:4");
		await click(p1.id, "lh:pick:p1:1", "answered");
		const c1 = await waitForControl(fake, threadId, "lh:pick:c1:");
		expect(customIds(c1)).toEqual([
			"lh:pick:c1:0",
			"lh:pick:c1:1",
			"lh:pick:c1:2",
			"lh:help:c1:0",
			"lh:help:c1:2",
			"lh:help:c1:4",
		]);

		await click(c1.id, "lh:pick:c1:0", "Not quite");
		const missed = fake.messages.get(c1.id)!;
		expect(missed.content).toContain("Not quite");
		expect(missed.content).toContain("“2/6”");
		expect(missed.content).not.toContain("Correct answer");
		expect(customIds(missed)).toEqual(["lh:help:c1:1", "lh:help:c1:0", "lh:help:c1:3"]);
		expect(stack.events.some((e) => e.type === "answered" && e.toolCallId === "c1")).toBe(false);
	});

	it("Try again shows the choices again; Hint posts the teacher's hint; the right answer carries both", async () => {
		const card = fake.messages.get((await waitForControl(fake, threadId, "lh:help:c1:1")).id)!;
		await click(card.id, "lh:help:c1:1", "Second try");
		expect(customIds(fake.messages.get(card.id))).toContain("lh:pick:c1:1");
		expect(fake.messages.get(card.id)!.content).toContain("Second try");

		await click(card.id, "lh:help:c1:0", "Hint:");
		const hint = await fake.waitFor(
			() => fake.channelMessages(threadId).find((m) => m.content.includes("Hint:")),
			"the hint",
		);
		expect(hint.content).toContain("Make the denominators match first.");

		await click(card.id, "lh:pick:c1:1", "correct on the second try");
		const done = fake.messages.get(card.id)!;
		expect(done.content).toContain("correct on the second try, with a hint");
		const result = stack.events.find(
			(e): e is Extract<TutorEvent, { type: "answered" }> => e.type === "answered" && e.toolCallId === "c1",
		)?.result;
		expect(result).toMatchObject({
			correct: true,
			attempts: [{ answer: "2/6", correct: false }],
			hints: ["Make the denominators match first."],
			hinted: true,
		});
	});

	it("Not sure is an answer: the card says so and shows no answer", async () => {
		const c2 = await waitForControl(fake, threadId, "lh:pick:c2:");
		await click(c2.id, "lh:help:c2:4", "was not sure");
		const done = fake.messages.get(c2.id)!;
		expect(done.content).toContain("was not sure");
		expect(done.content).not.toContain("Correct answer");
		const result = stack.events.find(
			(e): e is Extract<TutorEvent, { type: "answered" }> => e.type === "answered" && e.toolCallId === "c2",
		)?.result;
		expect(result).toMatchObject({ notSure: true, correct: false });
		expect(fake.problems()).toEqual([]);
	});
});
