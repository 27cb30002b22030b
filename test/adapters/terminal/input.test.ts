import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
	createLineSource,
	createPromptSource,
	parseChoice,
	parseCommand,
} from "../../../src/adapters/terminal/input.ts";
import type { QuestionCard } from "../../../src/render/index.ts";
import { englishIn } from "../../fixtures/english-phrases.ts";

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
		const source = createLineSource(Readable.from(["z\n", "B\n", "why y?\n", "\n", "a free answer\n"]), out);
		expect(await source.choose(card(["x", "y"]))).toBe(1);
		// Words at a question go to the lesson as typed in a chat thread (it reads them: an answer, a question).
		expect(await source.choose(card(["x", "y"]))).toEqual({ command: "say", text: "why y?" });
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

describe("createPromptSource (the interactive prompts, fed keystrokes)", () => {
	/**
	 * One prompt on a fresh output (inquirer ends a piped output stream when a prompt closes;
	 * process.stdout is exempt, so the playground shares one), with `keys` typed once it has drawn itself.
	 */
	const prompt = <T>(
		input: PassThrough,
		keys: string[],
		ask: (source: ReturnType<typeof createPromptSource>) => Promise<T>,
	) => {
		const { out } = sink();
		// One key per macrotask, as a person types: a letter and Enter in one chunk would be one keypress.
		const typeNext = (rest: string[]): void => {
			const [key, ...more] = rest;
			if (key === undefined) return;
			setTimeout(() => {
				input.write(key);
				typeNext(more);
			}, 0);
		};
		out.once("data", () => typeNext(keys));
		return ask(createPromptSource(input, out));
	};

	it("picks with a letter, or with the arrow keys, then Enter", async () => {
		const input = new PassThrough();
		const c = card(["apple", "banana", "cherry"]);
		expect(await prompt(input, ["c", "\r"], (s) => s.choose(c))).toBe(2);
		expect(await prompt(input, ["\x1b[B", "\r"], (s) => s.choose(c))).toBe(1);
	});

	it("offers pause and end under the choices: /q picks pause, /e asks before ending", async () => {
		const input = new PassThrough();
		const c = card(["apple", "banana"]);
		expect(await prompt(input, ["/", "q", "\r"], (s) => s.choose(c))).toEqual({ command: "quit" });
		// "End the lesson now?" defaults to No: back to the choices, where "b" then picks banana.
		expect(await prompt(input, ["/", "e", "\r", "\r", "b", "\r"], (s) => s.choose(c))).toBe(1);
		expect(await prompt(input, ["/", "e", "\r", "y", "\r"], (s) => s.choose(c))).toEqual({ command: "end" });
	});

	it("asks before ending in the lesson's language: a German j means yes, n means no", async () => {
		const input = new PassThrough();
		const c: QuestionCard = { ...card(["Apfel", "Birne"]), locale: "de" };
		expect(await prompt(input, ["/", "e", "\r", "j", "\r"], (s) => s.choose(c))).toEqual({ command: "end" });
		expect(await prompt(input, ["/", "e", "\r", "n", "\r", "b", "\r"], (s) => s.choose(c))).toBe(1);
		const spanish: QuestionCard = { ...card(["manzana", "pera"]), locale: "es" };
		expect(await prompt(input, ["/", "e", "\r", "s", "\r"], (s) => s.choose(spanish))).toEqual({ command: "end" });
	});

	it("draws a German menu without English: its entries and its key help", async () => {
		const input = new PassThrough();
		const { out, text } = sink();
		const c: QuestionCard = { ...card(["Apfel", "Birne"]), locale: "de" };
		const keys = ["b", "\r"];
		const typeNext = (rest: string[]): void => {
			const [key, ...more] = rest;
			if (key !== undefined)
				setTimeout(() => {
					input.write(key);
					typeNext(more);
				}, 0);
		};
		out.once("data", () => typeNext(keys));
		expect(await createPromptSource(input, out).choose(c)).toBe(1);
		// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes, by design
		const screen = text().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
		expect(screen).toContain("↑↓ blättern • ⏎ auswählen");
		expect(englishIn(screen)).toEqual([]);
	});

	it("never wraps from the first choice to the entries below (Up stays on A)", async () => {
		const input = new PassThrough();
		expect(await prompt(input, ["\x1b[A", "\r"], (s) => s.choose(card(["x", "y"])))).toBe(0);
	});

	it("close() cancels a prompt on screen as a pause", async () => {
		const input = new PassThrough();
		const { out } = sink();
		const source = createPromptSource(input, out);
		out.once("data", () => setTimeout(() => source.close(), 0));
		expect(await source.choose(card(["x", "y"]))).toEqual({ command: "quit" });
	});

	it("reads free text, and turns Ctrl+C into a pause", async () => {
		const input = new PassThrough();
		expect(await prompt(input, ["  eight  \r"], (s) => s.text("Your answer"))).toBe("eight");
		expect(await prompt(input, ["/end\r"], (s) => s.text("You"))).toEqual({ command: "end" });
		expect(await prompt(input, ["\x03"], (s) => s.choose(card(["x", "y"])))).toEqual({ command: "quit" });
	});
});
