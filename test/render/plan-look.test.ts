/**
 * The map's look: contrast on Discord's and Slack's themes, the legend in the
 * drawn SVG (real Chromium), and the alt text's content and bounds.
 */

import { afterAll, describe, expect, it } from "vitest";
import { launchChromium, openWarmPage, renderOnPage } from "../../src/render/chromium.ts";
import {
	contrastRatio,
	PLAN_ALT_MAX_CHARS,
	PLAN_BACKGROUNDS,
	PLAN_COLORS,
	PLAN_EDGE_COLOR,
	PLAN_MAX_WIDTH_PX,
	planAltText,
	planLegendItems,
	planMermaidSource,
} from "../../src/render/index.ts";
import { calculusPlan, calculusStatuses, fortyNodePlan, fortyNodeStatuses } from "../../testkit/plans.ts";

const mastery = { limits: "learned", deriv: "learned", power: "shaky" } as const;

describe("plan colours", () => {
	it("node text reads on its fill (>= 4.5:1) and every node stands out on every chat background (>= 3:1)", () => {
		for (const [kind, c] of Object.entries(PLAN_COLORS)) {
			expect(contrastRatio(c.text, c.fill), kind).toBeGreaterThanOrEqual(4.5);
			for (const bg of Object.values(PLAN_BACKGROUNDS)) {
				// WCAG non-text contrast: the fill or the outline marks the node's boundary.
				const edge = Math.max(contrastRatio(c.fill, bg), contrastRatio(c.stroke, bg));
				expect(edge, `${kind} on ${bg}`).toBeGreaterThanOrEqual(3);
			}
		}
	});

	it("edges have >= 3:1 against both Discord themes and Slack's dark sidebar colour", () => {
		for (const bg of Object.values(PLAN_BACKGROUNDS))
			expect(contrastRatio(PLAN_EDGE_COLOR, bg), bg).toBeGreaterThanOrEqual(3);
		expect(contrastRatio("#ffffff", "#000000")).toBeCloseTo(21, 5);
	});

	it("draws each kind in its own class, the legend uses the same colours", () => {
		const src = planMermaidSource(calculusPlan, calculusStatuses, mastery);
		expect(src).toMatch(/n0\["✓ Limits"\]/);
		expect(src).toMatch(/n2\["~ Power rule"\]/);
		expect(src).toMatch(/n3\["▶ Chain rule"\]/);
		// Edges styled by index (a default style would draw the invisible links that wrap rows).
		expect(src).toMatch(new RegExp(`linkStyle [0-9,]+ stroke:${PLAN_EDGE_COLOR}`));
		for (const item of planLegendItems())
			expect(src).toContain(`fill:${item.fill},stroke:${item.stroke},color:${item.text}`);
		expect(planLegendItems().map((i) => i.label)).toEqual([
			"▶ current",
			"✓ learned",
			"~ shaky",
			"• visited",
			"○ not yet",
		]);
	});
});

describe("the legend in the picture (Chromium)", () => {
	let close: (() => Promise<void>) | undefined;
	afterAll(async () => close?.());

	it("lays the legend's chips under the diagram in the SVG that becomes the PNG, within the width cap", async () => {
		const browser = await launchChromium("/usr/bin/chromium", 30_000);
		close = () => browser.close();
		const page = await openWarmPage(browser, { allowed: 0, blocked: 0, blockedUrls: [] });
		let svg = "";
		const look = {
			legend: planLegendItems(),
			maxWidthPx: PLAN_MAX_WIDTH_PX,
			onSvg: (s: string) => {
				svg = s;
			},
		};
		const counters = { allowed: 0, blocked: 0, blockedUrls: [] };
		await renderOnPage(page, planMermaidSource(calculusPlan, calculusStatuses, mastery), "look1", 48e6, counters, look);
		for (const word of ["current", "learned", "shaky", "visited", "not yet"]) expect(svg).toContain(`${word}</text>`);
		for (const item of planLegendItems()) expect(svg).toContain(`fill="${item.fill}"`);
		expect(svg).toMatch(/^<svg[^>]*width="\d+"/);
		const width = Number(/^<svg[^>]*width="(\d+)"/.exec(svg)?.[1]);
		expect(width * 2).toBeLessThanOrEqual(PLAN_MAX_WIDTH_PX); // this map fits at 2x
	});
});

describe("planAltText", () => {
	it("lists every node in reading order with its status and mastery", () => {
		expect(planAltText(calculusPlan, calculusStatuses, mastery)).toBe(
			"Lesson map, 5 steps, now on Chain rule. Limits (learned); The derivative as a rate of change (learned); " +
				"Power rule (shaky); Chain rule (current, not yet); Product rule (not yet).",
		);
		expect(planAltText(calculusPlan, { current: null, visited: new Set() })).toMatch(
			/^Lesson map, 5 steps\. Limits \(not yet\);/,
		);
	});

	it("stays within the bound with whole items and says how many are left out", () => {
		const big = fortyNodePlan();
		const alt = planAltText(big, fortyNodeStatuses());
		expect(alt.length).toBeLessThanOrEqual(PLAN_ALT_MAX_CHARS);
		expect(PLAN_ALT_MAX_CHARS).toBeLessThanOrEqual(1024); // Discord's attachment description
		expect(alt).toMatch(/; and \d+ more\.$/);
		const listed = alt.split("; ").length - 1;
		expect(Number(/and (\d+) more/.exec(alt)?.[1]) + listed).toBe(40);
		for (const max of [1, 20, 60, 120, 300])
			expect(planAltText(big, fortyNodeStatuses(), undefined, max).length).toBeLessThanOrEqual(max);
		const long = { version: 1, nodes: [{ id: "x", title: "y".repeat(5_000) }], edges: [] };
		// A title is cut at 160 characters in the alt text (it appears twice: "now on ..." and its item).
		expect(planAltText(long, { current: "x", visited: new Set() }).length).toBeLessThan(400);
	});

	it("keeps a title whole that the map cuts to fit a phone", () => {
		const title = "Integration by parts for products of polynomials and exponentials";
		const tree = { version: 1, nodes: [{ id: "x", title }], edges: [] };
		const statuses = { current: "x", visited: new Set<string>() };
		expect(planMermaidSource(tree, statuses)).not.toContain("exponentials");
		expect(planAltText(tree, statuses)).toContain(title);
	});
});
