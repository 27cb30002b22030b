/**
 * Formulas are typeset in a worker thread with a heap and a time budget of its own: a runaway
 * formula costs the process nothing (it stays code), a worker stopped for time or memory is
 * replaced, a failed formula is not tried again, and a card stops trying after a bounded number.
 */

import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { Card } from "../../src/render/cards/model.ts";
import {
	createMathRenderer,
	type MathRenderer,
	type MathResult,
	prepareCard,
	texCodeSpan,
} from "../../src/render/index.ts";
import { MATH_MAX_CHARS } from "../../src/render/math/find-math.ts";

const STUB = pathToFileURL(fileURLToPath(new URL("../fixtures/math-worker-stub.ts", import.meta.url)));

/**
 * About 1,900 characters of TeX whose `\def`s each draw the one before twice (in `\frac`s, which
 * parse their arguments afresh, so MathJax's macro count never trips): 2^22 fractions. On the
 * event loop with `\def` loaded it took minutes and gigabytes before it failed.
 */
function runawayFormula(): string {
	const depth = 22;
	const name = (i: number) =>
		`\\expandingmacrosoflevels${String.fromCharCode(97 + Math.floor(i / 26))}${String.fromCharCode(97 + (i % 26))}`;
	let tex = `\\def${name(0)}{x}`;
	for (let i = 1; i < depth; i++) tex += `\\def${name(i)}{\\frac${name(i - 1)}${name(i - 1)}}`;
	return `${tex}${name(depth - 1)}`;
}

const explain = (body: string): Card => ({ kind: "explain", toolCallId: "e1", body });

describe("the math sandbox", () => {
	it("a runaway \\def formula of ~1,900 characters stays code within seconds; the process's heap does not grow", {
		timeout: 60_000,
	}, async () => {
		const math = createMathRenderer();
		try {
			expect((await math.render("x^2", true)).ok).toBe(true); // the worker is up (not what is measured)
			const tex = runawayFormula();
			expect(tex.length).toBeGreaterThan(1_900);
			expect(tex.length).toBeLessThanOrEqual(MATH_MAX_CHARS);
			const heap = process.memoryUsage().heapUsed;
			const card = await prepareCard(explain(`Look:\n\n$$${tex}$$\n\nNice.`), math);
			// Refused at once (\def is not loaded), not stopped by the formula's 2 s budget: the worker that drew x^2 is
			// still the only one (a formula over budget replaces it). No clock read: the old code never came back here.
			expect(math.stats().workers).toBe(1);
			expect(process.memoryUsage().heapUsed - heap).toBeLessThan(100 * 1024 * 1024);
			expect(card.kind === "explain" && card.body).toContain(texCodeSpan(tex));
			expect("attachments" in card ? (card.attachments ?? []) : []).toEqual([]);
			// Remembered: asked again, it is not tried again.
			expect(await math.render(tex, true)).toMatchObject({ ok: false });
			expect(math.stats()).toMatchObject({ renders: 2, knownFailures: 1, workers: 1 });
		} finally {
			await math.close();
		}
	});

	it("formulas render in the worker, one worker for all of them; bad TeX is remembered", {
		timeout: 60_000,
	}, async () => {
		const math = createMathRenderer();
		try {
			const results = await Promise.all(
				Array.from({ length: 8 }, (_, i) => math.render(String.raw`\frac{${i}}{2} + \sqrt{x_${i}}`, true)),
			);
			for (const r of results) expect(r.ok && r.png.subarray(0, 4).toString("hex")).toBe("89504e47");
			expect(await math.render(String.raw`\frac{a`, true)).toMatchObject({ ok: false, code: "tex" });
			expect(await math.render(String.raw`\frac{a`, true)).toMatchObject({ ok: false, code: "tex" });
			expect(math.stats()).toMatchObject({ renders: 9, failures: 1, knownFailures: 1, workers: 1 });
		} finally {
			await math.close();
		}
	});

	it("a formula over its budget has its worker stopped (the event loop runs meanwhile); the next one gets a new worker; it is not tried again", {
		timeout: 60_000,
	}, async () => {
		const math = createMathRenderer({ workerFile: STUB, budgetMs: 500 });
		try {
			expect((await math.render("a", true)).ok).toBe(true);
			let settled = false;
			const hung = math.render("hang", true).then((r) => {
				settled = true;
				return r;
			});
			await new Promise((done) => setTimeout(done, 50));
			expect(settled).toBe(false); // the loop ran while the formula spun in the worker
			expect(await hung).toMatchObject({ ok: false, code: "timeout" });
			expect((await math.render("b", true)).ok).toBe(true);
			expect(math.stats().workers).toBe(2);
			expect(await math.render("hang", true)).toMatchObject({ ok: false, code: "timeout" });
			expect(math.stats()).toMatchObject({ workers: 2, knownFailures: 1 });
		} finally {
			await math.close();
		}
	});

	it("a formula that runs out of the worker's heap kills the worker only; one whose worker exits fails alone", {
		timeout: 120_000,
	}, async () => {
		const math = createMathRenderer({ workerFile: STUB, heapMb: 32, budgetMs: 60_000 });
		try {
			expect(await math.render("oom", true)).toMatchObject({ ok: false, code: "memory" });
			expect((await math.render("c", true)).ok).toBe(true);
			expect(await math.render("exit", true)).toMatchObject({ ok: false, code: "crashed" });
			expect((await math.render("d", true)).ok).toBe(true);
			expect(math.stats().workers).toBe(3);
		} finally {
			await math.close();
		}
	});

	it("a worker that does not load fails the formulas waiting, transiently (tried again next time)", {
		timeout: 60_000,
	}, async () => {
		const math = createMathRenderer({ heapMb: 4 });
		try {
			const [a, b] = await Promise.all([math.render("x", true), math.render("y", true)]);
			expect(a).toMatchObject({ ok: false, code: "engine" });
			expect(b).toMatchObject({ ok: false, code: "engine" });
			await math.render("x", true);
			expect(math.stats()).toMatchObject({ knownFailures: 0, workers: 2 });
		} finally {
			await math.close();
		}
	});
});

describe("a card's formulas", () => {
	/** A renderer that fails every formula with `code`, counting calls. */
	const failing = (code: Extract<MathResult, { ok: false }>["code"]) => {
		const calls: string[] = [];
		const math: MathRenderer = {
			render: async (tex) => {
				calls.push(tex);
				return { ok: false, code, error: "no" };
			},
			stats: () => ({ renders: calls.length, cacheHits: 0, failures: calls.length, knownFailures: 0, workers: 0 }),
			close: async () => undefined,
		};
		return { math, calls };
	};
	const many = Array.from({ length: 30 }, (_, i) => `$$\\broken{${i}}$$`).join("\n\n");

	it("failures count toward the card's cap: at most 10 formulas are tried, the rest stay code", async () => {
		const { math, calls } = failing("tex");
		const card = await prepareCard(explain(many), math);
		expect(calls).toHaveLength(10);
		expect(card.kind === "explain" && card.body).toContain("`\\broken{29}`");
	});

	it("a formula the sandbox had to stop ends the card's drawing", async () => {
		const { math, calls } = failing("timeout");
		await prepareCard(explain(many), math);
		expect(calls).toHaveLength(1);
	});
});
