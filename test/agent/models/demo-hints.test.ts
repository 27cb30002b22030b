import { describe, expect, it } from "vitest";
import { hintPrompt } from "../../../src/agent/engine/hint-call.ts";
import { planDemoReply } from "../../../src/agent/models/demo-model.ts";
import { HINT_REQUEST_MARKER } from "../../../src/core/contracts/side-calls.ts";

const quiz = { question: "How many items are left?", options: ["4", "8"], correctAnswer: "4" };
const request = (text: string) => ({
	prompt: [
		{ role: "system" as const, content: `${HINT_REQUEST_MARKER}\nGive one hint.` },
		{ role: "user" as const, content: [{ type: "text" as const, text }] },
	],
});

describe("the demo model's hints", () => {
	it("answers the hint side call deterministically, without the answer, naming the learner's try", () => {
		const first = planDemoReply(request(hintPrompt(quiz, [{ answer: "8", correct: false }], [])));
		expect(first).toEqual(planDemoReply(request(hintPrompt(quiz, [{ answer: "8", correct: false }], []))));
		expect(first.call).toBeUndefined();
		expect(first.text).toContain("You tried 8");
		const next = planDemoReply(request(hintPrompt(quiz, [], ["an earlier hint"])));
		expect(next.text).not.toBe(first.text);
		expect(planDemoReply(request(hintPrompt(quiz, [], []))).text).toMatch(/comparison/);
	});

	it("plays the lesson as before when the request is not a hint request", () => {
		const reply = planDemoReply({ prompt: [{ role: "system", content: "You are the prober." }] });
		expect(reply.text).toContain("demo model");
	});
});
