/**
 * Real renders with Debian's Chromium (/usr/bin/chromium, from `npm run setup`).
 * One renderer serves the whole file to keep the suite fast.
 */

import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/contracts/logger.ts";
import { launchChromium, openWarmPage, renderOnPage } from "../../src/render/chromium.ts";
import {
	createPlanRenderer,
	PLAN_COLORS,
	PLAN_MAX_WIDTH_PX,
	type PlanRenderer,
	planLegendItems,
	planMermaidSource,
	RenderError,
} from "../../src/render/index.ts";
import {
	calculusPlan,
	calculusStatuses,
	fortyNodePlan,
	fortyNodeStatuses,
	hostilePlan,
	noStatuses,
} from "../../testkit/plans.ts";

const fill = PLAN_COLORS.current.fill.match(/[0-9a-f]{2}/gi)!.map((h) => Number.parseInt(h, 16));

/**
 * Pixels of exactly the current node's fill colour, and their bounding box (the current node's box).
 * The legend's "current" chip shares the colour and sits under the diagram: the last band of orange
 * rows is the chip, counted apart (`legendHits`).
 */
function countFill(png: Buffer): {
	width: number;
	height: number;
	hits: number;
	legendHits: number;
	box: { w: number; h: number };
} {
	const img = PNG.sync.read(png);
	const rows: Array<{ y: number; xs: number[] }> = [];
	for (let y = 0; y < img.height; y++) {
		const xs: number[] = [];
		for (let x = 0; x < img.width; x++) {
			const i = (y * img.width + x) * 4;
			if (img.data[i] === fill[0] && img.data[i + 1] === fill[1] && img.data[i + 2] === fill[2]) xs.push(x);
		}
		if (xs.length > 0) rows.push({ y, xs });
	}
	let bandStart = rows.length - 1;
	while (bandStart > 0 && (rows[bandStart - 1]?.y ?? 0) === (rows[bandStart]?.y ?? 0) - 1) bandStart--;
	const count = (rs: typeof rows) => rs.reduce((n, r) => n + r.xs.length, 0);
	const node = rows.slice(0, Math.max(0, bandStart));
	const xs = node.flatMap((r) => [Math.min(...r.xs), Math.max(...r.xs)]);
	const box =
		node.length === 0
			? { w: 0, h: 0 }
			: { w: Math.max(...xs) - Math.min(...xs) + 1, h: (node.at(-1)?.y ?? 0) - (node[0]?.y ?? 0) + 1 };
	return { width: img.width, height: img.height, hits: count(node), legendHits: count(rows.slice(bandStart)), box };
}

const plan = calculusPlan;
const statuses = calculusStatuses;

describe("plan picture (Chromium)", () => {
	let renderer: PlanRenderer;
	beforeAll(() => {
		renderer = createPlanRenderer({ logger: silentLogger, timeoutMs: 15_000 });
	});
	afterAll(async () => {
		await renderer.close();
	});

	it("renders a PNG on a transparent background, within a chat column, with the current node in its fill colour", async () => {
		const picture = await renderer.renderPlan(plan, statuses);
		expect(picture.error).toBeUndefined();
		expect(picture.caption).toBe("Now: Chain rule · 3 of 5 visited");
		const { width, height, hits } = countFill(picture.png!);
		expect(width).toBeGreaterThan(400);
		expect(width).toBeLessThanOrEqual(PLAN_MAX_WIDTH_PX);
		expect(height).toBeGreaterThan(400);
		expect(height).toBeLessThan(3000);
		expect(hits).toBeGreaterThan(2000); // a filled box, not a stray anti-aliased pixel
		const corner = PNG.sync.read(picture.png!).data.subarray(0, 4);
		expect(corner[3]).toBe(0); // transparent: the chat's own background shows
		expect(picture.alt).toMatch(/^Lesson map, 5 steps, now on Chain rule\. Limits \(visited, not yet\);/);
		// Nothing is current: no orange but the legend's chip.
		const none = countFill((await renderer.renderPlan(plan, noStatuses())).png!);
		expect(none.hits).toBe(0);
		expect(none.legendHits).toBeGreaterThan(500);
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
		const before = renderer.stats().blockedRequests;
		const picture = await renderer.renderPlan(hostilePlan, { current: "c", visited: new Set(["a", "b"]) });
		expect(picture.error).toBeUndefined();
		expect(countFill(picture.png!).hits).toBeGreaterThan(1000);
		expect(renderer.stats().blockedRequests).toBe(before);
	});

	it("keeps a 40-node plan readable: a phone column wide at 2x, text not squeezed", async () => {
		const big = fortyNodePlan();
		expect(big.nodes).toHaveLength(40);
		const picture = await renderer.renderPlan(big, fortyNodeStatuses());
		expect(picture.error).toBeUndefined();
		const { width, height, hits, box } = countFill(picture.png!);
		// Its six strands wrap into rows (plan-source.ts): narrow enough for 2x within the cap, and tall.
		expect(width).toBeLessThanOrEqual(PLAN_MAX_WIDTH_PX);
		expect(height).toBeGreaterThan(width * 3);
		expect(height).toBeLessThan(12_000);
		expect(hits).toBeGreaterThan(250);
		// Text not squeezed: the current node's box is the same node drawn alone (at 2x), at the big map's scale.
		const title = big.nodes.find((n) => n.id === "s2k3")?.title ?? "";
		const alone = await renderer.renderPlan(
			{ version: 1, nodes: [{ id: "x", title }], edges: [] },
			{ current: "x", visited: new Set() },
		);
		const single = countFill(alone.png!).box;
		expect(single.h).toBeGreaterThan(2 * 40); // two label lines at 2x
		const scale = box.w / single.w;
		expect(scale).toBeGreaterThanOrEqual(0.99); // 2x, like the node alone
		expect(Math.abs(box.h - single.h * scale)).toBeLessThanOrEqual(2); // same shape: not squeezed
		// Without the width cap the map is the same picture: it never needed shrinking.
		const wide = createPlanRenderer({ logger: silentLogger, timeoutMs: 15_000, maxWidthPx: 10_000 });
		try {
			const natural = countFill((await wide.renderPlan(big, fortyNodeStatuses())).png!);
			expect(natural.width).toBe(width);
			expect(Math.abs(natural.box.w - single.w)).toBeLessThanOrEqual(2);
			expect(Math.abs(natural.box.h - single.h)).toBeLessThanOrEqual(2);
		} finally {
			await wide.close();
		}
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
		// A map not laid out yet (a new state of one laid out before is painted without Chromium).
		const grown = { ...plan, nodes: [...plan.nodes, { id: "integrals", title: "Integrals" }] };
		const picture = await renderer.renderPlan(grown, { current: "power", visited: new Set(["limits", "deriv"]) });
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
			const look = { legend: planLegendItems(), maxWidthPx: PLAN_MAX_WIDTH_PX };
			const png = await renderOnPage(page, planMermaidSource(plan, statuses), "fallback1", 48_000_000, counters, look);
			const { width, hits, legendHits } = countFill(png);
			expect(width).toBeGreaterThan(400);
			expect(width).toBeLessThanOrEqual(PLAN_MAX_WIDTH_PX);
			expect(hits).toBeGreaterThan(2000);
			expect(legendHits).toBeGreaterThan(500);
			expect(PNG.sync.read(png).data[3]).toBe(0); // the screenshot keeps the background transparent too
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
