/**
 * Every render converter that sees model text is bounded: adversarial
 * inputs up to 100 KB each finish within a generous time bound (noisy
 * machines) and keep their contracts. Before the bounds, 100 KB of prose took
 * seconds in the Slack conversion and 50,000 spaces ~1.3 s in the splitter.
 */

import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { cardFromEvent } from "../../src/render/cards/from-event.ts";
import { MRKDWN_CONVERT_MAX_CHARS, markdownToMrkdwn } from "../../src/render/markdown.ts";
import { mermaidLabel } from "../../src/render/plan-source.ts";
import { splitMessage } from "../../src/render/split-message.ts";
import { finishesWithin, timed } from "../fixtures/time-bound.ts";

const SEED = 20_250_611;

/** slackify costs ~10-30 µs a character whatever we do, and the 2,000 characters it may see took up to ~450 ms on
 *  a machine loaded 4x: a wider bound for it alone, still far below the seconds the unbounded conversion took. */
const MARKDOWN_BOUND_MS = 600;

/** Runs of markdown syntax and whitespace (what makes parsers nest or backtrack), up to 100 KB, broken into lines or not. */
const fragment = fc.constantFrom(
	" ",
	"-",
	"--",
	"- ",
	"1. ",
	"> ",
	"[",
	"[[",
	"](",
	"*",
	"_",
	"`",
	"```",
	"~~~",
	'"',
	"<",
	"&",
	"#",
	"%%",
	"\\",
	"|",
	"\n",
	"\n\n",
	"a",
	"word ",
);
const adversarial = fc
	.tuple(
		fc.array(fragment, { minLength: 1, maxLength: 4 }),
		fc.integer({ min: 1, max: 100_000 }),
		fc.constantFrom(0, 80, 999),
	)
	.map(([parts, length, lineEvery]) => {
		const unit = parts.join("");
		const flat = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
		return lineEvery === 0 ? flat : (flat.match(new RegExp(`[\\s\\S]{1,${lineEvery}}`, "g")) ?? []).join("\n");
	});

describe("markdown to Slack mrkdwn: bounded", () => {
	// The first slackify call compiles its parser (hundreds of ms on a busy machine): the bound is about input, not start-up.
	beforeAll(() => {
		markdownToMrkdwn("# warm\n\n- a *b* [c](https://d.e)\n\n> f\n\n```\ng\n```");
	});

	const paragraph = "Some **bold** text with `code`, a [link](https://example.com) and _emphasis_ here. ".repeat(10);
	const lesson = Array.from({ length: 120 }, (_, i) =>
		i % 10 === 5 ? "```js\nconst x = 1;\n```" : `## Step ${i}\n\n${paragraph}`,
	).join("\n\n");

	it("converts 100 KB of lesson text in time, formatting the start and keeping every word", () => {
		const out = timed(() => markdownToMrkdwn(lesson), MARKDOWN_BOUND_MS);
		expect(out.startsWith("*Step 0*")).toBe(true);
		expect(out).toContain("<https://example.com|link>");
		// Past the budget the text is kept, escaped and unformatted.
		expect(out.slice(-200)).toContain("**bold**");
		expect(out.split("Step ").length).toBe(lesson.split("Step ").length);
	});

	it("formats all of a text within the budget", () => {
		const short = lesson.slice(0, MRKDWN_CONVERT_MAX_CHARS - 1_000);
		expect(markdownToMrkdwn(short)).not.toMatch(/\*\*bold\*\*/);
	});

	it("property: adversarial markdown converts in time, never throws, never lets a mention through", () => {
		fc.assert(
			fc.property(adversarial, fc.constantFrom("", "<!channel> ", "```\n"), (text, head) => {
				const out = timed(() => markdownToMrkdwn(head + text), MARKDOWN_BOUND_MS);
				expect(out).not.toMatch(/<!|<@/);
			}),
			{ seed: SEED, numRuns: 40 },
		);
	});
});

describe("message splitting: bounded", () => {
	it("property: adversarial text splits in time into chunks within the limit", () => {
		fc.assert(
			fc.property(adversarial, fc.constantFrom(2_000, 3_000), (text, limit) => {
				const chunks = timed(() => splitMessage(text, limit));
				for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(limit);
			}),
			{ seed: SEED, numRuns: 40 },
		);
	});

	it("trims a paragraph of 100,000 spaces in time", () => {
		expect(timed(() => splitMessage(`a${" ".repeat(100_000)}b\n\nc${" ".repeat(100_000)}`, 2_000))).toEqual([
			"a b\n\nc",
		]);
	});
});

describe("plan label escaping: bounded", () => {
	it("property: any label escapes in time, with no directive, comment, quote, backtick or angle bracket left", () => {
		fc.assert(
			fc.property(adversarial, (text) => {
				const label = timed(() => mermaidLabel(text));
				expect(label).not.toMatch(/%%|["`<>]/);
			}),
			{ seed: SEED, numRuns: 40 },
		);
	});
});

describe("regexes on long runs: bounded", () => {
	it("a fence marker of 40,000 tildes with a line separator splits at once (it gave back one tilde at a time: 3 s)", () => {
		const chunks = finishesWithin(() => splitMessage(`~~~${"~".repeat(40_000)}\u2028x`, 2_000), 1_000);
		for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(2_000);
	});

	it('an error message of 40,000 digits becomes a card at once ("(\\d+) steps" retried from every digit: 3 s)', () => {
		const message = `${"0".repeat(40_000)}t0 steps`;
		const card = finishesWithin(
			() => cardFromEvent({ type: "error", sessionId: "s", code: "model", message, retryable: false }),
			1_000,
		);
		expect(card).toBeDefined();
	});
});
