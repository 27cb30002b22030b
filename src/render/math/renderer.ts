/**
 * The math renderer: TeX -> PNG (MathJax + resvg in the sandbox's worker thread, never on the
 * event loop), cached by a hash of the TeX and its mode in an LRU, identical concurrent renders
 * sharing one job. A formula that failed for good (bad TeX, over its time or memory budget) is
 * remembered by that hash in an LRU of its own and never tried again in this process.
 * `render` never throws: it gives `{ error }`, and the caller shows the TeX as a code span instead.
 */

import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { sharedResults } from "../shared-results.ts";
import { MATH_MAX_CHARS } from "./find-math.ts";
import { createMathSandbox, type MathSandboxOptions } from "./sandbox.ts";
import { type MathPng, TexError } from "./typeset.ts";

/** Options of createMathRenderer. */
export interface MathRendererOptions extends MathSandboxOptions {
	/** Formulas kept as PNGs (LRU); default 256. */
	cacheSize?: number;
	/** Failed formulas remembered (LRU of hashes), never tried again; default 4096. */
	failureCacheSize?: number;
}

/** A formula's outcome: its PNG, or why there is none. */
export type MathResult = ({ ok: true } & MathPng) | { ok: false; error: string; code: TexError["code"] };

/** Counters of a math renderer. */
export interface MathRendererStats {
	renders: number;
	cacheHits: number;
	failures: number;
	/** Renders answered by a remembered failure (the formula was not tried again). */
	knownFailures: number;
	/** Sandbox workers started (one, plus one after each formula it had to stop). */
	workers: number;
}

/** Typesets TeX into PNGs; shared by every card of a process. */
export interface MathRenderer {
	/** The PNG of one formula, or why not; never throws. */
	render(tex: string, display: boolean): Promise<MathResult>;
	stats(): MathRendererStats;
	/** Stops the sandbox's worker (renders after it fail). */
	close(): Promise<void>;
}

/** Failures that may pass (an engine that did not load, a busy sandbox): tried again next time. */
const transient = (code: TexError["code"]): boolean => code === "engine";

/** Creates a MathRenderer; its worker (and MathJax in it) starts on the first render. */
export function createMathRenderer(options: MathRendererOptions = {}): MathRenderer {
	const cacheSize = Math.max(0, Math.floor(options.cacheSize ?? 256));
	const results = sharedResults<MathResult>(cacheSize);
	const failed = new LRUCache<string, MathResult>({ max: Math.max(1, Math.floor(options.failureCacheSize ?? 4096)) });
	const sandbox = createMathSandbox(options);
	const stats = { renders: 0, cacheHits: 0, failures: 0, knownFailures: 0 };

	async function draw(tex: string, display: boolean, key: string): Promise<MathResult> {
		stats.renders++;
		try {
			const result: MathResult = { ok: true, ...(await sandbox.typeset(tex, display)) };
			results.keep(key, result);
			return result;
		} catch (error) {
			stats.failures++;
			const code = error instanceof TexError ? error.code : "engine";
			const result: MathResult = { ok: false, code, error: error instanceof Error ? error.message : String(error) };
			if (!transient(code)) failed.set(key, result);
			return result;
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
			const known = failed.get(key);
			if (known !== undefined) {
				stats.knownFailures++;
				return known;
			}
			return results.get(
				key,
				() => draw(tex, display, key),
				() => stats.cacheHits++,
			);
		},
		stats: () => ({ ...stats, workers: sandbox.workersStarted() }),
		close: () => sandbox.close(),
	};
}
