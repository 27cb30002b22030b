/**
 * A kept map layout outlined once per marks string (render/map-outline.ts): a state painted from the
 * outlines is the picture resvg draws from the text template (same pixels but for anti-aliasing at
 * glyph edges), carries no text (no font is loaded per state), and outlines that differ anywhere but
 * in the node texts are refused. The layout is a real one (Debian's Chromium and mermaid).
 */

import { Resvg } from "@resvg/resvg-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DerivedPlanStatuses } from "../../src/core/contracts/plan.ts";
import type { PlanMastery } from "../../src/core/mastery.ts";
import { launchChromium, openWarmPage, renderOnPage } from "../../src/render/chromium.ts";
import { MARKS_VARIANTS, outlineMap, paintOutlinedMap } from "../../src/render/map-outline.ts";
import { mapFont } from "../../src/render/map-painter.ts";
import { fillMapTemplate, type MapTemplate, mapTemplate, planLayoutSource } from "../../src/render/plan-layout.ts";
import { planLegendItems } from "../../src/render/plan-style.ts";
import { createResvgPool } from "../../src/render/resvg-pool.ts";
import { calculusPlan } from "../../testkit/plans.ts";

const PAD = 8;
const font = mapFont();
const fontOptions = { loadSystemFonts: false, fontFiles: [...(font?.files ?? [])], defaultFontFamily: font?.family };
const outline = async (svg: string): Promise<string> => new Resvg(svg, { font: fontOptions }).toString();
/** RGBA pixels of `svg` at 2x on white; `withFonts: false` draws no text at all. */
const pixelsOf = (svg: string, withFonts = true): Buffer =>
	Buffer.from(
		new Resvg(svg, {
			fitTo: { mode: "zoom", value: 2 },
			background: "#ffffff",
			font: withFonts ? fontOptions : { loadSystemFonts: false },
		}).render().pixels,
	);
/** Pixels whose colour differs by more than `levels` in some channel. */
function differing(a: Buffer, b: Buffer, levels: number): number {
	let count = 0;
	for (let i = 0; i < a.length; i += 4)
		for (let c = 0; c < 4; c++)
			if (Math.abs((a[i + c] ?? 0) - (b[i + c] ?? 0)) > levels) {
				count++;
				break;
			}
	return count;
}

let template: MapTemplate | undefined;
let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;

beforeAll(async () => {
	browser = await launchChromium("/usr/bin/chromium", 30_000);
	const counters = { allowed: 0, blocked: 0, blockedUrls: [] };
	const page = await openWarmPage(browser, counters);
	let svg = "";
	const look = { legend: planLegendItems("en"), maxWidthPx: 1100, svgOnly: true, onSvg: (s: string) => (svg = s) };
	await renderOnPage(page, planLayoutSource(calculusPlan), "outline1", 48e6, counters, look);
	template = mapTemplate(calculusPlan, svg);
}, 60_000);
afterAll(() => browser?.close());

describe.skipIf(font === undefined)("a map outlined once per marks string", () => {
	const states: Array<[string, DerivedPlanStatuses, PlanMastery | undefined]> = [
		[
			"mid-lesson, mastery shown",
			{ current: "chain", visited: new Set(["limits", "deriv", "power"]) },
			{ limits: "learned", deriv: "shaky" },
		],
		["current node learned (two marks)", { current: "product", visited: new Set(["limits"]) }, { product: "learned" }],
		["nothing current yet", { current: null, visited: new Set() }, undefined],
	];

	it.each(states)(
		"paints the text template's picture: %s",
		async (_name, statuses, mastery) => {
			if (!template) throw new Error("the layout made no template");
			const outlined = await outlineMap(template, PAD, outline);
			if (!outlined) throw new Error("the layout could not be outlined");
			const painted = paintOutlinedMap(outlined, statuses, mastery);
			expect(painted).not.toContain("<text");
			const fromText = fillMapTemplate(template, statuses, mastery, PAD);
			const expected = pixelsOf(fromText);
			const actual = pixelsOf(painted, false);
			expect(actual.length).toBe(expected.length);
			// The text is there: without fonts the text template loses thousands of pixels.
			expect(differing(pixelsOf(fromText, false), expected, 64)).toBeGreaterThan(2000);
			// Outline coordinates are rounded to ~6 digits: only a few edge pixels move, and only a little.
			expect(differing(actual, expected, 48)).toBe(0);
			expect(differing(actual, expected, 4)).toBeLessThan((expected.length / 4) * 0.001);
		},
		60_000,
	);

	it("outlines each marks string once", async () => {
		if (!template) throw new Error("the layout made no template");
		const seen: string[] = [];
		await outlineMap(template, PAD, async (svg) => {
			seen.push(svg);
			return outline(svg);
		});
		expect(seen).toHaveLength(MARKS_VARIANTS.length);
		expect(new Set(MARKS_VARIANTS)).toEqual(new Set(["▶", "▶ ✓", "▶ ~", "✓", "~", "•", "○"]));
	}, 60_000);

	it("refuses outlines that differ elsewhere than in the node texts", async () => {
		if (!template) throw new Error("the layout made no template");
		// Something beside the node texts moves when the marks are ○ (as a different layout would).
		const moved = async (svg: string) => (await outline(svg)) + (svg.includes(">○</tspan>") ? "<g/>" : "");
		expect(await outlineMap(template, PAD, moved)).toBeUndefined();
		// A node's text lost in every outline.
		const lost = async (svg: string) => (await outline(svg)).replace(/<path fill="#020001"[^>]*\/>/g, "");
		expect(await outlineMap(template, PAD, lost)).toBeUndefined();
	}, 60_000);
});

describe.skipIf(font === undefined)("resvg in worker threads", () => {
	const svg =
		'<svg xmlns="http://www.w3.org/2000/svg" width="80" height="20"><text x="2" y="15" style="font:12px DejaVu Sans;fill:#020003">▶ Limits</text></svg>';

	it("outlines text as this thread does, draws PNGs, refuses what resvg cannot read, and starts again after close", async () => {
		const pool = createResvgPool({ ...fontOptions, defaultFontFamily: font?.family ?? "DejaVu Sans" }, 2);
		try {
			const drawn = await pool.outline(svg);
			expect(drawn).not.toContain("<text");
			expect(drawn).toMatch(/<path fill="#020003"[^>]* d="M /);
			expect(drawn).toBe(await outline(svg));
			// Both workers busy at once: each PNG is the one drawn here, the text one drawn with the font.
			const pngs = await Promise.all([
				pool.png(svg, { zoom: 2, background: "#ffffff", text: true }),
				pool.png(drawn, { zoom: 2, background: "#ffffff", text: false }),
				pool.png(svg, { zoom: 2, background: "#ffffff", text: false }),
			]);
			const here = new Resvg(svg, { fitTo: { mode: "zoom", value: 2 }, background: "#ffffff", font: fontOptions });
			expect(pngs[0]?.equals(Buffer.from(here.render().asPng()))).toBe(true);
			expect(pngs[2]?.equals(pngs[0] ?? Buffer.alloc(0))).toBe(false); // no font: no text drawn
			await expect(pool.outline("not an svg")).rejects.toThrow(/resvg failed/);
			pool.close();
			expect(await pool.outline(svg)).toBe(drawn);
		} finally {
			pool.close();
		}
	}, 60_000);
});
