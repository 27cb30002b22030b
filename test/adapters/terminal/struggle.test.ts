/**
 * Struggle before the answer in the terminal playground: typed commands on an open quiz
 * (`again`, `hint`, `not sure`) through the same controller, after a wrong check.
 */

import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLineSource, parseHelpCommand } from "../../../src/adapters/terminal/input.ts";
import { runPlayground } from "../../../src/adapters/terminal/playground.ts";
import { createSessionStore, createTutor } from "../../../src/agent/index.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { assessmentInput, checkQuiz, planMermaid, probeQuiz } from "../../fixtures/lesson-script.ts";

describe("struggle in the playground", () => {
	it("parses the help commands and nothing else", () => {
		expect(parseHelpCommand("Hint")).toEqual({ command: "help", kind: "hint" });
		expect(parseHelpCommand("try again")).toEqual({ command: "help", kind: "again" });
		expect(parseHelpCommand("not sure.")).toEqual({ command: "help", kind: "not-sure" });
		expect(parseHelpCommand("show answer")).toEqual({ command: "help", kind: "show" });
		expect(parseHelpCommand("explain")).toEqual({ command: "help", kind: "explain" });
		expect(parseHelpCommand("I think it is 8")).toBeUndefined();
	});

	it("a wrong check, `again`, `hint`, the right answer, then `not sure`: each shown, the help line printed", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
			{ text: "Now check it.", calls: [checkQuiz("c1")] },
			{ text: "Make the denominators match first." }, // the hint side call
			{ text: "Right.", calls: [checkQuiz("c2")] },
			{ text: "Let's go over it together." },
		]);
		const tutor = createTutor({ model, store: await createSessionStore("memory://"), maxRetries: 0 });
		const events: TutorEvent[] = [];
		tutor.subscribe((e) => void events.push(e));
		const out = new PassThrough();
		let text = "";
		out.on("data", (c: Buffer) => {
			text += c.toString();
		});
		const lines = ["B", "A", "again", "hint", "B", "not sure"].map((l) => `${l}\n`);
		const result = await runPlayground({
			tutor,
			source: createLineSource(Readable.from(lines), out),
			output: out,
			topic: "fractions",
			plansDir: "/tmp/lh-struggle-plans",
		});
		await tutor.close();
		expect(result.outcome).toBe("input-ended");
		expect(text).toContain("On a quiz: hint, again (try again), explain (another way), not sure, show (the answer).");
		expect(text).toContain("Not quite");
		expect(text).toContain("Type again (or your next answer), hint, or show.");
		expect(text).toContain("Second try");
		expect(text).toContain("Hint: Make the denominators match first.");
		expect(text).toContain("correct on the second try, with a hint");
		expect(text).toContain("not sure");
		const results = events.filter((e): e is Extract<TutorEvent, { type: "answered" }> => e.type === "answered");
		expect(results.find((e) => e.toolCallId === "c1")?.result).toMatchObject({
			correct: true,
			attempts: [{ answer: "2/6", correct: false }],
			hinted: true,
		});
		expect(results.find((e) => e.toolCallId === "c2")?.result).toMatchObject({ notSure: true, correct: false });
	});
});
