/**
 * The shared lesson rules: normalizing whatever a store returns, the channel
 * check, and applying an admin's change (reset, allow, disallow, limit, mode, curated topics).
 */

import { describe, expect, it } from "vitest";
import {
	applyLessonRulesChange,
	channelAllowed,
	DEFAULT_LESSON_RULES,
	isLessonMode,
	type LessonRules,
	normalizeLessonRules,
	normalizeTopics,
	parseTopicsSetting,
} from "../../../src/adapters/lesson/lesson-rules.ts";

/** The cost-cap fields at their defaults (no caps, no prices). */
const NO_CAPS = {
	serverTokensPerDay: 0,
	memberTokensPerDay: 0,
	prices: {},
	voteSeconds: 60,
	voteNames: false,
	topics: [],
	membersAddMaterial: false,
};

describe("lesson rules", () => {
	it("normalizes stored values field by field, falling back to the defaults", () => {
		expect(normalizeLessonRules(undefined)).toEqual(DEFAULT_LESSON_RULES);
		expect(normalizeLessonRules("garbage")).toEqual(DEFAULT_LESSON_RULES);
		expect(normalizeLessonRules({ channels: ["1", 2, "1", ""], lessonsPerDay: -3, defaultMode: "party" })).toEqual({
			channels: ["1"],
			lessonsPerDay: 0,
			defaultMode: "solo",
			...NO_CAPS,
		});
		const defaults: LessonRules = { channels: ["9"], lessonsPerDay: 2, defaultMode: "group", ...NO_CAPS };
		expect(normalizeLessonRules({ lessonsPerDay: 4.7 }, defaults)).toEqual({
			channels: ["9"],
			lessonsPerDay: 4,
			defaultMode: "group",
			...NO_CAPS,
		});
		expect(normalizeLessonRules({ lessonsPerDay: Number.POSITIVE_INFINITY }, defaults).lessonsPerDay).toBe(2);
	});

	it("keeps group vote settings bounded: vote_seconds clamped to 10-600, names off by default", () => {
		expect(applyLessonRulesChange(DEFAULT_LESSON_RULES, { voteSeconds: 5 }).voteSeconds).toBe(10);
		expect(applyLessonRulesChange(DEFAULT_LESSON_RULES, { voteSeconds: 99_999 }).voteSeconds).toBe(600);
		expect(applyLessonRulesChange(DEFAULT_LESSON_RULES, { voteSeconds: 45, voteNames: true })).toMatchObject({
			voteSeconds: 45,
			voteNames: true,
		});
		expect(normalizeLessonRules({ voteSeconds: "long", voteNames: "yes" })).toMatchObject({
			voteSeconds: 60,
			voteNames: false,
		});
	});

	it("allows every channel when none is listed, else only the listed ones", () => {
		expect(channelAllowed(DEFAULT_LESSON_RULES, "C1")).toBe(true);
		const rules = { ...DEFAULT_LESSON_RULES, channels: ["C1"] };
		expect(channelAllowed(rules, "C1")).toBe(true);
		expect(channelAllowed(rules, "C2")).toBe(false);
	});

	it("applies a change: allow and disallow, replace, limit, mode, and reset to the given defaults", () => {
		let rules = applyLessonRulesChange(DEFAULT_LESSON_RULES, { allowChannel: "A" });
		rules = applyLessonRulesChange(rules, { allowChannel: "A" });
		rules = applyLessonRulesChange(rules, { allowChannel: "B", lessonsPerDay: 3, defaultMode: "group" });
		expect(rules).toEqual({ channels: ["A", "B"], lessonsPerDay: 3, defaultMode: "group", ...NO_CAPS });
		expect(applyLessonRulesChange(rules, { disallowChannel: "A" }).channels).toEqual(["B"]);
		expect(applyLessonRulesChange(rules, { channels: [] }).channels).toEqual([]);
		const defaults: LessonRules = { channels: [], lessonsPerDay: 5, defaultMode: "solo", ...NO_CAPS };
		expect(applyLessonRulesChange(rules, { reset: true, defaultMode: "group" }, defaults)).toEqual({
			channels: [],
			lessonsPerDay: 5,
			defaultMode: "group",
			...NO_CAPS,
		});
		expect(DEFAULT_LESSON_RULES.channels).toEqual([]); // the frozen defaults are never mutated
	});

	it("recognizes lesson modes", () => {
		expect(isLessonMode("solo")).toBe(true);
		expect(isLessonMode("group")).toBe(true);
		expect(isLessonMode("Solo")).toBe(false);
		expect(isLessonMode(null)).toBe(false);
	});

	it("keeps curated topics clean: trimmed, one per spelling, at most 25 of at most 100 characters", () => {
		expect(normalizeTopics(["  Fractions ", "fractions", "", 3, "x".repeat(101), "Chain  rule"])).toEqual([
			"Fractions",
			"Chain rule",
		]);
		expect(normalizeTopics("Fractions")).toEqual([]);
		expect(normalizeTopics(Array.from({ length: 40 }, (_, i) => `t${i}`))).toHaveLength(25);
		expect(normalizeLessonRules({ topics: ["A", "a", 7] }).topics).toEqual(["A"]);
		expect(normalizeLessonRules({ topics: "A" }).topics).toEqual([]);
		const set = applyLessonRulesChange(DEFAULT_LESSON_RULES, { topics: ["A", "B"] });
		expect(set.topics).toEqual(["A", "B"]);
		expect(applyLessonRulesChange(set, { voteNames: true }).topics).toEqual(["A", "B"]);
		expect(applyLessonRulesChange(set, { reset: true }).topics).toEqual([]);
	});

	it("parses an admin's topics setting: comma-separated, `-` clears, too many or too long is refused", () => {
		expect(parseTopicsSetting(" Fractions,  chain rule ,, Fractions ")).toEqual(["Fractions", "chain rule"]);
		expect(parseTopicsSetting("-")).toEqual([]);
		expect(parseTopicsSetting(Array.from({ length: 26 }, (_, i) => `t${i}`).join(","))).toHaveProperty("error");
		expect(parseTopicsSetting(`ok, ${"x".repeat(101)}`)).toEqual({
			error: "Give up to 25 topics, separated by commas, each at most 100 characters (`-` clears the list).",
		});
	});
});
