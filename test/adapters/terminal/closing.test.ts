/**
 * The terminal's closing lines: after the demo lesson the playground says which ideas come back
 * for spaced review and when (the items the profile stores, with their due dates), and names the
 * command that runs a review; no Remind me (no reminder reaches a terminal). Its end line lists
 * what there is between lessons.
 */

import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLineSource } from "../../../src/adapters/terminal/input.ts";
import { runPlayground } from "../../../src/adapters/terminal/playground.ts";
import { createLearning, createMemoryStateStore, createSessionStore, createTutor } from "../../../src/agent/index.ts";
import { createDemoModel } from "../../../src/agent/models/demo-model.ts";

/** Answers that walk the whole demo lesson, all correct (the basics shown: the smaller map). */
const ANSWERS = ["B", "C", "8", "B", "8", "B", "B", "A", "A", "You halve the range each time"];

describe("the playground's closing lines", () => {
	it("say what comes back for review and when, and how to run the review", async () => {
		const store = await createSessionStore("memory://");
		const learning = createLearning({ state: createMemoryStateStore(), sessions: store });
		const tutor = createTutor({ model: createDemoModel(), store });
		const out = new PassThrough();
		let text = "";
		out.on("data", (c: Buffer) => {
			text += c.toString();
		});
		const result = await runPlayground({
			tutor,
			source: createLineSource(Readable.from(ANSWERS.map((l) => `${l}\n`)), out),
			output: out,
			topic: "binary search",
			learner: { id: "terminal-learner", name: "ada" },
			command: "npx learnharness",
			learning: { learning },
		});
		await tutor.close();
		expect(result).toMatchObject({ outcome: "ended", exitCode: 0 });
		const items = await learning.items("terminal:terminal-learner");
		expect(items.map((i) => i.label).sort()).toEqual(["Check the middle", "Count the steps", "Shrink the range"]);
		const closing = text.slice(text.indexOf("Lesson complete"));
		expect(closing).toMatch(
			/^Lesson complete\. Well done! Start another lesson any time with npx learnharness playground\./,
		);
		expect(closing).toMatch(/\nComing back for review\n/);
		for (const item of items) {
			const days = Math.ceil((Date.parse(item.card.due) - Date.now()) / 86_400_000);
			expect(closing).toContain(`• ${item.label}: in ${days} days (${item.card.due.slice(0, 10)})`);
		}
		expect(closing).toContain("Run npx learnharness review when they're due.");
		expect(closing).not.toMatch(/Remind me/);
		// The end line: what there is between lessons (review, progress, forget-me; reminders on chat).
		expect(closing).toMatch(
			/Between lessons: npx learnharness review asks .*, npx learnharness progress shows .*, npx learnharness forget-me deletes .*; reminders come on Discord and Slack \(\/lesson remind on\)\./,
		);
	});
});
