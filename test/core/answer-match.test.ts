import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AnswerJudgement, judgeAnswer, saysDontKnow } from "../../src/core/answer-match.ts";
import { type OptionPick, pickTypedOption } from "../../src/core/answer-options.ts";
import { cpuMs, finishesWithin } from "../fixtures/time-bound.ts";

type Case = [given: string, expected: string, verdict: AnswerJudgement, accepted?: string[]];

const FREE_ANSWERS: Record<string, Case[]> = {
	"numbers in words and digits": [
		["eight", "8", "correct"],
		["Eight.", "8", "correct"],
		["8", "eight", "correct"],
		["twenty-one", "21", "correct"],
		["twenty one", "21", "correct"],
		["one hundred and five", "105", "correct"],
		["a thousand", "1000", "correct"],
		["1,000", "1000", "correct"],
		["two million", "2,000,000", "correct"],
		["minus three", "-3", "correct"],
		["three point one four", "3.14", "correct"],
		["1e3", "1000", "correct"],
		["10.0", "10", "correct"],
		["nine", "8", "incorrect"],
		["-3", "3", "incorrect"],
	],
	"fractions, decimals and percentages": [
		["a half", "0.5", "correct"],
		["half", "1/2", "correct"],
		["one and a half", "1.5", "correct"],
		["three quarters", "3/4", "correct"],
		["two thirds", "2/3", "correct"],
		["a third", "1/3", "correct"],
		["0.33", "1/3", "correct"],
		["0.3", "1/3", "incorrect"],
		["3.1416", "3.14", "correct"],
		["3.14", "3.1416", "incorrect"],
		["½", "0.5", "correct"],
		["50%", "0.5", "correct"],
		["fifty percent", "0.5", "correct"],
		["0.5", "50%", "correct"],
		["50%", "50", "unsure"],
		["2/3", "3/4", "incorrect"],
	],
	ordinals: [
		["eighth", "8", "correct"],
		["the 8th", "8", "correct"],
		["the fourth", "8", "unsure"],
		["the fourth", "8th", "incorrect"],
		["the twenty-third", "23rd", "correct"],
	],
	"a number inside a sentence": [
		["the middle one, 8", "8", "correct"],
		["I think it's 8 steps", "8", "correct"],
		["8 because the item may be the last one", "8", "correct"],
		["you check all 8 of the 8 items", "8", "correct"],
		["8 or 9", "8", "unsure"],
		["not 8", "8", "unsure"],
		["first 7, then 8", "8", "unsure"],
		["I'd say 9 steps", "8", "incorrect"],
		["all of them", "8", "unsure"],
	],
	units: [
		["8 items", "8", "correct"],
		["8 cm", "8 cm", "correct"],
		["8", "8 cm", "correct"],
		["8 centimetres", "8 cm", "correct"],
		["8cm", "8 cm", "correct"],
		["8 mm", "8 cm", "incorrect"],
		["8 seconds", "8 s", "correct"],
		["8 steps", "8 comparisons", "correct"],
		["8 cm", "8 items", "unsure"],
	],
	"text, yes/no and named values": [
		["The Chain Rule.", "chain rule", "correct"],
		["chain rule", "the chain rule", "correct"],
		["I think it's the chain rule", "chain rule", "correct"],
		["not the chain rule", "chain rule", "unsure"],
		["the product rule", "chain rule", "unsure"],
		["Café", "cafe", "correct"],
		["x^2", "x^2", "correct"],
		["x = 4", "x=4", "correct"],
		["4", "x = 4", "correct"],
		["5", "x = 4", "incorrect"],
		["no", "yes", "incorrect"],
		["Yes, it does", "yes", "correct"],
		["No, it doesn't", "no", "correct"],
		["not true", "true", "unsure"],
		["yes and no", "yes", "unsure"],
	],
	"accepted alternatives": [
		["all of them", "8", "correct", ["all of them", "every item"]],
		["Every item.", "8", "correct", ["all of them", "every item"]],
		["9", "8", "incorrect", ["all of them"]],
		["O(log n)", "logarithmic", "correct", ["O(log n)", "log n"]],
		["quadratic", "logarithmic", "unsure", ["O(log n)"]],
	],
	"other scripts, empty and noise": [
		["huit", "8", "unsure"],
		["八", "8", "unsure"],
		["восемь", "8", "unsure"],
		["восемь", "восемь", "correct"],
		["", "8", "unsure"],
		["   \t ", "8", "unsure"],
		["???", "8", "unsure"],
		["🙂", "chain rule", "unsure"],
	],
};

describe("judgeAnswer (free answers)", () => {
	for (const [group, cases] of Object.entries(FREE_ANSWERS))
		describe(group, () => {
			it.each(cases)("%j against %j is %s", (given, expected, verdict, accepted) => {
				expect(judgeAnswer(given, expected, accepted)).toBe(verdict);
			});
		});
});

const GREEK = ["Alpha", "Beta", "Gamma"];
const pick = (index: number): OptionPick => ({ ok: true, index });
const OPTIONS: Array<[reply: string, options: string[], pick: OptionPick]> = [
	["B", GREEK, pick(1)],
	["b", GREEK, pick(1)],
	["b)", GREEK, pick(1)],
	["(b)", GREEK, pick(1)],
	["option b", GREEK, pick(1)],
	["Option B.", GREEK, pick(1)],
	["I'd go with C", GREEK, pick(2)],
	["option 2", GREEK, pick(1)],
	["BETA!", GREEK, pick(1)],
	["  beta ", GREEK, pick(1)],
	["I think it's beta", GREEK, pick(1)],
	["b) Beta", GREEK, pick(1)],
	["b) Alpha", GREEK, { ok: false, why: "ambiguous" }],
	["beta or gamma", GREEK, { ok: false, why: "ambiguous" }],
	["not alpha", GREEK, { ok: false, why: "ambiguous" }],
	["delta", GREEK, { ok: false, why: "none" }],
	["f(a)", GREEK, { ok: false, why: "none" }],
	["A", GREEK, pick(0)],
	["option z", GREEK, { ok: false, why: "none" }],
	["eight", ["4", "8", "16"], pick(1)],
	["the 4th item, 8", ["4", "8", "16"], pick(1)],
	["8 or 16", ["4", "8", "16"], { ok: false, why: "ambiguous" }],
	["the chain rule", ["rule", "chain rule"], pick(1)],
	["No, because the pile is not sorted", ["Yes", "No"], { ok: false, why: "ambiguous" }],
	["no", ["Yes", "No"], pick(1)],
	["lo = 4, hi = 6", ["lo = 3, hi = 6", "lo = 4, hi = 6"], pick(1)],
	["", GREEK, { ok: false, why: "none" }],
];

describe("pickTypedOption", () => {
	it.each(OPTIONS)("%j among %j", (reply, options, expected) => {
		expect(pickTypedOption(reply, options)).toEqual(expected);
	});
});

describe("bounds", () => {
	it("never throws and is deterministic (seeded, bounded)", () => {
		const text = fc.oneof(
			fc.string({ maxLength: 200 }),
			fc.constantFrom("eight", "a half", "8 cm", "(b)", "not 8", "1/0", "1e999", "-.5", "twenty-", "and a"),
		);
		fc.assert(
			fc.property(text, text, fc.array(text, { maxLength: 3 }), (given, expected, accepted) => {
				const first = judgeAnswer(given, expected, accepted);
				expect(["correct", "incorrect", "unsure"]).toContain(first);
				expect(judgeAnswer(given, expected, accepted)).toBe(first);
				expect(pickTypedOption(given, [expected, ...accepted])).toEqual(
					pickTypedOption(given, [expected, ...accepted]),
				);
			}),
			{ seed: 20260912, numRuns: 400 },
		);
	});

	it("an answer says itself (when it says anything)", () => {
		fc.assert(
			fc.property(fc.string({ maxLength: 100 }), (s) => {
				const verdict = judgeAnswer(s, s);
				expect(verdict === "correct" || /^[\s\p{P}\p{S}]*$/u.test(s)).toBe(true);
			}),
			{ seed: 7, numRuns: 300 },
		);
	});

	it("2,000-character answers against 500-character candidates take milliseconds, whatever they hold", () => {
		const hostile = [
			"one ".repeat(500),
			"1,000,".repeat(333),
			"a ".repeat(1000),
			"twenty-".repeat(285),
			"(b) ".repeat(500),
			"8 or ".repeat(400),
			"x".repeat(2000),
			"1/2/3/4/".repeat(250),
		];
		const options = Array.from({ length: 100 }, (_, i) => `${"a ".repeat(240)}${i}`);
		const started = cpuMs(); // CPU time: a loaded machine's wait for a core is not this work
		for (const given of hostile) {
			judgeAnswer(
				given,
				"a ".repeat(250),
				Array.from({ length: 20 }, () => "one ".repeat(120)),
			);
			pickTypedOption(given, options);
		}
		expect(cpuMs() - started).toBeLessThan(1500);
	});
});

describe("saysDontKnow: 'I don't know' is an answer (not known), never a guess to judge", () => {
	it.each([
		"I don't know",
		"i dont know",
		"No idea.",
		"not sure",
		"I'm not sure!",
		"idk",
		"dunno",
		"Honestly, no idea, sorry",
		"I have no clue",
		"🤷",
		"🤷‍♀️",
	])("%s", (text) => {
		expect(saysDontKnow(text)).toBe(true);
	});

	it.each(["not sure, maybe 8", "I don't know, 8?", "no", "know", "the middle one", "I know it", "x".repeat(500)])(
		"%s is an answer to judge",
		(text) => {
			expect(saysDontKnow(text)).toBe(false);
		},
	);

	it("answers at once on a shrug with 40 variation selectors and a letter (it backtracked exponentially: never)", () => {
		const shrug = `🤷${"\ufe0f".repeat(40)}x`;
		expect([...shrug].length).toBe(42);
		expect(finishesWithin(() => saysDontKnow(shrug), 1_000)).toBe(false);
		expect(finishesWithin(() => saysDontKnow(`🤷${"\ufe0f".repeat(40)}`), 1_000)).toBe(true);
		expect(saysDontKnow(" 🤷🏽\u200d\u2642\ufe0f ")).toBe(true);
	});
});
