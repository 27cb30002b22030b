import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { createStyler, formatCard, formatMarkdown, wrapText } from "../../../src/adapters/terminal/format.ts";

const plain = createStyler(false);
const color = createStyler(true);

describe("terminal formatting", () => {
	it("letters a question's choices and shows its framing", () => {
		const text = formatCard(
			{
				kind: "question",
				toolCallId: "t",
				source: "quiz",
				heading: "Predict",
				framing: "Guess first.",
				question: "Which is **sorted**?",
				choices: [
					{ index: 0, letter: "A", text: "[1, 2]" },
					{ index: 1, letter: "B", text: "[2, 1]" },
				],
			},
			plain,
		);
		expect(text.split("\n")).toEqual(["? Predict", "Guess first.", "Which is sorted?", "  A. [1, 2]", "  B. [2, 1]"]);
	});

	it("shows a wrong check answer with the right one and why", () => {
		const text = formatCard(
			{
				kind: "answered",
				toolCallId: "t",
				source: "quiz",
				heading: "Check",
				choices: [
					{ index: 0, letter: "A", text: "yes" },
					{ index: 1, letter: "B", text: "no" },
				],
				chosenIndex: 0,
				answer: "yes",
				by: { id: "u" },
				correct: false,
				reveal: { correctAnswer: "no", correctIndex: 1, explanation: "Because." },
			},
			plain,
		);
		expect(text).toMatch(/✗ A\. yes: not quite/);
		expect(text).toMatch(/The answer: B\. no/);
		expect(text).toMatch(/Because\./);
	});

	it("frames a recap and lists an assessment's strands", () => {
		expect(
			formatCard({ kind: "explain", toolCallId: "t", role: "recap", title: "Recap: X", body: "b" }, plain),
		).toMatch(/^Recap: X\n/);
		// A title that repeats the heading, in the card's language, is said once.
		const recap = (title: string, locale: "en" | "de") =>
			formatCard({ kind: "explain", toolCallId: "t", role: "recap", title, body: "b", locale }, plain).split("\n")[0];
		expect(recap("Zusammenfassung", "de")).toBe("Zusammenfassung");
		expect(recap("Zusammenfassung: Brüche", "de")).toBe("Zusammenfassung: Brüche");
		expect(recap("Recap", "en")).toBe("Recap");
		expect(recap("Brüche", "de")).toBe("Zusammenfassung: Brüche");
		const assessment = formatCard(
			{ kind: "assessment", toolCallId: "t", strands: [{ strand: "s1", assessment: "a1" }], summary: "sum" },
			plain,
		);
		expect(assessment).toMatch(/• s1: a1/);
		expect(assessment).toMatch(/sum/);
	});

	it("uses ANSI styles only when asked", () => {
		expect(formatMarkdown("**b** and `c`", plain)).toBe("b and c");
		expect(formatMarkdown("**b**", color)).not.toBe("b");
		expect(formatMarkdown("# Title", plain)).toBe("Title");
	});
});

describe("wrapText", () => {
	const width = (text: string) => Math.max(...text.split("\n").map((l) => stripVTControlCharacters(l).length));

	it("wraps at word boundaries to the width, keeping every word", () => {
		const text = "Binary search finds an item in a sorted list by halving the range it still has to look at.";
		const wrapped = wrapText(text, 30);
		expect(width(wrapped)).toBeLessThanOrEqual(30);
		expect(wrapped.split("\n").length).toBeGreaterThan(2);
		expect(wrapped.replace(/\n/g, " ")).toBe(text);
	});

	it("hangs a list item's continuation under its text and ignores ANSI styles when measuring", () => {
		const item = `  • ${color("bold", "Halving")}: comfortable with log2, so the step count can be brief and quick.`;
		const lines = wrapText(item, 40).split("\n");
		expect(lines.length).toBeGreaterThan(1);
		for (const line of lines.slice(1)) expect(line.startsWith("    ") && !line.startsWith("     ")).toBe(true);
		expect(width(lines.join("\n"))).toBeLessThanOrEqual(40);
	});

	it("leaves code, indented commands and narrow widths alone", () => {
		const code = `\`\`\`\n${"x = 1; ".repeat(20)}\n\`\`\``;
		expect(wrapText(code, 30)).toBe(code);
		const command = `    node bin/learnharness.js playground --resume terminal:${"a".repeat(10)}`;
		expect(wrapText(command, 30)).toBe(command);
		expect(wrapText("a b c ".repeat(20), 10)).toBe("a b c ".repeat(20));
	});
});
