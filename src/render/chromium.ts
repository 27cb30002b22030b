/**
 * The Chromium side of the plan picture: launching Debian's Chromium through
 * puppeteer-core, and preparing a warm page with mermaid loaded once from
 * node_modules. Every request a page makes that is not data:/about: is
 * blocked (and counted), so hostile labels cannot fetch anything.
 */

import { access, constants, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Browser, Page } from "puppeteer";
import { PLAN_EDGE_COLOR } from "./plan-style.ts";

/** Default Chromium (Debian's package). */
export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";

/** How to get a working Chromium, quoted in every "no browser" error. */
export const CHROMIUM_FIX = "install chromium: apt-get install chromium, or set PUPPETEER_EXECUTABLE_PATH";

/** Flags for a headless, quiet, offline Chromium (root in containers needs --no-sandbox). */
const CHROMIUM_ARGS = [
	"--no-sandbox",
	"--headless",
	"--disable-gpu",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--no-first-run",
	"--disable-dev-shm-usage",
	"--disable-extensions",
	"--mute-audio",
	"--font-render-hinting=none",
];

/** Mermaid settings of the picture: SVG text labels, natural width, no scripts or links from labels. */
export const MERMAID_CONFIG = {
	startOnLoad: false,
	securityLevel: "strict",
	htmlLabels: false,
	// "base" is mermaid's only theme whose variables apply: edges and arrowheads in a grey that reads on dark and light.
	theme: "base",
	themeVariables: { lineColor: PLAN_EDGE_COLOR, arrowheadColor: PLAN_EDGE_COLOR, background: "transparent" },
	fontFamily: "Liberation Sans, Arial, DejaVu Sans, sans-serif, Noto Color Emoji",
	flowchart: {
		useMaxWidth: false,
		htmlLabels: false,
		wrappingWidth: 400,
		// A node is 4x this wider than its text (mermaid's default 15 spent 60 of a phone-width map's ~520 px on each node's padding).
		padding: 8,
		nodeSpacing: 30,
		rankSpacing: 40,
		curve: "basis",
	},
} as const;

// The inline script: a `__name` no-op (tsx/esbuild keepNames wraps functions we pass to page.evaluate in
// __name(...), which the page lacks) and a collector of CSP refusals.
const PAGE_HTML = `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:; font-src data:">
<style>html,body{margin:0;padding:0;background:transparent}#c{display:inline-block;padding:8px;background:transparent}</style>
<script>window.__name=function(f){return f};window.__lhRefused=[];document.addEventListener("securitypolicyviolation",function(e){window.__lhRefused.push(String(e.blockedURI))});</script>
</head><body><div id="c"></div></body></html>`;

/** A render failure with a code adapters and tests can branch on. */
export class RenderError extends Error {
	constructor(
		readonly code: "no-browser" | "launch" | "timeout" | "busy" | "mermaid" | "crashed" | "closed" | "render",
		message: string,
		options?: { cause?: unknown },
	) {
		super(message, options);
		this.name = "RenderError";
	}
}

/** Path of mermaid's browser bundle, resolved through mermaid-cli (whose dependency it is). */
export function mermaidBundlePath(): string {
	const require = createRequire(import.meta.url);
	try {
		const cli = require.resolve("@mermaid-js/mermaid-cli");
		return createRequire(cli).resolve("mermaid/dist/mermaid.min.js");
	} catch {
		return require.resolve("mermaid/dist/mermaid.min.js");
	}
}

let bundle: Promise<string> | undefined;
/** mermaid.min.js, read once per process (it is ~3 MB; every page evaluates the same text). */
export function loadMermaidBundle(): Promise<string> {
	bundle ??= readFile(mermaidBundlePath(), "utf8").catch((error: unknown) => {
		bundle = undefined;
		throw new RenderError("launch", `mermaid bundle not found (run npm install): ${String(error)}`, { cause: error });
	});
	return bundle;
}

/** Launches Chromium; a missing executable is a RenderError("no-browser") naming the fix. */
export async function launchChromium(executablePath: string, timeoutMs: number): Promise<Browser> {
	try {
		await access(executablePath, constants.X_OK);
	} catch {
		throw new RenderError("no-browser", `Chromium not found at ${executablePath}; ${CHROMIUM_FIX}`);
	}
	try {
		// The browser client loads with the first picture, not with the program (docs/operations.md "Start time").
		const { default: puppeteer } = await import("puppeteer");
		return await puppeteer.launch({
			executablePath,
			headless: true,
			// Over a pipe, not a WebSocket: when this process dies (kill -9, a crash, the OOM killer), the pipe
			// closes and Chromium exits with it. Over a WebSocket it stayed, orphaned, with its ~200 MB, once per
			// crash (a crash-looping bot piled them up).
			pipe: true,
			args: CHROMIUM_ARGS,
			timeout: timeoutMs,
			protocolTimeout: Math.max(30_000, timeoutMs * 2),
			handleSIGINT: false,
			handleSIGTERM: false,
			handleSIGHUP: false,
		});
	} catch (error) {
		throw new RenderError("launch", `Chromium at ${executablePath} did not start (${String(error)}); ${CHROMIUM_FIX}`, {
			cause: error,
		});
	}
}

/** Counts of what pages tried to fetch: interception aborts everything not data:/about:, and the page's CSP refuses loads before they reach the network (both count as blocked). */
export interface RequestCounters {
	allowed: number;
	blocked: number;
	blockedUrls: string[];
}

/** Pages already prepared (they keep the about:blank URL, so the URL cannot tell). */
const claimed = new WeakSet<Page>();

/** Opens a page with interception on, a 2x white viewport, and mermaid loaded and initialized. */
export async function openWarmPage(browser: Browser, counters: RequestCounters): Promise<Page> {
	const script = await loadMermaidBundle();
	// Chromium starts with one blank tab: use it rather than paying for another renderer process.
	const blank = (await browser.pages()).find((p) => p.url() === "about:blank" && !claimed.has(p));
	const page = blank ?? (await browser.newPage());
	claimed.add(page);
	try {
		await page.setRequestInterception(true);
		page.on("request", (request) => {
			if (request.isInterceptResolutionHandled()) return;
			const url = request.url();
			if (url.startsWith("data:") || url.startsWith("about:")) {
				counters.allowed++;
				request.continue().catch(() => undefined);
				return;
			}
			counters.blocked++;
			if (counters.blockedUrls.length < 20) counters.blockedUrls.push(url.slice(0, 200));
			request.abort("blockedbyclient").catch(() => undefined);
		});
		await page.setViewport({ width: 1024, height: 768, deviceScaleFactor: 2 });
		await page.setContent(PAGE_HTML, { waitUntil: "load" });
		await page.evaluate(script);
		await page.evaluate((config) => {
			const g = globalThis as unknown as { mermaid?: { initialize(c: unknown): void } };
			if (g.mermaid === undefined) throw new Error("mermaid did not load");
			g.mermaid.initialize(config);
		}, MERMAID_CONFIG);
		return page;
	} catch (error) {
		await page.close().catch(() => undefined);
		throw error;
	}
}

/** Padding around the diagram, in CSS pixels. */
const PAD = 8;
/** Largest canvas side we ask Chromium for (its hard limit is 32767; memory is the real bound). */
const MAX_CANVAS_SIDE = 16_384;

/** A chip of the legend drawn under the diagram. */
export interface LegendChip {
	label: string;
	fill: string;
	stroke: string;
	text: string;
}

/** How renderOnPage draws: background, width cap, legend, and a hook that sees the final SVG. */
export interface PageRenderOptions {
	/** Canvas background (CSS colour); absent = transparent. */
	background?: string;
	/** Widest PNG in device pixels: a wider diagram is drawn at less than 2x (under 1x if it must). */
	maxWidthPx?: number;
	/** Chips drawn in rows under the diagram. */
	legend?: readonly LegendChip[];
	/** Receives the SVG that was rasterized (diagram and legend), for tests and examples. */
	onSvg?: (svg: string) => void;
	/** Lay out only: onSvg receives the SVG, nothing is rasterized (the result is an empty buffer). */
	svgOnly?: boolean;
}

/**
 * Renders mermaid source in a warm page and returns the PNG. `renderId` must
 * be unique per page (mermaid uses it as a DOM id). The SVG (with the legend,
 * when asked, laid out under it in the same SVG) is rasterized on a canvas in
 * the page (an <img> of the SVG, which loads nothing external) at 2x, or less
 * down to 1x when `maxWidthPx` asks: ~5x cheaper than a compositor
 * screenshot. Should the canvas refuse (a tainted canvas), a clipped
 * screenshot is the fallback. Throws RenderError("mermaid") on a syntax
 * error; the page stays usable.
 */
export async function renderOnPage(
	page: Page,
	source: string,
	renderId: string,
	maxPixels: number,
	counters: RequestCounters,
	options: PageRenderOptions = {},
): Promise<Buffer> {
	const result = await page.evaluate(
		async (src, id, pad, maxSide, maxPx, opts) => {
			const g = globalThis as unknown as {
				mermaid: { render(id: string, src: string): Promise<{ svg: string }> };
				__lhRefused?: string[];
			};
			const NS = "http://www.w3.org/2000/svg";
			// CSP reports are queued as tasks: let them land before draining, so each render counts its own.
			const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
			const refused = (): string[] => (g.__lhRefused ?? []).splice(0);
			const container = document.getElementById("c");
			if (container === null) return { error: "page lost its container", refused: refused() };
			container.innerHTML = "";
			try {
				const { svg } = await g.mermaid.render(id, src);
				container.innerHTML = svg;
			} catch (error) {
				// mermaid leaves its scratch element behind on a syntax error
				document.getElementById(`d${id}`)?.remove();
				await settle();
				return { error: error instanceof Error ? error.message : String(error), refused: refused() };
			}
			const diagram = container.querySelector("svg");
			if (diagram === null) return { error: "mermaid produced no svg", refused: refused() };
			const box = diagram.getBoundingClientRect();
			const dw = Math.max(1, Math.ceil(box.width));
			const dh = Math.max(1, Math.ceil(box.height));
			diagram.setAttribute("width", String(dw));
			diagram.setAttribute("height", String(dh));
			// One outer SVG: the diagram on top, the legend's chips in rows under it (measured here, where the font is).
			const el = document.createElementNS(NS, "svg");
			el.setAttribute("xmlns", NS);
			container.appendChild(el);
			const chips = opts.legend ?? [];
			// 14 px: the legend stays >= 12 px when a ~460 px wide map is shown 400 px wide on a phone.
			const font = "14px Liberation Sans, Arial, DejaVu Sans, sans-serif, Noto Color Emoji";
			const rowLimit = Math.max(dw, 360); // chips wrap into rows rather than widen a narrow map
			let [x, y, legendW, legendH] = [0, dh + (chips.length > 0 ? 12 : 0), 0, 0];
			for (const chip of chips) {
				const text = document.createElementNS(NS, "text");
				text.setAttribute("style", `font:${font};fill:${chip.text}`);
				text.textContent = chip.label;
				el.appendChild(text);
				const w = Math.ceil(text.getComputedTextLength()) + 16;
				if (x > 0 && x + w > rowLimit) [x, y] = [0, y + 32];
				const rect = document.createElementNS(NS, "rect");
				for (const [k, v] of Object.entries({
					x,
					y,
					width: w,
					height: 26,
					rx: 5,
					fill: chip.fill,
					stroke: chip.stroke,
				}))
					rect.setAttribute(k, String(v));
				rect.setAttribute("stroke-width", "1.5");
				el.insertBefore(rect, text);
				text.setAttribute("x", String(x + 8));
				text.setAttribute("y", String(y + 18));
				[legendW, legendH] = [Math.max(legendW, x + w), y + 26];
				x += w + 8;
			}
			el.insertBefore(diagram, el.firstChild);
			const width = Math.max(dw, legendW);
			const height = Math.max(dh, legendH);
			diagram.setAttribute("x", String(Math.floor((width - dw) / 2)));
			el.setAttribute("width", String(width));
			el.setAttribute("height", String(height));
			el.setAttribute("viewBox", `0 0 ${width} ${height}`);
			const outW = width + pad * 2;
			const outH = height + pad * 2;
			// 2x for sharp text; narrower when a width cap asks; a huge diagram drops towards 1x.
			// The cap holds whatever the map: a map wider than it would be drawn under 1x (plan-source.ts keeps maps narrower).
			const fit = opts.maxWidthPx === undefined ? 2 : Math.min(2, opts.maxWidthPx / outW);
			const scale = Math.min(outW * outH * 4 > maxPx ? 1 : fit, maxSide / outW, maxSide / outH);
			const svgText = new XMLSerializer().serializeToString(el);
			if (opts.svgOnly === true) {
				await settle();
				return { png: "", svg: svgText, width: outW, height: outH, scale, refused: refused() };
			}
			let png: string | undefined;
			try {
				const img = new Image();
				img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgText)}`;
				await img.decode();
				const canvas = document.createElement("canvas");
				canvas.width = Math.round(outW * scale);
				canvas.height = Math.round(outH * scale);
				const ctx = canvas.getContext("2d");
				if (ctx === null) throw new Error("no 2d context");
				if (opts.background !== undefined) {
					ctx.fillStyle = opts.background;
					ctx.fillRect(0, 0, canvas.width, canvas.height);
				}
				ctx.scale(scale, scale);
				ctx.drawImage(img, pad, pad, width, height);
				png = canvas.toDataURL("image/png").slice("data:image/png;base64,".length);
			} catch {
				png = undefined; // fall back to a screenshot of the DOM
				container.style.background = opts.background ?? "transparent";
			}
			await settle();
			return { png, svg: svgText, width: outW, height: outH, scale, refused: refused() };
		},
		source,
		renderId,
		PAD,
		MAX_CANVAS_SIDE,
		maxPixels,
		{
			...(options.background !== undefined ? { background: options.background } : {}),
			...(options.maxWidthPx !== undefined ? { maxWidthPx: options.maxWidthPx } : {}),
			legend: options.legend ?? [],
			...(options.svgOnly === true ? { svgOnly: true } : {}),
		},
	);
	for (const url of result.refused) {
		counters.blocked++;
		if (counters.blockedUrls.length < 20) counters.blockedUrls.push(url.slice(0, 200));
	}
	if ("error" in result) throw new RenderError("mermaid", `mermaid could not draw the plan: ${result.error}`);
	options.onSvg?.(result.svg);
	if (options.svgOnly === true) return Buffer.alloc(0);
	if (result.png !== undefined && result.png !== "") return Buffer.from(result.png, "base64");
	const shot = await page.screenshot({
		type: "png",
		clip: { x: 0, y: 0, width: result.width, height: result.height, scale: result.scale / 2 },
		captureBeyondViewport: true,
		omitBackground: options.background === undefined,
	});
	return Buffer.from(shot);
}
