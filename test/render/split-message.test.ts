import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitMessage } from "../../src/render/index.ts";

const word = fc.stringMatching(/^[a-zA-Z0-9éü🚀,'()]{1,12}$/u);
const sentence = fc.array(word, { minLength: 1, maxLength: 30 }).map((ws) => `${ws.join(" ")}.`);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 12 }).map((ss) => ss.join(" "));
const codeBlock = fc
	.array(fc.stringMatching(/^[a-z =;(){}0-9]{0,70}$/), { minLength: 1, maxLength: 60 })
	.map((lines) => `\`\`\`ts\n${lines.join("\n")}\n\`\`\``);
const markdown = fc.array(fc.oneof({ weight: 3, arbitrary: paragraph }, { weight: 1, arbitrary: codeBlock }), {
	minLength: 1,
	maxLength: 12,
});

const squash = (s: string): string => s.replace(/\s+/g, "");
const fenceLines = (s: string): number => s.split("\n").filter((l) => /^```/.test(l)).length;

describe("splitMessage", () => {
	it("keeps every chunk within the limit, fences balanced, nothing lost", () => {
		fc.assert(
			fc.property(markdown, fc.integer({ min: 60, max: 3000 }), (blocks, limit) => {
				const text = blocks.join("\n\n");
				const chunks = splitMessage(text, limit);
				for (const chunk of chunks) {
					expect(chunk.length).toBeLessThanOrEqual(limit);
					expect(chunk.trim()).not.toBe("");
					expect(fenceLines(chunk) % 2).toBe(0);
				}
				// Only fences are added (when a code block is split): the rest of the text is intact and in order.
				const strip = (s: string): string => squash(s.replace(/^```(ts)?$/gm, ""));
				expect(strip(chunks.join("\n"))).toBe(strip(text));
			}),
			{ numRuns: 300 },
		);
	});

	it("closes a fence the text left open, short or long", () => {
		expect(splitMessage("```js\n```\n\n```", 2000)).toEqual(["```js\n```\n\n```\n```"]);
		expect(splitMessage("Look:\n```py\nprint(1)", 2000)).toEqual(["Look:\n\n```py\nprint(1)\n```"]);
		const long = `Intro.\n\n\`\`\`\n${"x = 1\n".repeat(200)}`;
		for (const chunk of splitMessage(long, 300)) expect(fenceLines(chunk) % 2).toBe(0);
		// Balanced text within the limit is left exactly as written.
		expect(splitMessage("a\n\n\n```\nb\n```", 2000)).toEqual(["a\n\n\n```\nb\n```"]);
	});

	it("never cuts inside a word when every word fits", () => {
		fc.assert(
			fc.property(
				fc.array(paragraph, { minLength: 1, maxLength: 8 }),
				fc.integer({ min: 40, max: 500 }),
				(paras, limit) => {
					const text = paras.join("\n\n");
					const words = new Set(text.split(/\s+/));
					for (const chunk of splitMessage(text, limit))
						for (const w of chunk.split(/\s+/)) expect(words.has(w), `fragment ${JSON.stringify(w)}`).toBe(true);
				},
			),
			{ numRuns: 300 },
		);
	});

	it("prefers paragraph, then sentence boundaries", () => {
		const a = "First paragraph is here.";
		const b = "Second one. It has two sentences.";
		expect(splitMessage(`${a}\n\n${b}`, 40)).toEqual([a, b]);
		expect(splitMessage("One sentence here. Another sentence there.", 25)).toEqual([
			"One sentence here.",
			"Another sentence there.",
		]);
	});

	it("splits an over-long code block into separately fenced pieces", () => {
		const lines = Array.from({ length: 40 }, (_, i) => `const value${i} = ${i};`);
		const text = `Intro.\n\n\`\`\`ts\n${lines.join("\n")}\n\`\`\`\n\nOutro.`;
		const chunks = splitMessage(text, 200);
		const codeChunks = chunks.filter((c) => c.includes("const value"));
		expect(codeChunks.length).toBeGreaterThan(1);
		for (const c of codeChunks) {
			expect(c).toMatch(/```ts\n[\s\S]*\n```/);
			expect(fenceLines(c)).toBe(2);
			expect(c.length).toBeLessThanOrEqual(200);
		}
		expect(chunks.join("\n")).toContain("const value39 = 39;");
	});

	it("cuts a single over-long word only as a last resort, never inside a surrogate pair", () => {
		const text = "🚀".repeat(30);
		const chunks = splitMessage(text, 17);
		for (const c of chunks) {
			expect(c.length).toBeLessThanOrEqual(17);
			expect(c).not.toMatch(/[\uD800-\uDBFF]$/);
		}
		expect(chunks.join("")).toBe(text);
	});

	it("returns [] for blank text and rejects absurd limits", () => {
		expect(splitMessage("  \n ", 100)).toEqual([]);
		expect(() => splitMessage("x", 5)).toThrow(RangeError);
	});
});
