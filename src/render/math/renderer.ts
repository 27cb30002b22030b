/**
 * The math renderer: TeX -> PNG (MathJax + resvg), cached by a hash of the
 * TeX and its mode in an LRU, identical concurrent renders sharing one job.
 * `render` never throws: bad TeX or an engine that will not load gives
 * `{ error }`, and the caller shows the TeX as a code span instead.
 */

import { createHash } from "node:crypto";
import { sharedResults } from "../shared-results.ts";
import { MATH_MAX_CHARS } from "./find-math.ts";
import { type MathPng, TexError, texToPng } from "./typeset.ts";

/** Options of createMathRenderer. */
export interface MathRendererOptions {
	/** Formulas kept as PNGs (LRU); default 256. */
	cacheSize?: number;
}

/** A formula's outcome: its PNG, or why there is none. */
export type MathResult = ({ ok: true } & MathPng) | { ok: false; error: string; code: TexError["code"] };

/** Counters of a math renderer. */
export interface MathRendererStats {
	renders: number;
	cacheHits: number;
	failures: number;
}

/** Typesets TeX into PNGs; shared by every card of a process. */
export interface MathRenderer {
	/** The PNG of one formula, or why not; never throws. */
	render(tex: string, display: boolean): Promise<MathResult>;
	stats(): MathRendererStats;
}

/** Creates a MathRenderer; MathJax loads on the first render. */
export function createMathRenderer(options: MathRendererOptions = {}): MathRenderer {
	const cacheSize = Math.max(0, Math.floor(options.cacheSize ?? 256));
	const results = sharedResults<MathResult>(cacheSize);
	const stats: MathRendererStats = { renders: 0, cacheHits: 0, failures: 0 };

	async function draw(tex: string, display: boolean, key: string): Promise<MathResult> {
		stats.renders++;
		try {
			const result: MathResult = { ok: true, ...(await texToPng(tex, display)) };
			results.keep(key, result);
			return result;
		} catch (error) {
			stats.failures++;
			const code = error instanceof TexError ? error.code : "engine";
			const failed: MathResult = { ok: false, code, error: error instanceof Error ? error.message : String(error) };
			// Bad TeX stays bad: cache it. An engine failure may pass (retry next time).
			if (code === "tex") results.keep(key, failed);
			return failed;
		}
	}

	return {
		async render(tex, display) {
			if (tex.length > MATH_MAX_CHARS)
				return { ok: false, code: "too-big", error: `formula longer than ${MATH_MAX_CHARS} characters` };
			const key = createHash("sha256")
				.update(display ? "D" : "I")
				.update(tex)
				.digest("base64url");
			return results.get(
				key,
				() => draw(tex, display, key),
				() => stats.cacheHits++,
			);
		},
		stats: () => ({ ...stats }),
	};
}
