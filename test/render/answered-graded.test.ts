import { describe, expect, it } from "vitest";
import { formatCard, type Styler } from "../../src/adapters/terminal/format.ts";
import { type AnsweredEvent, answeredCard, discordMessageText } from "../../src/render/index.ts";
import { renderChecked } from "./render-checked.ts";

const check = { type: "check" as const, question: "How many items do you check?", correctAnswer: "8" };
const by = { id: "u1", name: "Ada" };
const event = (result: AnsweredEvent["result"], checking = false): AnsweredEvent => ({
	type: "answered",
	sessionId: "discord:g:t",
	toolCallId: "call_1",
	kind: "quiz",
	quiz: check,
	result,
	...(checking ? { checking: true as const } : {}),
});
const plain: Styler = (_style, text) => text;

describe("a typed answer the grader checks", () => {
	it("shows a checking state (no verdict, no reveal) on Discord, Slack and the terminal", () => {
		const card = answeredCard(event({ answer: "all of them, I guess", judged: "unsure", by }, true));
		expect(card).toMatchObject({ checking: true });
		expect(card.reveal).toBeUndefined();
		const { discord, slack } = renderChecked(card);
		expect(discordMessageText(discord[0]!)).toContain("⏳ **Ada** answered **all of them, I guess**: checking…");
		expect(JSON.stringify(slack)).toContain(":hourglass_flowing_sand:");
		expect(JSON.stringify(slack)).not.toMatch(/Correct answer/);
		expect(formatCard(card, plain)).toContain("→ all of them, I guess: checking…");
	});

	it("then shows the verdict with the grader's one-line reason", () => {
		const reason = "All of the 8 items is 8.";
		const card = answeredCard(event({ answer: "all of them, I guess", correct: true, judged: "grader", reason, by }));
		expect(card).toMatchObject({ correct: true, reason });
		expect(card.checking).toBeUndefined();
		const { discord, slack } = renderChecked(card);
		expect(discordMessageText(discord[0]!)).toContain(`: correct. _${reason}_`);
		expect(JSON.stringify(slack)).toContain(reason);
		expect(formatCard(card, plain)).toContain(`✓ all of them, I guess: correct (${reason})`);
	});

	it("keeps a long reason within the platforms' limits", () => {
		const reason = "word ".repeat(400);
		renderChecked(answeredCard(event({ answer: "x", correct: false, judged: "grader", reason, by })));
	});
});
