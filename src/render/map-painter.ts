/**
 * Maps without Chromium once laid out: a lesson map's layout is made once per structure (and
 * language: the legend's words) by Chromium (plan-layout.ts), kept, and each state's picture is the
 * kept SVG re-coloured in Node and rasterized by resvg on libuv's thread pool (the native
 * rasterizer the math and progress pictures use). resvg draws with the font files Chromium's
 * layout used (the first of Liberation Sans and DejaVu Sans found); a map whose titles hold emoji
 * (a colour font resvg does not draw) or a machine with neither font is drawn by Chromium per state.
 */

import { existsSync } from "node:fs";
import type { DerivedPlanStatuses, PlanTree } from "../core/contracts/plan.ts";
import type { PlanMastery } from "../core/mastery.ts";
import type { Locale } from "../i18n/index.ts";
import type { PageRenderOptions } from "./chromium.ts";
import { fillMapTemplate, type MapTemplate, mapTemplate, planLayoutSource } from "./plan-layout.ts";
import { planPictureKey } from "./plan-source.ts";

/** Padding around the picture in CSS pixels (chromium.ts draws the same). */
const PAD = 8;
/** Device pixels above which a picture is drawn at 1x (chromium.ts's MAX_PIXELS_2X). */
const MAX_PIXELS_2X = 48_000_000;

/** The font files of the family Chromium lays labels out in (chromium.ts MERMAID_CONFIG.fontFamily's order). */
const FONT_FAMILIES = [
	{
		family: "Liberation Sans",
		files: [
			"/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
			"/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
		],
	},
	{
		family: "DejaVu Sans",
		files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"],
	},
];

/** Emoji and other pictographs: drawn by Chromium's colour font only. */
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

/** Draws a map state from its kept layout. */
export interface MapPainter {
	/** The PNG of a state; undefined when this map cannot be drawn so (the caller renders it with Chromium). */
	paint(
		tree: PlanTree,
		statuses: DerivedPlanStatuses,
		mastery: PlanMastery | undefined,
		locale: Locale,
		look: PageRenderOptions,
	): Promise<Buffer | undefined>;
	/** Layouts made (Chromium renders) and states painted from a kept one. */
	stats(): { layouts: number; painted: number };
	clear(): void;
}

/** Options of createMapPainter. */
export interface MapPainterOptions {
	/** Lays a mermaid source out in a warm page; resolves with the SVG the page would rasterize. */
	layout(source: string, look: PageRenderOptions): Promise<string>;
	/** Layouts kept (default 64; the oldest goes first). */
	cacheSize?: number;
	/** Font files to draw with (default: found as described above). */
	fontFiles?: readonly string[];
}

/** Creates a map painter. */
export function createMapPainter(options: MapPainterOptions): MapPainter {
	const found = FONT_FAMILIES.find((f) => f.files.every((file) => existsSync(file)));
	const fontFiles = options.fontFiles ?? found?.files;
	const max = Math.max(1, options.cacheSize ?? 64);
	const layouts = new Map<string, Promise<MapTemplate | undefined>>();
	const stats = { layouts: 0, painted: 0 };

	const templateOf = (tree: PlanTree, locale: Locale, look: PageRenderOptions): Promise<MapTemplate | undefined> => {
		const source = planLayoutSource(tree);
		const key = planPictureKey(`${source}\0${locale}`);
		const kept = layouts.get(key);
		if (kept) {
			layouts.delete(key); // re-inserted last: recently used stays
			layouts.set(key, kept);
			return kept;
		}
		const made = options.layout(source, { ...look, svgOnly: true }).then((svg) => {
			stats.layouts++;
			return mapTemplate(tree, svg);
		});
		// A failed layout is not kept (the next state tries again).
		made.catch(() => layouts.delete(key));
		layouts.set(key, made);
		for (const oldest of layouts.keys()) {
			if (layouts.size <= max) break;
			layouts.delete(oldest);
		}
		return made;
	};

	return {
		async paint(tree, statuses, mastery, locale, look) {
			if (fontFiles === undefined || tree.nodes.some((n) => PICTOGRAPH.test(n.title))) return undefined;
			const template = await templateOf(tree, locale, look);
			if (!template) return undefined;
			const svg = fillMapTemplate(template, statuses, mastery, PAD);
			const outW = template.width + PAD * 2;
			const outH = template.height + PAD * 2;
			const fit = look.maxWidthPx === undefined ? 2 : Math.min(2, look.maxWidthPx / outW); // chromium.ts's rule
			const scale = outW * outH * 4 > MAX_PIXELS_2X ? 1 : fit;
			const { renderAsync } = await import("@resvg/resvg-js");
			const drawn = await renderAsync(svg, {
				fitTo: { mode: "zoom", value: scale },
				...(look.background !== undefined ? { background: look.background } : {}),
				font: { loadSystemFonts: false, fontFiles: [...fontFiles], defaultFontFamily: found?.family ?? "DejaVu Sans" },
			});
			stats.painted++;
			return Buffer.from(drawn.asPng());
		},
		stats: () => ({ ...stats }),
		clear: () => layouts.clear(),
	};
}
