/** Reset times (next UTC midnight, in hours and minutes), the budget notice's wording, and price settings. */

import { describe, expect, it } from "vitest";
import {
	budgetNotice,
	nextUtcMidnight,
	resetText,
	USAGE_TOP_MEMBERS,
	usageText,
} from "../../../src/adapters/lesson/budget-texts.ts";
import { parsePriceSetting } from "../../../src/adapters/lesson/lesson-rules.ts";
import type { PeriodUsage } from "../../../src/adapters/lesson/usage-ledger.ts";

describe("budget texts", () => {
	it("resets at the next UTC midnight and says how long until then", () => {
		const now = new Date("2025-03-31T20:48:00Z");
		expect(nextUtcMidnight(now).toISOString()).toBe("2025-04-01T00:00:00.000Z");
		expect(resetText(now)).toBe("It resets at 00:00 UTC, in 3 hr 12 min.");
		expect(resetText(new Date("2025-03-31T23:59:30Z"))).toBe("It resets at 00:00 UTC, in 1 min.");
		expect(resetText(new Date("2025-03-31T22:00:00Z"))).toBe("It resets at 00:00 UTC, in 2 hr.");
	});

	it("names the community or the member, with the limit formatted", () => {
		const now = new Date("2025-03-31T20:48:00Z");
		expect(budgetNotice({ kind: "community", place: "server" }, 50_000, now, { startHint: "" })).toBe(
			"Today's tutor budget for this server is used up (50,000 tokens). It resets at 00:00 UTC, in 3 hr 12 min.",
		);
		expect(budgetNotice({ kind: "member", userId: "U1" }, 900, now, { startHint: "" })).toMatch(
			/^Today's tutor budget of <@U1> is used up \(900 tokens\)/,
		);
	});

	it("parses price settings and removals, and refuses the rest", () => {
		expect(parsePriceSetting("gpt-4.1-mini=0.4,1.6")).toEqual({
			model: "gpt-4.1-mini",
			price: { input: 0.4, output: 1.6 },
		});
		expect(parsePriceSetting("gpt-4.1-mini=")).toEqual({ model: "gpt-4.1-mini" });
		expect(parsePriceSetting("gpt=1")).toHaveProperty("error");
		expect(parsePriceSetting("=1,2")).toHaveProperty("error");
	});

	it("/lesson usage on a large server lists the top members and fits one Discord message", () => {
		const period: PeriodUsage = {};
		for (let i = 0; i < 500; i++)
			period[`U${1000 + i}`] = { models: { "gpt-4.1-mini": { input: 1000 + i, output: 10, cached: 0 } } };
		const text = usageText(
			{ day: period, month: period, prices: { "gpt-4.1-mini": { input: 0.4, output: 1.6 } }, now: new Date() },
			{ startHint: "" },
		);
		expect(text.length).toBeLessThan(2000);
		expect(text).toContain("<@U1499>"); // the largest first
		expect(text).not.toContain("<@U1000>");
		expect(text).toContain(`and ${500 - USAGE_TOP_MEMBERS} more members`);
	});
});
