import { afterAll, describe, expect, it } from "vitest";
import { toolParts } from "../../../src/core/transcript.ts";
import { harness, learner, scriptedModel, tempDir, toolResultsSent } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const worstCase = {
	question: "A list has 8 items. Checking one by one, how many do you check in the worst case? (type a number)",
	correctAnswer: "8",
};

describe("typed answers are judged, and the model sees the verdict", () => {
	it("`eight` is correct; words the judge cannot decide are recorded as unsure, without `correct`", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "quiz", input: worstCase, id: "q1" }] },
			{ text: "Right.", calls: [{ name: "quiz", input: { ...worstCase, acceptedAnswers: ["every item"] }, id: "q2" }] },
			{ text: "Let me look at that." },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:judged-1";
		await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);

		expect(await h.tutor.handle(sessionId, { type: "reply", toolCallId: "q1", text: "eight", by: learner })).toEqual({
			ok: true,
		});
		await h.tutor.idle(sessionId);
		const firstSeen = toolResultsSent(model.doStreamCalls[1]!).find((r) => r.toolName === "quiz");
		expect(JSON.stringify(firstSeen?.output)).toContain('"correct":true');

		const reply = { type: "reply", toolCallId: "q2", text: "all of them, I guess", by: learner } as const;
		expect(await h.tutor.handle(sessionId, reply)).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		// The undecided answer went to the grader (this mock has none: the teacher judges), shown as checking first.
		expect(h.of("answered").filter((a) => a.checking === true)).toHaveLength(1);
		const answered = h.of("answered").filter((a) => a.checking !== true);
		expect(answered.map((a) => a.result)).toEqual([
			{ answer: "eight", correct: true, by: learner },
			{ answer: "all of them, I guess", judged: "unsure", by: learner },
		]);
		const secondSeen = toolResultsSent(model.doStreamCalls[2]!).filter((r) => r.toolName === "quiz");
		const unsure = JSON.stringify(secondSeen.at(-1)?.output);
		expect(unsure).toContain('"judged":"unsure"');
		expect(unsure).toContain("all of them, I guess");
		expect(unsure).not.toContain('"correct"');

		const record = await h.store.get(sessionId);
		const outputs = [...toolParts(record!.messages)].map((p) => p.output);
		expect(outputs).toContainEqual({ answer: "eight", correct: true, by: learner });
		expect(outputs).toContainEqual({ answer: "all of them, I guess", judged: "unsure", by: learner });
		await h.tutor.close();
	});

	it("a typed option letter picks the option; a wrong single number is incorrect", async () => {
		const options = { question: "Which half goes?", options: ["Left", "Right"], correctAnswer: "Left" };
		const model = scriptedModel([
			{ calls: [{ name: "quiz", input: options, id: "q1" }] },
			{ calls: [{ name: "quiz", input: worstCase, id: "q2" }] },
			{ text: "Not quite: all 8." },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:judged-2";
		await h.tutor.startLesson({ sessionId, topic: "binary search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "q1", text: "(a)", by: learner });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "q2", text: "I'd say 7 items", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("answered").map((a) => a.result)).toEqual([
			{ answer: "Left", correct: true, by: learner },
			{ answer: "I'd say 7 items", correct: false, by: learner },
		]);
		await h.tutor.close();
	});
});
