/**
 * Maps without Chromium once laid out: a lesson map's layout is made once per structure (and
 * language: the legend's words) by Chromium (plan-layout.ts), kept, and each state's picture is the
 * kept SVG re-coloured in Node and rasterized by resvg in worker threads (resvg-pool.ts; the native
 * rasterizer the math and progress pictures use). resvg draws with the font files Chromium's
 * layout used (the first of Liberation Sans and DejaVu Sans found); a map whose titles hold emoji
 * (a colour font resvg does not draw) or a machine with neither font is drawn by Chromium per state.
 * The kept layout is outlined once (map-outline.ts, in the same workers), so a state's
 * SVG is paths only and resvg neither loads fonts nor shapes text per state; a layout that cannot
 * be outlined is drawn from its text template.
 */

import { existsSync } from "node:fs";
import type { DerivedPlanStatuses, PlanTree } from "../core/contracts/plan.ts";
import type { PlanMastery } from "../core/mastery.ts";
import type { Locale } from "../i18n/index.ts";
import type { PageRenderOptions } from "./chromium.ts";
import { type OutlinedMap, outlineMap, paintOutlinedMap } from "./map-outline.ts";
import { fillMapTemplate, type MapTemplate, mapTemplate, planLayoutSource } from "./plan-layout.ts";
import { planPictureKey } from "./plan-source.ts";
import { createResvgPool } from "./resvg-pool.ts";

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

/** A kept layout: its text template, and the same outlined (map-outline.ts) when that could be made. */
interface KeptMap {
	template: MapTemplate;
	outlined?: OutlinedMap;
	/** Characters it holds, about its bytes (the SVGs are ASCII). */
	chars: number;
}

/**
 * Characters of kept layouts at most (~64 MB): a 12-node map's outlines are about 1 MB, a 40-node
 * map's about 5 (7 marks strings' text paths), so 64 big maps would otherwise hold over 300 MB.
 */
const MAX_KEPT_CHARS = 64_000_000;

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
	/** Layouts made (Chromium renders), states painted from a kept one, and of those how many from its outlines. */
	stats(): { layouts: number; painted: number; outlined: number };
	/** Forgets the kept layouts and stops the resvg workers (a later paint starts them again). */
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

/** The font family (and its files) maps are drawn in here: the first of FONT_FAMILIES installed; undefined: none. */
export function mapFont(): { family: string; files: readonly string[] } | undefined {
	return FONT_FAMILIES.find((f) => f.files.every((file) => existsSync(file)));
}

/** Creates a map painter. */
export function createMapPainter(options: MapPainterOptions): MapPainter {
	const found = mapFont();
	const fontFiles = options.fontFiles ?? found?.files;
	const max = Math.max(1, options.cacheSize ?? 64);
	const font = {
		loadSystemFonts: false,
		fontFiles: [...(fontFiles ?? [])],
		defaultFontFamily: found?.family ?? "DejaVu Sans",
	};
	const layouts = new Map<string, Promise<KeptMap | undefined>>();
	/** Characters each kept layout holds (its SVG, outlines and cuts), and their sum: bounded by MAX_KEPT_CHARS. */
	const sizes = new Map<string, number>();
	let keptChars = 0;
	const forget = (key: string): void => {
		layouts.delete(key);
		keptChars -= sizes.get(key) ?? 0;
		sizes.delete(key);
	};
	const stats = { layouts: 0, painted: 0, outlined: 0 };

	const resvg = createResvgPool(font);
	const keep = async (tree: PlanTree, svg: string): Promise<KeptMap | undefined> => {
		const template = mapTemplate(tree, svg);
		if (!template) return undefined;
		// Outlines that cannot be made (or cut) leave the text template: resvg shapes the text per state.
		const outlined = await outlineMap(template, PAD, resvg.outline).catch(() => undefined);
		return { template, ...(outlined ? { outlined } : {}), chars: svg.length + (outlined?.chars ?? 0) };
	};

	const templateOf = (tree: PlanTree, locale: Locale, look: PageRenderOptions): Promise<KeptMap | undefined> => {
		const source = planLayoutSource(tree);
		const key = planPictureKey(`${source}\0${locale}`);
		const kept = layouts.get(key);
		if (kept) {
			layouts.delete(key); // re-inserted last: recently used stays
			layouts.set(key, kept);
			return kept;
		}
		const made = options.layout(source, { ...look, svgOnly: true }).then(async (svg) => {
			stats.layouts++;
			const map = await keep(tree, svg);
			if (map && layouts.get(key) === made) {
				sizes.set(key, map.chars);
				keptChars += map.chars;
				// Big maps' outlines are megabytes: the oldest go first while over the budget (this one stays).
				for (const oldest of layouts.keys()) {
					if (keptChars <= MAX_KEPT_CHARS || oldest === key) break;
					forget(oldest);
				}
			}
			return map;
		});
		// A failed layout is not kept (the next state tries again).
		made.catch(() => forget(key));
		layouts.set(key, made);
		for (const oldest of layouts.keys()) {
			if (layouts.size <= max) break;
			forget(oldest);
		}
		return made;
	};

	return {
		async paint(tree, statuses, mastery, locale, look) {
			if (fontFiles === undefined || tree.nodes.some((n) => PICTOGRAPH.test(n.title))) return undefined;
			const kept = await templateOf(tree, locale, look);
			if (!kept) return undefined;
			const { template, outlined } = kept;
			const svg = outlined
				? paintOutlinedMap(outlined, statuses, mastery)
				: fillMapTemplate(template, statuses, mastery, PAD);
			const outW = template.width + PAD * 2;
			const outH = template.height + PAD * 2;
			const fit = look.maxWidthPx === undefined ? 2 : Math.min(2, look.maxWidthPx / outW); // chromium.ts's rule
			const scale = outW * outH * 4 > MAX_PIXELS_2X ? 1 : fit;
			const png = await resvg.png(svg, {
				zoom: scale,
				...(look.background !== undefined ? { background: look.background } : {}),
				// An outlined map has no text left: no font files to load.
				text: outlined === undefined,
			});
			stats.painted++;
			if (outlined) stats.outlined++;
			return png;
		},
		stats: () => ({ ...stats }),
		clear: () => {
			layouts.clear();
			sizes.clear();
			keptChars = 0;
			resvg.close();
		},
	};
}
