/**
 * The pictures on a phone (issue 28): lesson maps of 4, 12 and 40 nodes and the progress picture,
 * rendered with the real Chromium and resvg, checked by numbers. A picture is shown about 400 px
 * wide in a phone's chat column; "legible" here means its label text, scaled to that width, is at
 * least 12 px: font size x (400 / the picture's CSS width). Widths come from the PNG header; the
 * CSS width and font sizes from the SVG that was rasterized. Contrast is WCAG's, computed from the
 * colours the drawing actually uses: text against the fill it sits on, and every shape's edge
 * against the chat backgrounds (Discord dark #313338 and light #ffffff, Slack #ffffff and dark #1a1d21).
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, openWarmPage, renderOnPage } from "../../src/render/chromium.ts";
import {
	contrastRatio,
	createPlanRenderer,
	PLAN_EDGE_COLOR,
	PLAN_MAX_WIDTH_PX,
	type PlanRenderer,
	planLegendItems,
	planMermaidSource,
} from "../../src/render/index.ts";
import { MAP_MAX_CSS_WIDTH } from "../../src/render/plan-source.ts";
import { PROGRESS_COLORS, PROGRESS_WIDTH, progressSvg, renderProgressPng } from "../../src/render/progress-image.ts";
import { binaryMap } from "../../testkit/plans.ts";

const CHAT_BACKGROUNDS = {
	discordDark: "#313338",
	discordLight: "#ffffff",
	slackLight: "#ffffff",
	slackDark: "#1a1d21",
};
const PHONE_WIDTH = 400;

/** Width and height from a PNG's IHDR chunk (bytes 16-23). */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

/** The text size a reader sees when a picture `cssWidth` wide is shown PHONE_WIDTH wide (never enlarged). */
const shownPx = (fontPx: number, cssWidth: number) => fontPx * Math.min(1, PHONE_WIDTH / cssWidth);

const stateOf = (n: number) => ({ current: `n${Math.min(5, n - 1)}`, visited: new Set(["n0"]) });

describe("lesson maps at phone width (Chromium)", () => {
	let renderer: PlanRenderer;
	let close: (() => Promise<void>) | undefined;
	beforeAll(() => {
		renderer = createPlanRenderer({ timeoutMs: 30_000 });
	});
	afterAll(async () => {
		await renderer.close();
		await close?.();
	});

	for (const n of [4, 12, 40]) {
		it(`draws a ${n}-node map at most 1,100 px wide, its text >= 12 px at 400 px`, { timeout: 120_000 }, async () => {
			const tree = binaryMap(n);
			const picture = await renderer.renderPlan(tree, stateOf(n));
			expect(picture.error).toBeUndefined();
			const { width } = pngSize(picture.png as Buffer);
			expect(width).toBeLessThanOrEqual(PLAN_MAX_WIDTH_PX);

			// The same source laid out in a page: its CSS width and the font sizes of its labels and legend.
			const browser = await launchChromium("/usr/bin/chromium", 30_000);
			close = () => browser.close();
			const page = await openWarmPage(browser, { allowed: 0, blocked: 0, blockedUrls: [] });
			let svg = "";
			const png = await renderOnPage(
				page,
				planMermaidSource(tree, stateOf(n)),
				`phone${n}`,
				48e6,
				{ allowed: 0, blocked: 0, blockedUrls: [] },
				{ legend: planLegendItems(), maxWidthPx: PLAN_MAX_WIDTH_PX, onSvg: (s) => (svg = s) },
			);
			await browser.close();
			close = undefined;
			expect(pngSize(png).width).toBeLessThanOrEqual(PLAN_MAX_WIDTH_PX);
			const cssWidth = Number(/^<svg[^>]*width="(\d+(?:\.\d+)?)"/.exec(svg)?.[1]) + 16; // + the page's padding
			expect(cssWidth).toBeLessThanOrEqual(MAP_MAX_CSS_WIDTH);
			// Labels take the diagram's root font size (mermaid's `#id{...font-size:16px}`; its 12 px tooltip style draws
			// nothing), the legend its chips' `font:14px`.
			const labelPx = Number(/\{font-family:[^;}]*;font-size:(\d+(?:\.\d+)?)px/.exec(svg)?.[1]);
			const legendPx = [...svg.matchAll(/style="font:(\d+(?:\.\d+)?)px/g)].map((m) => Number(m[1]));
			expect(legendPx).toHaveLength(5);
			const smallest = Math.min(labelPx, ...legendPx);
			expect(shownPx(smallest, cssWidth), `smallest text ${smallest}px in ${cssWidth}px`).toBeGreaterThanOrEqual(12);
			// Every label is in the picture: nothing dropped to make it narrow (words are tspans: read the text alone).
			const words = svg
				.replace(/<style[\s\S]*?<\/style>/g, "")
				.replace(/<[^>]+>/g, " ")
				.replace(/\s+/g, " ");
			for (let k = 1; k <= n; k++) expect(words).toContain(`Step ${k} of`);
			console.log(
				`map ${n} nodes: png ${width} px wide, ${cssWidth} css px, labels shown at ${shownPx(labelPx, cssWidth).toFixed(1)} px, legend at ${shownPx(Math.min(...legendPx), cssWidth).toFixed(1)} px on a 400 px column`,
			);
		});
	}

	it("uses colours whose text reads on its fill (>= 4.5:1) and whose shapes stand out on every chat background (>= 3:1)", () => {
		const source = planMermaidSource(binaryMap(12), stateOf(12));
		const styles = [...source.matchAll(/classDef \w+ fill:(#[0-9a-f]{6}),stroke:(#[0-9a-f]{6}),color:(#[0-9a-f]{6})/g)];
		expect(styles).toHaveLength(5);
		const legend = planLegendItems().map((c) => [c.fill, c.stroke, c.text] as const);
		for (const [fill, stroke, text] of [...styles.map((m) => [m[1], m[2], m[3]] as const), ...legend]) {
			expect(contrastRatio(text as string, fill as string), `${text} on ${fill}`).toBeGreaterThanOrEqual(4.5);
			for (const bg of Object.values(CHAT_BACKGROUNDS)) {
				const edge = Math.max(contrastRatio(fill as string, bg), contrastRatio(stroke as string, bg));
				expect(edge, `${fill}/${stroke} on ${bg}`).toBeGreaterThanOrEqual(3);
			}
		}
		for (const bg of Object.values(CHAT_BACKGROUNDS))
			expect(contrastRatio(PLAN_EDGE_COLOR, bg)).toBeGreaterThanOrEqual(3);
	});
});

describe("the progress picture at phone width (resvg)", () => {
	const data = {
		topics: [
			{ topic: "Calculus for physics and engineers", learned: 3, shaky: 2, notYet: 4, due: 2 },
			{ topic: "Spanish verbs", learned: 5, shaky: 0, notYet: 1, due: 0 },
		],
		days: { "2026-12-01": { lessons: 1, reviews: 0 }, "2026-12-02": { lessons: 0, reviews: 3 } },
		today: new Date("2026-12-03T12:00:00Z"),
	};

	it("is a phone column wide, at 2x, with every text >= 13 px at that width", async () => {
		const png = await renderProgressPng(data);
		expect(pngSize(png).width).toBe(PROGRESS_WIDTH * 2);
		const svg = progressSvg(data);
		const sizes = [...svg.matchAll(/font-size="(\d+)"/g)].map((m) => Number(m[1]));
		expect(Math.min(...sizes)).toBeGreaterThanOrEqual(13);
		expect(shownPx(Math.min(...sizes), PROGRESS_WIDTH)).toBeGreaterThanOrEqual(12);
	});

	it("draws on its own solid background: every text colour >= 4.5:1 on it, the card's edge >= 3:1 on every chat background", async () => {
		const svg = progressSvg({
			...data,
			topics: [
				...data.topics,
				...Array.from({ length: 9 }, (_, i) => ({ topic: `T${i}`, learned: 1, shaky: 1, notYet: 1, due: 1 })),
			],
		});
		const textColours = new Set([...svg.matchAll(/<text[^>]* fill="(#[0-9a-f]{6})"/g)].map((m) => m[1] as string));
		expect(textColours.size).toBeGreaterThanOrEqual(3); // text, muted counts, due counts
		for (const colour of textColours)
			expect(contrastRatio(colour, PROGRESS_COLORS.background), colour).toBeGreaterThanOrEqual(4.5);
		for (const bg of Object.values(CHAT_BACKGROUNDS)) {
			const edge = Math.max(contrastRatio(PROGRESS_COLORS.background, bg), contrastRatio(PROGRESS_COLORS.border, bg));
			expect(edge, bg).toBeGreaterThanOrEqual(3);
		}
		// Opaque: the middle of the picture is the card, whatever theme is behind it.
		const { PNG } = await import("pngjs");
		const img = PNG.sync.read(await renderProgressPng(data));
		const mid = (Math.floor(img.height / 2) * img.width + Math.floor(img.width / 2)) * 4;
		expect(img.data[mid + 3]).toBe(255);
	});
});
