/**
 * Lesson maps laid out once per structure and re-coloured per state (render/map-painter.ts): a new state
 * of a map drawn before is painted without Chromium, in the right colours with the current node in its
 * place; a map with emoji in its titles is drawn by Chromium per state. Real renders (Debian's Chromium).
 */

import { PNG } from "pngjs";
import { afterAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/contracts/logger.ts";
import { createPlanRenderer, PLAN_COLORS } from "../../src/render/index.ts";
import { fillMapTemplate, mapTemplate, planLayoutSource } from "../../src/render/plan-layout.ts";
import { calculusPlan } from "../../testkit/plans.ts";

/** Pixels of exactly `hex`, and their mean x and y, above the legend (its two rows of chips: the picture's last 140 px at 2x). */
function pixels(png: Buffer, hex: string): { hits: number; meanX: number; meanY: number } {
	const [r, g, b] = hex.match(/[0-9a-f]{2}/gi)?.map((h) => Number.parseInt(h, 16)) ?? [];
	const img = PNG.sync.read(png);
	let hits = 0;
	let sx = 0;
	let sy = 0;
	for (let y = 0; y < img.height - 140; y++)
		for (let x = 0; x < img.width; x++) {
			const i = (y * img.width + x) * 4;
			if (img.data[i] === r && img.data[i + 1] === g && img.data[i + 2] === b) {
				hits++;
				sx += x;
				sy += y;
			}
		}
	return { hits, meanX: hits === 0 ? 0 : sx / hits, meanY: hits === 0 ? 0 : sy / hits };
}

const renderer = createPlanRenderer({ logger: silentLogger, timeoutMs: 15_000 });
afterAll(() => renderer.close());

describe("lesson maps from a kept layout", () => {
	it("paints a new state without Chromium: the current node moves, the other kinds take their colours", async () => {
		const first = await renderer.renderPlan(calculusPlan, {
			current: "chain",
			visited: new Set(["limits", "deriv", "power"]),
		});
		expect(first.error).toBeUndefined();
		const layouts = renderer.stats().layouts;
		const launches = renderer.stats().launches;
		const second = await renderer.renderPlan(
			calculusPlan,
			{ current: "product", visited: new Set(["limits", "deriv", "power", "chain"]) },
			{ limits: "learned", deriv: "shaky" },
		);
		expect(second.error).toBeUndefined();
		// No new layout and no new browser: the kept layout was re-coloured.
		expect(renderer.stats().layouts).toBe(layouts);
		expect(renderer.stats().launches).toBe(launches);
		expect(renderer.stats().painted).toBeGreaterThanOrEqual(2);
		// Both from the layout's outlines (made in a worker thread): no text shaped per state.
		expect(renderer.stats().outlined).toBe(renderer.stats().painted);
		const a = pixels(first.png ?? Buffer.alloc(0), PLAN_COLORS.current.fill);
		const b = pixels(second.png ?? Buffer.alloc(0), PLAN_COLORS.current.fill);
		expect(a.hits).toBeGreaterThan(1000);
		expect(b.hits).toBeGreaterThan(1000);
		// The current node moved: Product rule wraps into the row under Chain rule (deriv -> power -> chain,
		// deriv -> product; one node a row at phone width, plan-source.ts).
		expect(b.meanY).toBeGreaterThan(a.meanY + 50);
		// Learned and shaky nodes show their fills; before, none did.
		for (const kind of ["learned", "shaky"] as const) {
			expect(pixels(first.png ?? Buffer.alloc(0), PLAN_COLORS[kind].fill).hits).toBe(0);
			expect(pixels(second.png ?? Buffer.alloc(0), PLAN_COLORS[kind].fill).hits).toBeGreaterThan(1000);
		}
	});

	it("draws a map with emoji in its titles through Chromium", async () => {
		const tree = {
			...calculusPlan,
			nodes: calculusPlan.nodes.map((n, i) => (i === 0 ? { ...n, title: "Limits 🚀" } : n)),
		};
		const painted = renderer.stats().painted ?? 0;
		const picture = await renderer.renderPlan(tree, { current: "limits", visited: new Set() });
		expect(picture.error).toBeUndefined();
		expect(pixels(picture.png ?? Buffer.alloc(0), PLAN_COLORS.current.fill).hits).toBeGreaterThan(1000);
		expect(renderer.stats().painted).toBe(painted);
	});
});

describe("the layout template", () => {
	it("refuses an SVG that lacks a node's slots (the map is then rendered per state)", () => {
		expect(mapTemplate(calculusPlan, '<svg width="10" height="10" viewBox="0 0 10 10"></svg>')).toBeUndefined();
		expect(planLayoutSource(calculusPlan)).toContain("classDef k0 fill:#000000,stroke:#010000,color:#020000");
	});

	it("fills each node's slots from its kind", () => {
		const node = (i: number) =>
			`<g class="node default k${i}"><rect style="fill:#00000${i} !important;stroke:#01000${i} !important;stroke-width:1.5px !important"/>` +
			`<text style="fill:#02000${i} !important"><tspan>▶~</tspan></text></g>`;
		const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="0 0 100 50">${[0, 1, 2, 3, 4].map(node).join("")}</svg>`;
		const template = mapTemplate(calculusPlan, svg);
		if (!template) throw new Error("no template");
		const filled = fillMapTemplate(
			template,
			{ current: "chain", visited: new Set(["limits"]) },
			{ deriv: "learned" },
			8,
		);
		expect(filled).toContain('width="116" height="66" viewBox="-8 -8 116 66"');
		expect(filled).toContain(`class="node default current"`);
		expect(filled).toContain(
			`fill:${PLAN_COLORS.current.fill} !important;stroke:${PLAN_COLORS.current.stroke} !important;stroke-width:3px`,
		);
		expect(filled).toContain(`fill:${PLAN_COLORS.learned.fill} !important`);
		expect(filled.match(/>▶<\/tspan>/g)).toHaveLength(1);
		expect(filled.match(/>○<\/tspan>/g)).toHaveLength(2);
		expect(filled).not.toContain("#0000");
	});
});
