/**
 * Real renders with Debian's Chromium (/usr/bin/chromium, from `npm run setup`).
 * One renderer serves the whole file to keep the suite fast.
 */

import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/contracts/logger.ts";
import type { DerivedPlanStatuses, PlanTree } from "../../src/core/contracts/plan.ts";
import { launchChromium, openWarmPage, renderOnPage } from "../../src/render/chromium.ts";
import {
	createPlanRenderer,
	PLAN_CURRENT_FILL,
	type PlanRenderer,
	planMermaidSource,
	RenderError,
} from "../../src/render/index.ts";

const fill = PLAN_CURRENT_FILL.match(/[0-9a-f]{2}/gi)!.map((h) => Number.parseInt(h, 16));

/** Pixels of exactly the current node's fill colour. */
function countFill(png: Buffer): { width: number; height: number; hits: number } {
	const img = PNG.sync.read(png);
	let hits = 0;
	for (let i = 0; i < img.data.length; i += 4)
		if (img.data[i] === fill[0] && img.data[i + 1] === fill[1] && img.data[i + 2] === fill[2]) hits++;
	return { width: img.width, height: img.height, hits };
}

const plan: PlanTree = {
	version: 1,
	nodes: [
		{ id: "limits", title: "Limits" },
		{ id: "deriv", title: "The derivative as a rate of change" },
		{ id: "power", title: "Power rule" },
		{ id: "chain", title: "Chain rule" },
		{ id: "product", title: "Product rule" },
	],
	edges: [
		{ from: "limits", to: "deriv" },
		{ from: "deriv", to: "power" },
		{ from: "power", to: "chain" },
		{ from: "deriv", to: "product" },
	],
};
const statuses: DerivedPlanStatuses = { current: "chain", visited: new Set(["limits", "deriv", "power"]) };

describe("plan picture (Chromium)", () => {
	let renderer: PlanRenderer;
	beforeAll(() => {
		renderer = createPlanRenderer({ logger: silentLogger, timeoutMs: 15_000 });
	});
	afterAll(async () => {
		await renderer.close();
	});

	it("renders a PNG at 2x on white with the current node in its fill colour", async () => {
		const picture = await renderer.renderPlan(plan, statuses);
		expect(picture.error).toBeUndefined();
		expect(picture.caption).toBe("Now: Chain rule · 3 of 5 visited");
		const { width, height, hits } = countFill(picture.png!);
		expect(width).toBeGreaterThan(400);
		expect(width).toBeLessThan(2400);
		expect(height).toBeGreaterThan(400);
		expect(height).toBeLessThan(3000);
		expect(hits).toBeGreaterThan(2000); // a filled box, not a stray anti-aliased pixel
		const corner = PNG.sync.read(picture.png!).data.subarray(0, 3);
		expect([...corner]).toEqual([255, 255, 255]);
		// Nothing is current: no orange anywhere.
		const none = await renderer.renderPlan(plan, { current: null, visited: new Set() });
		expect(countFill(none.png!).hits).toBe(0);
	});

	it("serves an identical state from the cache", async () => {
		const before = renderer.stats();
		const a = await renderer.renderPlan(plan, statuses);
		const b = await renderer.renderPlan(plan, { current: "chain", visited: new Set(["power", "deriv", "limits"]) });
		expect(b.key).toBe(a.key);
		expect(b.png).toBe(a.png);
		expect(renderer.stats().cacheHits).toBe(before.cacheHits + 2);
		expect(renderer.stats().renders).toBe(before.renders);
	});

	it("blocks every request a page makes (proved with a mermaid image node)", async () => {
		const before = renderer.stats().blockedRequests;
		// The fetch is refused, so mermaid cannot decode the image and the render fails cleanly.
		await expect(
			renderer.renderMermaid(
				'flowchart TD\n  a@{ img: "https://evil.example/track.png", label: "img", pos: "t", w: 40, h: 40, constraint: "off" }\n',
			),
		).rejects.toMatchObject({ code: "mermaid" });
		const after = renderer.stats();
		expect(after.blockedRequests).toBeGreaterThan(before);
		expect(after.blockedUrls.some((u) => u.startsWith("https://evil.example/"))).toBe(true);
	});

	it("draws hostile labels as text without any request leaving the page", async () => {
		const hostile: PlanTree = {
			version: 2,
			nodes: [
				{ id: "a", title: 'Quotes "and" brackets ] [ ) ( } {' },
				{ id: "b", title: "<script>fetch('https://evil.example/x')</script>" },
				{ id: "c", title: '<img src="https://evil.example/y.png" onerror="alert(1)">' },
				{ id: "d", title: "![pic](https://evil.example/z.png) https://evil.example/page" },
				{ id: "e", title: "Emoji 🚀🧠 `code` #quot; #35; &amp; a@{ img: 'https://evil.example/w.png' }" },
				{ id: "f", title: "x".repeat(300) },
			],
			edges: [
				{ from: "a", to: "b" },
				{ from: "b", to: "c" },
				{ from: "a", to: "d" },
				{ from: "d", to: "e" },
				{ from: "e", to: "f" },
			],
		};
		const before = renderer.stats().blockedRequests;
		const picture = await renderer.renderPlan(hostile, { current: "c", visited: new Set(["a", "b"]) });
		expect(picture.error).toBeUndefined();
		expect(countFill(picture.png!).hits).toBeGreaterThan(1000);
		expect(renderer.stats().blockedRequests).toBe(before);
	});

	it("keeps a 40-node plan readable: bounded width, text at natural size", async () => {
		// A root and 6 strands of 6-7 chained steps: a realistic large lesson map.
		const nodes = [{ id: "root", title: "Calculus for physics" }];
		const edges: PlanTree["edges"] = [];
		for (let s = 0; s < 6; s++)
			for (let k = 0; k < (s < 3 ? 7 : 6); k++) {
				const id = `s${s}k${k}`;
				nodes.push({ id, title: `Strand ${s + 1} step ${k + 1}: a longer title` });
				edges.push({ from: k === 0 ? "root" : `s${s}k${k - 1}`, to: id });
			}
		const big: PlanTree = { version: 1, nodes, edges };
		expect(nodes).toHaveLength(40);
		const picture = await renderer.renderPlan(big, {
			current: "s2k3",
			visited: new Set(["root", "s2k0", "s2k1", "s2k2"]),
		});
		expect(picture.error).toBeUndefined();
		const { width, height, hits } = countFill(picture.png!);
		expect(width).toBeLessThan(4000); // ~2000 CSS px at 2x
		expect(height).toBeLessThan(6000);
		expect(width).toBeGreaterThan(6 * 120 * 2); // six columns of unsqueezed boxes
		expect(hits).toBeGreaterThan(1000);
	});

	it("queues concurrent renders and shares identical ones", async () => {
		const before = renderer.stats();
		const sources = [0, 1, 2, 3].map((i) => `flowchart TD\n  a${i} --> b${i}\n`);
		const pngs = await Promise.all([...sources, sources[0]!, sources[0]!].map((src) => renderer.renderMermaid(src)));
		for (const png of pngs) expect(PNG.sync.read(png).width).toBeGreaterThan(0);
		expect(pngs[4]).toBe(pngs[0]);
		expect(renderer.stats().renders).toBe(before.renders + 4);
	});

	it("reports a mermaid syntax error and keeps working", async () => {
		await expect(renderer.renderMermaid("flowchart TD\n  a[[[ --> ")).rejects.toMatchObject({ code: "mermaid" });
		const png = await renderer.renderMermaid("flowchart TD\n  a --> b\n");
		expect(PNG.sync.read(png).width).toBeGreaterThan(0);
	});

	it("relaunches Chromium once after a crash", async () => {
		const pid = renderer.stats().browserPid;
		expect(pid).toBeTypeOf("number");
		const launches = renderer.stats().launches;
		process.kill(pid!, "SIGKILL"); // the browser this test file started
		const picture = await renderer.renderPlan(plan, { current: "power", visited: new Set(["limits", "deriv"]) });
		expect(picture.error).toBeUndefined();
		expect(countFill(picture.png!).hits).toBeGreaterThan(1000);
		expect(renderer.stats().launches).toBe(launches + 1);
		expect(renderer.stats().browserPid).not.toBe(pid);
	});
});

describe("screenshot fallback", () => {
	it("still draws when the page's canvas refuses to export", async () => {
		const browser = await launchChromium("/usr/bin/chromium", 30_000);
		try {
			const counters = { allowed: 0, blocked: 0, blockedUrls: [] };
			const page = await openWarmPage(browser, counters);
			await page.evaluate(() => {
				HTMLCanvasElement.prototype.toDataURL = () => {
					throw new DOMException("tainted", "SecurityError");
				};
			});
			const png = await renderOnPage(page, planMermaidSource(plan, statuses), "fallback1", 48_000_000, counters);
			const { width, hits } = countFill(png);
			expect(width).toBeGreaterThan(400);
			expect(hits).toBeGreaterThan(2000);
		} finally {
			await browser.close();
		}
	});
});

describe("plan picture without Chromium", () => {
	it("returns the outline and an error naming the fix", async () => {
		const renderer = createPlanRenderer({ executablePath: "/nonexistent/chromium" });
		try {
			const picture = await renderer.renderPlan(plan, statuses);
			expect(picture.png).toBeUndefined();
			expect(picture.error).toMatch(/apt-get install chromium/);
			expect(picture.error).toMatch(/PUPPETEER_EXECUTABLE_PATH/);
			expect(picture.outline).toContain("▶ Chain rule");
			await expect(renderer.renderMermaid("flowchart TD\n a\n")).rejects.toBeInstanceOf(RenderError);
			expect(renderer.stats().launches).toBe(0);
		} finally {
			await renderer.close();
		}
	});

	it("refuses renders after close", async () => {
		const renderer = createPlanRenderer({ executablePath: "/nonexistent/chromium" });
		await renderer.close();
		await renderer.close();
		await expect(renderer.renderMermaid("flowchart TD\n a\n")).rejects.toMatchObject({ code: "closed" });
		expect((await renderer.renderPlan(plan, statuses)).error).toMatch(/closed/);
	});
});
