import { PassThrough } from "node:stream";
import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import { createLineSource, runTerminalReview } from "../../../src/adapters/terminal/index.ts";
import { createLearning, createMemoryStateStore, sessionStoreOnKeyv } from "../../../src/agent/index.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { fractionsRecord } from "../../fixtures/profile-lesson.ts";

const noTutor = { subscribe: () => () => {}, idle: async () => {} } as unknown as Tutor;

describe("learnharness review (terminal)", () => {
	it("asks the due items one a line, grades them, and closes with what is due next", async () => {
		// Four days after the lesson: both checked nodes are due.
		const t = Date.parse("2026-03-05T12:00:00.000Z");
		const learning = createLearning({
			state: createMemoryStateStore(() => t),
			sessions: sessionStoreOnKeyv(new Keyv()),
			now: () => new Date(t),
		});
		await learning.recordLesson(fractionsRecord({ sessionId: "terminal:abc", learnerId: "terminal-learner" }));
		const input = new PassThrough();
		const output = new PassThrough();
		let printed = "";
		output.on("data", (chunk: Buffer) => {
			printed += chunk.toString();
		});
		input.end("B\n6\n");
		const result = await runTerminalReview({
			tutor: noTutor,
			learning: { learning },
			source: createLineSource(input, output),
			output,
		});
		expect(result.answered).toBe(2);
		expect(printed).toContain("Review 1 of 2");
		expect(printed).toContain("What is 1/2 + 1/3?");
		expect(printed).toMatch(/Right: 6/);
		expect(printed).toMatch(/Right: 5\/6/);
		expect(printed).toMatch(/Review done: 2 of 2 right\. Next review: in \d+ days/);
		expect((await learning.profile("terminal:terminal-learner"))?.reviewsDone).toBe(2);
	});
});
