import { PassThrough } from "node:stream";
import { MockLanguageModelV3 } from "ai/test";
import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import { createLineSource, runTerminalReview } from "../../../src/adapters/terminal/index.ts";
import {
	createAnswerGrader,
	createLearning,
	createMemoryStateStore,
	sessionStoreOnKeyv,
} from "../../../src/agent/index.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { checksRecord, fractionsRecord } from "../../fixtures/profile-lesson.ts";

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

	it("takes a paraphrase through the grader, and explains 'I don't know' as a miss without grading it", async () => {
		const t = Date.parse("2026-03-05T12:00:00.000Z");
		let gradings = 0;
		const grader = new MockLanguageModelV3({
			doGenerate: async () => {
				gradings++;
				return {
					content: [{ type: "text", text: JSON.stringify({ verdict: "correct", reason: "Logarithmic is O(log n)." }) }],
					finishReason: { unified: "stop", raw: "stop" },
					usage: {
						inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: 0 },
						outputTokens: { total: 10, text: 10, reasoning: 0 },
					},
					warnings: [],
				};
			},
		});
		const learning = createLearning({
			state: createMemoryStateStore(() => t),
			sessions: sessionStoreOnKeyv(new Keyv()),
			now: () => new Date(t),
			grade: createAnswerGrader(grader, { maxRetries: 0 }),
		});
		const checks = [
			{ nodeId: "growth", question: "How does binary search's time grow?", correctAnswer: "O(log n)" },
			{
				nodeId: "sorted",
				question: "What must the list be?",
				correctAnswer: "sorted",
				explanation: "Halving only works when order tells which half holds the target.",
			},
		];
		await learning.recordLesson(checksRecord({ sessionId: "terminal:bs", learnerId: "terminal-learner" }, checks));
		const input = new PassThrough();
		const output = new PassThrough();
		let printed = "";
		output.on("data", (chunk: Buffer) => {
			printed += chunk.toString();
		});
		input.end("logarithmic\nI don't know\n");
		const result = await runTerminalReview({
			tutor: noTutor,
			learning: { learning },
			source: createLineSource(input, output),
			output,
		});
		expect(result.answered).toBe(2);
		expect(printed).toMatch(/Right: O\(log n\)/);
		expect(printed).toContain(
			"Not known yet, and that is fine: the answer is sorted. Why: Halving only works when order tells which half holds the target. It comes back sooner.",
		);
		expect(printed).toMatch(/Review done: 1 of 2 right/);
		expect(gradings).toBe(1); // the paraphrase only: "I don't know" is not sent to the grader
	});
});
