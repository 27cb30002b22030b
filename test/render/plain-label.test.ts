/**
 * Control labels as plain text: Discord's buttons and select options and Slack's `plain_text` show the
 * model's markdown literally (`**n**`), so the marks go and the words stay.
 */

import { describe, expect, it } from "vitest";
import { plainLabel } from "../../src/render/cards/plain-label.ts";
import { cardFromEvent, toDiscordMessages, toSlackMessages } from "../../src/render/index.ts";

describe("plainLabel", () => {
	it("drops emphasis, code, strike-through, link and math marks; keeps words and TeX", () => {
		const cases: [string, string][] = [
			["**n** steps", "n steps"],
			["__bold__ and *soft* and _soft_", "bold and soft and soft"],
			["`O(log n)`", "O(log n)"],
			["~~old~~ new", "old new"],
			["see [the docs](https://example.com/x)", "see the docs"],
			["$x^2 + 1$", "x^2 + 1"],
			["$$\\frac{1}{2}$$", "\\frac{1}{2}"],
			["\\(x^2\\)", "x^2"],
		];
		for (const [text, label] of cases) expect(plainLabel(text)).toBe(label);
	});

	it("leaves what only looks like markdown: products, snake_case, a lone star", () => {
		for (const text of ["2*3*4", "snake_case_name", "a * b", "5 * (2 + 3)", "price: $5"])
			expect(plainLabel(text)).toBe(text);
	});
});

describe("choice labels on the platforms", () => {
	it("a quiz's options show their words on Discord buttons and Slack buttons, not the markdown", () => {
		const event = {
			type: "quiz" as const,
			sessionId: "discord:g:t",
			toolCallId: "call_1",
			input: { question: "Which is the loop count?", options: ["**n**", "`n - 1`", "*2n*"], correctAnswer: "**n**" },
		};
		const card = cardFromEvent(event);
		if (!card) throw new Error("no card");
		const discord = JSON.stringify(toDiscordMessages(card));
		expect(discord).toContain('"label":"A. n"');
		expect(discord).toContain('"label":"B. n - 1"');
		expect(discord).toContain('"label":"C. 2n"');
		const slack = JSON.stringify(toSlackMessages(card));
		expect(slack).toContain('"text":"A. n"');
		expect(slack).not.toContain("**n**");
	});
});
