/**
 * The lesson's closing message with its review plan (profile-flows closingCard): the items the
 * profile stores for the lesson, soonest first, with when each is due; a Remind me button where
 * reminders reach the learner, the review command where they do not, and a note when reminders
 * are on already; nothing for a lesson the store does not know.
 */

import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import { createProfileFlows, PROFILE_BUTTONS } from "../../../src/adapters/lesson/profile-flows.ts";
import { createLearning, createMemoryStateStore, sessionStoreOnKeyv } from "../../../src/agent/index.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { fractionsRecord } from "../../fixtures/profile-lesson.ts";
import { recordingPort } from "./recording-port.ts";

const NOW = Date.parse("2026-03-01T10:30:00.000Z");
const ENDED = "Lesson complete. Well done!";

async function setup(style: Partial<ReturnType<typeof recordingPort>["style"]> = {}) {
	const sessions = sessionStoreOnKeyv(new Keyv());
	const record = fractionsRecord({ sessionId: "rec:abc", learnerId: "u1" });
	await sessions.set(record);
	const learning = createLearning({ state: createMemoryStateStore(() => NOW), sessions, now: () => new Date(NOW) });
	const port = recordingPort();
	const flows = createProfileFlows({
		port: { ...port, style: { ...port.style, reviewHint: "`/lesson review`", ...style } },
		learning,
		state: createMemoryStateStore(() => NOW),
		logger: silentLogger,
		controllerNow: () => new Date(NOW),
		placeOf: async () => ({ community: "rec", channelId: "c1" }),
	});
	return { flows, learning, record };
}

describe("the closing message's review plan", () => {
	it("lists the checked nodes soonest first with their due dates, and offers Remind me", async () => {
		const { flows, learning, record } = await setup();
		const card = await flows.closingCard("rec:abc", ENDED, "en");
		expect(card?.kind).toBe("question");
		if (card?.kind !== "question") return;
		expect(card.toolCallId).toBe(PROFILE_BUTTONS.remindMe);
		expect(card.lead).toBe(ENDED);
		expect(card.heading).toBe("Coming back for review");
		expect(card.choices).toEqual([{ index: 0, letter: "A", text: "🔔 Remind me" }]);
		// The same items and due dates the profile stores when the lesson is recorded.
		await learning.recordLesson(record);
		const items = (await learning.items("rec:u1")).sort((a, b) => Date.parse(a.card.due) - Date.parse(b.card.due));
		expect(items.length).toBe(2);
		const lines = card.question.split("\n");
		expect(lines.slice(0, 2)).toEqual(
			items.map((i) => {
				const days = Math.ceil((Date.parse(i.card.due) - NOW) / 86_400_000);
				const when =
					days === 1 ? `tomorrow (${i.card.due.slice(0, 10)})` : `in ${days} days (${i.card.due.slice(0, 10)})`;
				return `• ${i.label}: ${when}`;
			}),
		);
		// The missed node comes back sooner than the learned one.
		expect(lines[0]).toContain("Unlike denominators");
		expect(lines[2]).toBe("Tap **Remind me** and I'll nudge you when they're due; `/lesson review` works any time.");
	});

	it("speaks the lesson's language", async () => {
		const { flows } = await setup();
		const card = await flows.closingCard("rec:abc", "Lektion abgeschlossen.", "de");
		expect(card).toMatchObject({ heading: "Das kommt zur Wiederholung", choices: [{ text: "🔔 Erinnere mich" }] });
		expect(card?.kind === "question" && card.question).toMatch(/^• Unlike denominators: (morgen|in \d+ Tagen) \(/);
	});

	it("names the review command where no reminder reaches the learner, and says when reminders are on", async () => {
		const terminal = await setup({ reminders: false, reviewHint: "`learnharness review`" });
		const text = await terminal.flows.closingCard("rec:abc", ENDED, "en");
		expect(text).toMatchObject({ kind: "text", tone: "plain" });
		expect(text?.kind === "text" && text.text).toMatch(
			/^Lesson complete\. Well done!\n\n\*\*Coming back for review\*\*\n• Unlike denominators: .*\n• Common denominators: .*\nRun `learnharness review` when they're due\.$/,
		);
		const chat = await setup();
		await chat.learning.recordLesson(chat.record);
		await chat.learning.setReminders("rec:u1", true);
		const on = await chat.flows.closingCard("rec:abc", ENDED, "en");
		expect(on?.kind === "text" && on.text).toMatch(/Your reminders are on: I'll nudge you when they're due\./);
	});

	it("is nothing for a lesson the store does not know", async () => {
		const { flows } = await setup();
		expect(await flows.closingCard("rec:missing", ENDED, "en")).toBeUndefined();
	});

	it("Remind me turns reminders on for the clicker, pointing at the lesson's channel", async () => {
		const { flows, learning, record } = await setup();
		await learning.recordLesson(record);
		await learning.notePlace("rec:abc", { id: "u1" }, "rec:c1");
		const said: string[] = [];
		const actor = {
			by: { id: "u1" },
			isAdmin: async () => false,
			notify: async (text: string) => void said.push(text),
		};
		expect(await flows.choose(actor, "rec:abc", PROFILE_BUTTONS.remindMe)).toEqual({ ok: true });
		expect(said).toEqual([
			"Reminders are on: when reviews are due I post one nudge a day in your latest lesson's thread.",
		]);
		const where = JSON.parse((await learning.profile("rec:u1"))?.reminders?.where ?? "{}");
		expect(where).toMatchObject({ threadId: "rec:abc", community: "rec", channelId: "c1" });
	});
});
