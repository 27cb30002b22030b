/**
 * The text side of math, tables and code: what is math (and what is a price), tables as
 * aligned code blocks, long code as a file, and message splits that keep every fence
 * balanced (a property over random markdown with fences).
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	discordMessageText,
	findMath,
	longCodeToFiles,
	mathAsCode,
	splitMessage,
	TABLE_MAX_WIDTH,
	tablesToCode,
	toDiscordMessages,
} from "../../src/render/index.ts";
import { cpuMs, finishesWithin } from "../fixtures/time-bound.ts";

const fences = (text: string): number => (text.match(/^\s{0,3}```/gm) ?? []).length;

describe("findMath", () => {
	it("finds all four delimiters and leaves prices, escaped dollars and code alone", () => {
		const text = `${String.raw`It costs $5 and $10. Here $x^2$, $$\frac12$$, \(a+b\), \[c\], \$d$ and `}\`$e$\`.`;
		expect(findMath(text).map((s) => [s.tex, s.display])).toEqual([
			["x^2", false],
			[String.raw`\frac12`, true],
			["a+b", false],
			["c", true],
		]);
		expect(findMath("$5 and $10")).toEqual([]);
		expect(findMath("pay $ 5$ now")).toEqual([]);
		expect(findMath("```\n$$x$$\n```")).toEqual([]);
	});

	it("keeps the TeX as a code span where the formula was", () => {
		expect(mathAsCode("so $x^2$ grows")).toBe("so `x^2` grows");
	});

	it("is linear on hostile input", () => {
		const hostile = `${"$a ".repeat(40_000)}${"\\[".repeat(20_000)}${"`".repeat(10_000)}`;
		const started = cpuMs(); // CPU time: a loaded machine's wait for a core is not this work
		findMath(hostile);
		expect(cpuMs() - started).toBeLessThan(500);
	});
});

describe("tables", () => {
	it("become an aligned code block with bounded width; long cells end in an ellipsis", () => {
		const long = "a very long cell that goes on and on and on";
		const md = `Compare:\n\n| n | square | note |\n|---|---:|---|\n| 2 | 4 | even |\n| 3 | 9 | ${long} |\n\nDone.`;
		const out = tablesToCode(md);
		expect(out).not.toMatch(/^\|/m);
		const block = out.split("```")[1]!.trim().split("\n");
		expect(block[0]).toBe("n | square | note");
		expect(block[2]).toBe("2 |      4 | even");
		expect(block[3]).toContain("…");
		for (const line of block) expect(line.length).toBeLessThanOrEqual(TABLE_MAX_WIDTH);
		expect(discordMessageText(toDiscordMessages({ kind: "text", tone: "plain", text: md })[0]!)).toContain(
			"```\nn | square",
		);
	});

	it("inside a code fence stay as they are", () => {
		const md = "```\n| a | b |\n|---|---|\n```";
		expect(tablesToCode(md)).toBe(md);
	});

	// The delimiter regex had `\s*` on both sides of each pipe: cubic on a line of tabs (4,000 took 5-11 s).
	const tabs = (n: number) => "\t".repeat(n);

	it("a delimiter line of 4,000 tabs around a dash is no delimiter, and is rendered at once", () => {
		const md = `| a | b |\n${tabs(1_333)}-${tabs(2_667)}x`;
		expect(finishesWithin(() => tablesToCode(md), 1_000)).toBe(md);
		const [message] = finishesWithin(() => toDiscordMessages({ kind: "text", tone: "plain", text: md }), 2_000);
		expect(discordMessageText(message ?? {})).toContain("| a | b |");
	});

	it("a table whose delimiter line holds 4,000 tabs is rendered at once", () => {
		const md = `| a | b |\n|${tabs(2_000)}---${tabs(2_000)}|:-:|\n| 1 | 2 |`;
		expect(finishesWithin(() => tablesToCode(md), 1_000)).toBe("```\na | b\n--+--\n1 | 2\n```");
	});

	it.each([
		["|---|:--:|", true],
		[" --- | ---: ", true],
		["|-|", true],
		["---|", true],
		["| - - |", false],
		["|---||", false],
		["||---|", false],
		["| : |", false],
	])("%j is a delimiter: %s", (delimiter, table) => {
		expect(tablesToCode(`| a | b |\n${delimiter}`).startsWith("```")).toBe(table);
	});
});

describe("code", () => {
	it("a 5,000-character answer with two code blocks splits with every fence balanced and languages kept", () => {
		const block = (lang: string, n: number) =>
			`\`\`\`${lang}\n${Array.from({ length: n }, (_, i) => `value_${i} = compute(${i})  # step ${i}`).join("\n")}\n\`\`\``;
		const text = `${"Some prose about the idea. ".repeat(60)}\n\n${block("python", 40)}\n\nMore words.\n\n${block("js", 40)}`;
		expect(text.length).toBeGreaterThan(3500);
		const chunks = splitMessage(text, 2000);
		expect(chunks.length).toBeGreaterThan(1);
		for (const c of chunks) expect(fences(c) % 2).toBe(0);
		// A block cut in two reopens with its language.
		expect(chunks.filter((c) => c.includes("```python")).length).toBeGreaterThanOrEqual(1);
		for (const c of chunks) if (/^value_\d/m.test(c)) expect(c).toMatch(/```(python|js)\n/);
	});

	it("longer than the bound goes as a file named by its language, with a preview", () => {
		const code = Array.from({ length: 100 }, (_, i) => `print(${i})`).join("\n");
		const { text, files } = longCodeToFiles(`Look:\n\n\`\`\`python\n${code}\n\`\`\``, 500);
		expect(files.map((f) => f.filename)).toEqual(["snippet.py"]);
		expect(text).toContain("```python\nprint(0)");
		expect(text).not.toContain("print(99)");
		expect(fences(text) % 2).toBe(0);
	});

	it("property: any split of random markdown with fences keeps fences balanced per message", () => {
		// Text lines may hold backticks, but not at the start: a line of backticks is itself a fence marker (and a
		// run of four opens a fence only four close), which this oracle's simple count does not model.
		const line = fc.stringMatching(/^([a-z $|*][a-z $`|*]{0,59})?$/);
		const part = fc.oneof(
			line,
			fc
				.tuple(fc.constantFrom("", "py", "ts", "sh"), fc.array(line, { maxLength: 30 }), fc.boolean())
				.map(([lang, lines, closed]) => [`\`\`\`${lang}`, ...lines, ...(closed ? ["```"] : [])].join("\n")),
		);
		fc.assert(
			fc.property(fc.array(part, { maxLength: 20 }), fc.integer({ min: 16, max: 400 }), (parts, limit) => {
				for (const chunk of splitMessage(parts.join("\n\n"), limit)) {
					expect(chunk.length).toBeLessThanOrEqual(limit);
					expect(fences(chunk) % 2).toBe(0);
				}
			}),
			{ numRuns: 300, seed: 20261201 },
		);
	});
});
