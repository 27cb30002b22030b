/**
 * The plan picture: a PlanRenderer turns a plan (or any mermaid source) into
 * a PNG with one long-lived Chromium and a small pool of warm pages (mermaid
 * loaded once per page; two by default: measured 6 -> 12 pictures a second).
 * Launch is lazy (or ahead of time with warm()); renders queue for a page in a
 * bounded queue (a full queue refuses at once, a wait for a page is timed out),
 * each render is timed out, a crashed browser is relaunched once per render, and
 * results are cached by source (identical states render once). renderPlan never
 * throws: without Chromium it returns the caption and a text outline plus an
 * error naming the fix.
 */

import type { Browser, Page } from "puppeteer";
import { type Logger, silentLogger } from "../core/contracts/logger.ts";
import type { DerivedPlanStatuses, PlanTree } from "../core/contracts/plan.ts";
import type { PlanMastery } from "../core/mastery.ts";
import { DEFAULT_LOCALE, type Locale } from "../i18n/index.ts";
import {
	DEFAULT_CHROMIUM_PATH,
	launchChromium,
	openWarmPage,
	type PageRenderOptions,
	RenderError,
	type RequestCounters,
	renderOnPage,
} from "./chromium.ts";
import { createMapPainter } from "./map-painter.ts";
import { planAltText } from "./plan-alt.ts";
import { planCaption, planMermaidSource, planOutline, planPictureKey } from "./plan-source.ts";
import { planLegendItems } from "./plan-style.ts";
import { sharedResults } from "./shared-results.ts";

/** Options of createPlanRenderer; every field has a sensible default. */
export interface PlanRendererOptions {
	/** Chromium binary; default env PUPPETEER_EXECUTABLE_PATH, else /usr/bin/chromium. */
	executablePath?: string;
	/** Warm pages rendering in parallel (default 2, at most 8; LEARNHARNESS_RENDER_PAGES). */
	poolSize?: number;
	/** Time limit of one render on a warm page (default 10 s). */
	timeoutMs?: number;
	/** Renders that may wait for a busy page (default 32); more are refused at once (code "busy"). */
	queueLimit?: number;
	/** How long a render may wait for a page (default: timeoutMs); then it fails with code "timeout". */
	queueTimeoutMs?: number;
	/** Rendered PNGs kept by source (default 64; 0 disables the cache). */
	cacheSize?: number;
	/**
	 * Lesson maps laid out once per structure and re-coloured per state without Chromium (map-painter.ts; default
	 * on). Off: every new state is a Chromium render. Layouts kept: `layoutCacheSize` (default 64).
	 */
	layoutCache?: boolean;
	layoutCacheSize?: number;
	/** Time limit of launching Chromium and warming a page (default 30 s). */
	launchTimeoutMs?: number;
	/** Widest plan PNG in device pixels (default PLAN_MAX_WIDTH_PX: a chat column at 2x); a wider map is drawn at less than 2x. */
	maxWidthPx?: number;
	/** Plan picture background (CSS colour); default transparent, which reads on dark and light themes. */
	background?: string;
	logger?: Logger;
}

/** Default widest plan PNG: 1,100 device pixels, i.e. a ~550 px chat column (Discord's inline image width) at 2x. */
export const PLAN_MAX_WIDTH_PX = 1100;

/** What adapters post for a plan: the picture when it could be made, else the outline. */
export interface PlanPicture {
	/** Stable hash of what is drawn: equal keys, identical picture. */
	key: string;
	/** e.g. "Now: Chain rule · 2 of 5 visited". */
	caption: string;
	/** Text outline of the plan: post it when `png` is absent. */
	outline: string;
	/** Alt text for screen readers: every node with its status (<= 1,000 chars: fits Discord and Slack). */
	alt?: string;
	png?: Buffer;
	/** Why there is no picture, naming the fix (e.g. how to install Chromium). */
	error?: string;
}

/** Counters for logs, tests and the benchmark. */
export interface PlanRendererStats {
	launches: number;
	renders: number;
	cacheHits: number;
	failures: number;
	/** Loads pages tried that were not data:/about: (all blocked: by interception or the page's CSP). */
	blockedRequests: number;
	blockedUrls: readonly string[];
	/** The running Chromium's process id, when one runs. */
	browserPid?: number;
	/** Map layouts made by Chromium, and map pictures painted from a kept layout (without Chromium), `outlined` of them from its outlines (no text shaped). */
	layouts?: number;
	painted?: number;
	outlined?: number;
}

/** Default warm pages of a renderer. */
export const DEFAULT_RENDER_PAGES = 2;

/** Turns plans into PNGs with one warm Chromium. */
export interface PlanRenderer {
	/** Picture (with its legend), caption, outline and alt text of a plan state; never throws. */
	renderPlan(
		tree: PlanTree,
		statuses: DerivedPlanStatuses,
		mastery?: PlanMastery,
		locale?: Locale,
	): Promise<PlanPicture>;
	/** PNG of any mermaid source; throws RenderError (code no-browser | launch | timeout | mermaid | crashed | closed). */
	renderMermaid(source: string): Promise<Buffer>;
	stats(): PlanRendererStats;
	/**
	 * Launch Chromium and prepare the pool's pages now, so the first picture is not slow:
	 * resolves "ready", or "unavailable" (no browser: pictures fall back to outlines). Never rejects.
	 */
	warm?(): Promise<"ready" | "unavailable">;
	/** Whether warm() (or a render) has a working browser: "starting" until it knows. */
	readiness?(): "starting" | "ready" | "unavailable";
	/** Closes Chromium; later renders fail with code "closed". Safe to call twice. */
	close(): Promise<void>;
}

const MAX_SOURCE_CHARS = 200_000;
/** Device pixels above which a diagram is captured at 1x instead of 2x. */
const MAX_PIXELS_2X = 48_000_000;

/** Creates a PlanRenderer; Chromium starts on the first render, not here. */
export function createPlanRenderer(options: PlanRendererOptions = {}): PlanRenderer {
	const executablePath = options.executablePath ?? process.env.PUPPETEER_EXECUTABLE_PATH ?? DEFAULT_CHROMIUM_PATH;
	const poolSize = Math.max(1, Math.min(8, Math.floor(options.poolSize ?? DEFAULT_RENDER_PAGES)));
	const timeoutMs = Math.max(100, options.timeoutMs ?? 10_000);
	const queueLimit = Math.max(0, Math.floor(options.queueLimit ?? 32));
	const queueTimeoutMs = Math.max(1, options.queueTimeoutMs ?? timeoutMs);
	const launchTimeoutMs = Math.max(1_000, options.launchTimeoutMs ?? 30_000);
	const cacheSize = Math.max(0, Math.floor(options.cacheSize ?? 64));
	const planLook = (locale: Locale): PageRenderOptions => ({
		legend: planLegendItems(locale),
		maxWidthPx: Math.max(200, options.maxWidthPx ?? PLAN_MAX_WIDTH_PX),
		...(options.background !== undefined ? { background: options.background } : {}),
	});
	/** Bare mermaid (renderMermaid) keeps the old look: 2x on white, no legend. */
	const bareLook: PageRenderOptions = { background: "#ffffff" };
	const logger = (options.logger ?? silentLogger).child({ component: "plan-renderer" });
	const results = sharedResults<Buffer>(cacheSize);
	const counters: RequestCounters = { allowed: 0, blocked: 0, blockedUrls: [] };
	const stats = { launches: 0, renders: 0, cacheHits: 0, failures: 0 };

	let closed = false;
	let browser: Promise<Browser> | undefined;
	let liveBrowser: Browser | undefined;
	let generation = 0;
	let pageCount = 0;
	let idle: Page[] = [];
	let waiters: Array<() => void> = [];
	let readiness: "starting" | "ready" | "unavailable" = "starting";
	const pageGeneration = new WeakMap<Page, number>();
	let renderSeq = 0;

	function getBrowser(): Promise<Browser> {
		if (browser !== undefined) return browser;
		const started = performance.now();
		const launching = launchChromium(executablePath, launchTimeoutMs).then(
			(b) => {
				if (closed) {
					void b.close().catch(() => undefined);
					throw new RenderError("closed", "the plan renderer is closed");
				}
				stats.launches++;
				liveBrowser = b;
				readiness = "ready";
				logger.info({ ms: Math.round(performance.now() - started), pid: b.process()?.pid }, "chromium launched");
				b.once("disconnected", () => {
					if (liveBrowser !== b) return;
					if (!closed) logger.warn({}, "chromium disconnected; relaunching on the next render");
					liveBrowser = undefined;
					browser = undefined;
					generation++;
					pageCount = 0;
					idle = [];
					wakeAll();
				});
				return b;
			},
			(error: unknown) => {
				browser = undefined; // the next render tries again (e.g. after Chromium was installed)
				readiness = "unavailable";
				throw error;
			},
		);
		browser = launching;
		return launching;
	}

	function wakeAll(): void {
		const pending = waiters;
		waiters = [];
		for (const wake of pending) wake();
	}

	async function acquire(): Promise<{ page: Page; browser: Browser }> {
		for (;;) {
			if (closed) throw new RenderError("closed", "the plan renderer is closed");
			const b = await getBrowser();
			const page = idle.pop();
			if (page !== undefined) return { page, browser: b };
			if (pageCount < poolSize) {
				pageCount++;
				const gen = generation;
				try {
					const fresh = await openWarmPage(b, counters);
					pageGeneration.set(fresh, gen);
					return { page: fresh, browser: b };
				} catch (error) {
					if (gen === generation) pageCount--;
					if (!b.connected) throw new RenderError("crashed", "chromium crashed while opening a page", { cause: error });
					throw new RenderError("launch", `could not prepare a page: ${String(error)}`, { cause: error });
				}
			}
			// Every page is busy: wait (bounded in count and time) for one to come back, a crash or a close.
			await waitForPage();
		}
	}

	function waitForPage(): Promise<void> {
		if (waiters.length >= queueLimit)
			return Promise.reject(new RenderError("busy", `${waiters.length} pictures are already waiting for a page`));
		return new Promise<void>((resolve, reject) => {
			const wake = () => {
				clearTimeout(timer);
				resolve();
			};
			const timer = setTimeout(() => {
				waiters = waiters.filter((w) => w !== wake);
				reject(new RenderError("timeout", `no page was free within ${queueTimeoutMs} ms`));
			}, queueTimeoutMs);
			waiters.push(wake);
		});
	}

	async function warm(): Promise<"ready" | "unavailable"> {
		try {
			const pages: Array<{ page: Page; browser: Browser }> = [];
			// Take every page of the pool at once (each opens warm), then give them back.
			for (let i = 0; i < poolSize; i++) pages.push(await acquire());
			for (const { page } of pages) release(page, true);
			return "ready";
		} catch (error) {
			if (closed) return "unavailable"; // closed while warming (a start that failed): nothing to report
			logger.warn({ err: error instanceof Error ? error.message : String(error) }, "chromium could not be warmed");
			return readiness === "ready" ? "ready" : "unavailable";
		}
	}

	function release(page: Page, healthy: boolean): void {
		const current = pageGeneration.get(page) === generation && !closed;
		if (healthy && current) idle.push(page);
		else {
			if (current) pageCount--;
			void page.close().catch(() => undefined);
		}
		waiters.shift()?.();
	}

	async function renderOnce(source: string, look: PageRenderOptions): Promise<Buffer> {
		const { page, browser: b } = await acquire();
		let timer: NodeJS.Timeout | undefined;
		try {
			const timeout = new Promise<never>((_, reject) => {
				timer = setTimeout(() => reject(new RenderError("timeout", `render took over ${timeoutMs} ms`)), timeoutMs);
			});
			const png = await Promise.race([
				renderOnPage(page, source, `lh${++renderSeq}`, MAX_PIXELS_2X, counters, look),
				timeout,
			]);
			release(page, true);
			return png;
		} catch (error) {
			// A syntax error leaves the page fine; anything else (timeout, protocol error) retires it.
			release(page, error instanceof RenderError && error.code === "mermaid");
			if (!b.connected) throw new RenderError("crashed", "chromium crashed during a render", { cause: error });
			if (error instanceof RenderError) throw error;
			throw new RenderError("render", `render failed: ${String(error)}`, { cause: error });
		} finally {
			clearTimeout(timer);
		}
	}

	/** A render that survives one Chromium crash (relaunched once). */
	async function renderRetrying(source: string, look: PageRenderOptions): Promise<Buffer> {
		try {
			return await renderOnce(source, look);
		} catch (error) {
			if (!(error instanceof RenderError && error.code === "crashed") || closed) throw error;
			logger.warn({ err: error.message }, "chromium crashed; relaunching once");
			return renderOnce(source, look);
		}
	}

	const painter =
		options.layoutCache === false
			? undefined
			: createMapPainter({
					layout: async (source, look) => {
						let svg = "";
						await renderRetrying(source, { ...look, onSvg: (drawn) => (svg = drawn) });
						return svg;
					},
					...(options.layoutCacheSize !== undefined ? { cacheSize: options.layoutCacheSize } : {}),
				});

	/** A plan state's PNG: painted from its map's kept layout, else rendered by Chromium. */
	async function paintOrRender(
		tree: PlanTree,
		statuses: DerivedPlanStatuses,
		mastery: PlanMastery | undefined,
		locale: Locale,
		source: string,
		key: string,
		look: PageRenderOptions,
	): Promise<Buffer> {
		if (painter) {
			let png: Buffer | undefined;
			try {
				png = await painter.paint(tree, statuses, mastery, locale, look);
			} catch (error) {
				// Chromium's own failures (no browser, timeout, a bad map) are the render's; resvg's fall back to Chromium.
				if (error instanceof RenderError) throw error;
				logger.warn({ err: error instanceof Error ? error.message : String(error) }, "map painting failed; rendering");
			}
			if (png !== undefined) {
				stats.renders++;
				results.keep(key, png);
				return png;
			}
		}
		return renderFresh(source, key, look);
	}

	async function renderFresh(source: string, key: string, look: PageRenderOptions): Promise<Buffer> {
		const started = performance.now();
		try {
			const png = await renderRetrying(source, look);
			stats.renders++;
			results.keep(key, png);
			logger.debug({ ms: Math.round(performance.now() - started), bytes: png.length }, "plan rendered");
			return png;
		} catch (error) {
			stats.failures++;
			throw error;
		}
	}

	/** Cached and shared by key: identical concurrent renders run once (`draw`: how a missing one is made). */
	async function render(
		source: string,
		look: PageRenderOptions,
		plan: Locale | undefined,
		draw: (key: string) => Promise<Buffer> = (key) => renderFresh(source, key, look),
	): Promise<Buffer> {
		if (closed) throw new RenderError("closed", "the plan renderer is closed");
		if (typeof source !== "string" || source.trim() === "" || source.length > MAX_SOURCE_CHARS)
			throw new RenderError("mermaid", `mermaid source must be 1 to ${MAX_SOURCE_CHARS} characters`);
		// A plan picture's legend is in its lesson's language: the language is part of the key.
		const key = plan === undefined ? source : plan === DEFAULT_LOCALE ? `plan\0${source}` : `plan\0${plan}\0${source}`;
		return results.get(
			key,
			() => draw(key),
			() => stats.cacheHits++,
		);
	}

	const renderMermaid = (source: string): Promise<Buffer> => render(source, bareLook, undefined);

	async function renderPlan(
		tree: PlanTree,
		statuses: DerivedPlanStatuses,
		mastery?: PlanMastery,
		locale: Locale = DEFAULT_LOCALE,
	): Promise<PlanPicture> {
		const source = planMermaidSource(tree, statuses, mastery);
		const base = {
			key: planPictureKey(locale === DEFAULT_LOCALE ? source : `${source}\0${locale}`),
			caption: planCaption(tree, statuses, mastery, locale),
			outline: planOutline(tree, statuses, mastery, locale),
			alt: planAltText(tree, statuses, mastery, undefined, locale),
		};
		if (tree.nodes.length === 0) return { ...base, error: "The plan has no steps yet." };
		try {
			const look = planLook(locale);
			const draw = (key: string) => paintOrRender(tree, statuses, mastery, locale, source, key, look);
			return { ...base, png: await render(source, look, locale, draw) };
		} catch (error) {
			const message =
				error instanceof RenderError && (error.code === "no-browser" || error.code === "launch")
					? `Plan picture unavailable: ${error.message}`
					: `Plan picture failed: ${error instanceof Error ? error.message : String(error)}`;
			logger.warn({ err: message }, "plan picture failed; posting the outline");
			return { ...base, error: message };
		}
	}

	async function close(): Promise<void> {
		if (closed) return;
		closed = true;
		wakeAll();
		results.clear();
		painter?.clear();
		const pending = browser;
		browser = undefined;
		idle = [];
		const b = liveBrowser ?? (await pending?.catch(() => undefined));
		liveBrowser = undefined;
		await b?.close().catch(() => undefined);
		// close() ends the process tree; make sure nothing lingers if the protocol was already gone.
		const proc = b?.process();
		if (proc !== undefined && proc !== null && proc.exitCode === null) proc.kill("SIGKILL");
	}

	return {
		renderPlan,
		renderMermaid,
		warm,
		readiness: () => (closed ? "unavailable" : readiness),
		close,
		stats: () => ({
			...stats,
			...(painter ? painter.stats() : {}),
			blockedRequests: counters.blocked,
			blockedUrls: [...counters.blockedUrls],
			browserPid: liveBrowser?.process()?.pid,
		}),
	};
}
