/**
 * The math part of the render bench: a formula's warm time (MathJax and resvg loaded in the
 * sandbox's worker thread, the formula new), its cached time, and pictures per second when 20 new formulas are
 * requested at once.
 */

import { createMathRenderer } from "../src/render/index.ts";

/** What the math bench measured. */
export interface MathBench {
	warmMs: number;
	cachedMs: number;
	picturesPerS20AtOnce: number;
}

const median = (xs: number[]): number => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

const formula = (i: number): string =>
	[
		String.raw`x = \frac{-b \pm \sqrt{b^2-4ac}}{2a} + ${i}`,
		String.raw`\int_0^{${i}} x^2\,dx = \frac{${i}^3}{3}`,
		String.raw`\sum_{k=1}^{${i + 1}} k = \frac{n(n+1)}{2}`,
		String.raw`\begin{pmatrix} ${i} & 1 \\ 0 & 1 \end{pmatrix}^{-1}`,
	][i % 4] ?? "x";

/** Runs the math bench (a fresh renderer; the first render loads MathJax and is not counted). */
export async function benchMath(runs = 40): Promise<MathBench> {
	const math = createMathRenderer({ cacheSize: 1024 });
	await math.render("e^{i\\pi} + 1 = 0", true);
	const warm: number[] = [];
	for (let i = 0; i < runs; i++) {
		const started = performance.now();
		const r = await math.render(formula(i), true);
		warm.push(performance.now() - started);
		if (!r.ok) throw new Error(`formula ${i} failed: ${r.error}`);
	}
	const cached: number[] = [];
	for (let i = 0; i < runs; i++) {
		const started = performance.now();
		await math.render(formula(i), true);
		cached.push(performance.now() - started);
	}
	const started = performance.now();
	await Promise.all(Array.from({ length: 20 }, (_, i) => math.render(formula(1000 + i), true)));
	const seconds = (performance.now() - started) / 1000;
	await math.close();
	return { warmMs: median(warm), cachedMs: median(cached), picturesPerS20AtOnce: 20 / seconds };
}
