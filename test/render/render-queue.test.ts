/**
 * The renderer's page pool with Debian's Chromium: warm() readies it ahead of the first
 * picture, and a render waiting for a page is bounded: a full queue refuses at once
 * (code "busy"), a wait longer than queueTimeoutMs fails (code "timeout"), and the
 * renders that got a page still draw.
 */

import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/contracts/logger.ts";
import { createPlanRenderer, RenderError } from "../../src/render/index.ts";

const source = (n: number) => `flowchart TD\n  a${n}[Step ${n}] --> b${n}[Next]\n`;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe("plan renderer pool and queue", { timeout: 120_000 }, () => {
	it("warms up ahead of the first picture", async () => {
		const renderer = createPlanRenderer({ logger: silentLogger, poolSize: 2 });
		try {
			expect(renderer.readiness?.()).toBe("starting");
			expect(await renderer.warm?.()).toBe("ready");
			expect(renderer.readiness?.()).toBe("ready");
			expect(renderer.stats().launches).toBe(1);
			expect((await renderer.renderMermaid(source(0))).subarray(0, 4).equals(PNG)).toBe(true);
		} finally {
			await renderer.close();
		}
		expect(renderer.readiness?.()).toBe("unavailable");
	});

	it("refuses a render when the queue is full, and draws the others", async () => {
		const renderer = createPlanRenderer({ logger: silentLogger, poolSize: 1, queueLimit: 1, timeoutMs: 60_000 });
		try {
			const results = await Promise.allSettled([1, 2, 3].map((n) => renderer.renderMermaid(source(n))));
			expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
			const refused = (results[2] as PromiseRejectedResult).reason;
			expect(refused).toBeInstanceOf(RenderError);
			expect(refused).toMatchObject({ code: "busy" });
		} finally {
			await renderer.close();
		}
	});

	it("fails a render that waited longer than queueTimeoutMs for a page", async () => {
		const renderer = createPlanRenderer({ logger: silentLogger, poolSize: 1, queueTimeoutMs: 1, timeoutMs: 60_000 });
		try {
			const [first, second] = await Promise.allSettled([
				renderer.renderMermaid(source(4)),
				renderer.renderMermaid(source(5)),
			]);
			expect(first.status).toBe("fulfilled");
			expect(second.status === "rejected" && second.reason).toMatchObject({ code: "timeout" });
			expect(String((second as PromiseRejectedResult).reason.message)).toMatch(/no page was free/);
		} finally {
			await renderer.close();
		}
	});

	it("reports a missing browser as unavailable", async () => {
		const renderer = createPlanRenderer({ logger: silentLogger, executablePath: "/nonexistent/chromium" });
		try {
			expect(await renderer.warm?.()).toBe("unavailable");
			expect(renderer.readiness?.()).toBe("unavailable");
		} finally {
			await renderer.close();
		}
	});
});
