import { describe, expect, it } from "vitest";
import { type AnsweredEvent, answeredCard, discordMessageText } from "../../src/render/index.ts";
import { renderChecked } from "./render-checked.ts";

const unsure = (quiz: AnsweredEvent["quiz"], answer: string): AnsweredEvent => ({
	type: "answered",
	sessionId: "discord:g:t",
	toolCallId: "call_1",
	kind: "quiz",
	...(quiz ? { quiz } : {}),
	result: { answer, judged: "unsure", by: { id: "u1", name: "Ada" } },
});

describe("an answer the judge left to the model (judged: unsure, no correct)", () => {
	it("renders a neutral 'answered' line on both platforms, never right or wrong", () => {
		const free = answeredCard(unsure({ question: "How many?", correctAnswer: "8" }, "all of them, I guess"));
		expect(free.correct).toBeUndefined();
		const { discord, slack } = renderChecked(free);
		expect(discordMessageText(discord[0]!)).toContain("💬 **Ada** answered **all of them, I guess**.");
		const slackText = JSON.stringify(slack);
		expect(slackText).toContain(":speech_balloon:");
		for (const text of [discordMessageText(discord[0]!) ?? "", slackText]) {
			expect(text).not.toMatch(/not quite|: correct\./);
		}
	});

	it("a typed reply naming no single option highlights no option", () => {
		const quiz = { question: "Pick", options: ["Alpha", "Beta", "Gamma"], correctAnswer: "Beta" };
		const card = answeredCard(unsure(quiz, "beta or gamma"));
		expect(card.chosenIndex).toBeUndefined();
		const { discord } = renderChecked(card);
		expect(discordMessageText(discord[0]!)).toContain("answered **beta or gamma**.");
		expect(discordMessageText(discord[0]!)).not.toMatch(/not quite/);
	});
});

describe("an unsure check answer reveals nothing", () => {
	it("has no Correct answer line on Discord or Slack until a verdict exists", () => {
		const check = { type: "check" as const, question: "How many items do you check?", correctAnswer: "8" };
		const undecided = renderChecked(answeredCard(unsure(check, "all of them, I guess")));
		const missed = renderChecked(
			answeredCard({ ...unsure(check, "7"), result: { answer: "7", correct: false, by: { id: "u1", name: "Ada" } } }),
		);
		// The answer shows after the second miss (revealed), never on a verdict alone.
		const wrong = renderChecked(
			answeredCard({
				...unsure(check, "7"),
				result: { answer: "7", correct: false, revealed: true, by: { id: "u1", name: "Ada" } },
			}),
		);
		expect(JSON.stringify(undecided)).not.toMatch(/Correct answer/);
		expect(JSON.stringify(missed)).not.toMatch(/Correct answer/);
		expect(JSON.stringify(wrong.discord)).toMatch(/Correct answer/);
		expect(JSON.stringify(wrong.slack)).toMatch(/Correct answer/);
	});
});
