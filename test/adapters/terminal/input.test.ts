import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLineSource, parseChoice, parseCommand } from "../../../src/adapters/terminal/input.ts";
import type { QuestionCard } from "../../../src/render/index.ts";

const card = (texts: string[]): QuestionCard => ({
	kind: "question",
	toolCallId: "t1",
	source: "quiz",
	heading: "Quiz",
	question: "?",
	choices: texts.map((text, index) => ({ index, letter: String.fromCharCode(65 + index), text })),
});

const sink = () => {
	const out = new PassThrough();
	let text = "";
	out.on("data", (chunk: Buffer) => {
		text += chunk.toString();
	});
	return { out, text: () => text };
};

describe("parseChoice", () => {
	const c = card(["Red", "Green", "Blue"]);

	it("takes a letter in either case, with or without a dot", () => {
		expect(parseChoice("b", c)).toBe(1);
		expect(parseChoice(" C. ", c)).toBe(2);
	});

	it("takes a 1-based number or the choice text", () => {
		expect(parseChoice("1", c)).toBe(0);
		expect(parseChoice("green", c)).toBe(1);
	});

	it("prefers a numeric choice's text over its position", () => {
		expect(parseChoice("1", card(["20", "1", "1,000,000"]))).toBe(1);
	});

	it("refuses what fits nothing", () => {
		expect(parseChoice("D", c)).toBeUndefined();
		expect(parseChoice("", c)).toBeUndefined();
		expect(parseChoice("purple", c)).toBeUndefined();
	});
});

describe("parseCommand", () => {
	it("knows /quit and /end, nothing else", () => {
		expect(parseCommand("/quit")).toEqual({ command: "quit" });
		expect(parseCommand(" /END ")).toEqual({ command: "end" });
		expect(parseCommand("quit")).toBeUndefined();
	});
});

describe("createLineSource", () => {
	it("reads one answer a line, skipping lines that fit no choice with a hint", async () => {
		const { out, text } = sink();
		const source = createLineSource(Readable.from(["zz\n", "B\n", "\n", "a free answer\n"]), out);
		expect(await source.choose(card(["x", "y"]))).toBe(1);
		expect(await source.text("Your answer")).toBe("a free answer");
		expect(await source.text("Your answer")).toBeUndefined();
		source.close();
		expect(text()).toMatch(/expected a letter A-B/);
		expect(text()).toMatch(/> B/);
	});

	it("returns commands typed instead of answers", async () => {
		const { out } = sink();
		const source = createLineSource(Readable.from(["/end\n", "/quit\n"]), out);
		expect(await source.choose(card(["x", "y"]))).toEqual({ command: "end" });
		expect(await source.text("You")).toEqual({ command: "quit" });
		source.close();
	});
});
