/**
 * Plan picture benchmark (`npm run bench:render`), one run, the same 5-node
 * plan everywhere, PNG at 2x on white:
 *   (a) the `mmdc` CLI (a fresh Chromium and page per render),
 *   (b) mermaid-cli's renderMermaid on a warm browser (a new page and a
 *       mermaid reload per render),
 *   (c) our PlanRenderer warm (one page, mermaid loaded once; cache off),
 *   (d) our PlanRenderer with the cache (identical states render once),
 *   (e) throughput: 24 different pictures requested at once, with 1 and with
 *       2 warm pages (LEARNHARNESS_RENDER_PAGES), side by side;
 *   (f) lesson maps through renderPlan with the default pool, cache on: a map of 4, 12 and 40 nodes
 *       warm (its structure drawn once before; each timed picture a new state of it: another
 *       current node), median of 9 each (`map_warm_ms`); and 20 maps of different lessons whose
 *       states change at once (`maps_per_s_20_at_once`, and the Node CPU a map took meanwhile,
 *       `map_cpu_ms_20_at_once`: the load-independent number); then the same with every state rendered by
 *       Chromium (`layoutCache: false`, how maps were drawn before: `..._chromium_per_state`).
 * Prints medians, the ratios b/c and a/c and peak memory; the last line is
 * one JSON object. Few mmdc runs keep it under ~2 minutes.
 */

import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { renderMermaid } from "@mermaid-js/mermaid-cli";
import type { DerivedPlanStatuses, PlanTree } from "../src/core/contracts/plan.ts";
import type { PlanMastery } from "../src/core/mastery.ts";
import { DEFAULT_CHROMIUM_PATH, launchChromium, MERMAID_CONFIG } from "../src/render/chromium.ts";
import { createPlanRenderer } from "../src/render/index.ts";
import { planMermaidSource } from "../src/render/plan-source.ts";
import { calculusPlan, calculusStatuses } from "../testkit/plans.ts";
import { benchMath } from "./render-math.ts";

const run = promisify(execFile);
const executablePath = process.env.PUPPETEER_EXECUTABLE_PATH ?? DEFAULT_CHROMIUM_PATH;
const RUNS = { mmdc: 3, renderMermaid: 5, warm: 30, cached: 300 };

const tree = calculusPlan;
const statuses = calculusStatuses;
const source = planMermaidSource(tree, statuses);

const median = (xs: number[]): number => {
	const s = [...xs].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
const round = (x: number, digits = 1): number => Number(x.toFixed(digits));
const fmt = (x: number, digits: number): string => x.toFixed(digits);

/** Rows as aligned columns: the first left-aligned, the others right-aligned. */
function table(rows: string[][]): string {
	const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
	return rows
		.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("   "))
		.join("\n");
}

async function time(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
	const out: number[] = [];
	for (let i = 0; i < runs; i++) {
		const started = performance.now();
		await fn();
		out.push(performance.now() - started);
	}
	return out;
}

/** Memory (MB) of a process and all its descendants, from /proc (Linux; PSS, so shared pages count once); 0 elsewhere. */
function treeRssMb(rootPid: number | undefined): number {
	if (rootPid === undefined) return 0;
	try {
		const parent = new Map<number, number>();
		const rss = new Map<number, number>();
		for (const entry of readdirSync("/proc")) {
			if (!/^\d+$/.test(entry)) continue;
			try {
				const status = readFileSync(`/proc/${entry}/status`, "utf8");
				parent.set(Number(entry), Number(/PPid:\s+(\d+)/.exec(status)?.[1] ?? 0));
				let kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
				try {
					kb = Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/smaps_rollup`, "utf8"))?.[1] ?? kb);
				} catch {
					// no smaps_rollup (old kernel or not ours): RSS it is
				}
				rss.set(Number(entry), kb);
			} catch {
				// the process ended while we looked
			}
		}
		const inTree = (pid: number): boolean => {
			for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p) ?? 0, hops++) if (p === rootPid) return true;
			return false;
		};
		let kb = 0;
		for (const [pid, value] of rss) if (inTree(pid)) kb += value;
		return kb / 1024;
	} catch {
		return 0;
	}
}

/** A map of `n` nodes (a binary tree of steps); `lesson` makes titles, hence the structure, differ between lessons. */
function mapOf(n: number, lesson = 0): PlanTree {
	const nodes = Array.from({ length: n }, (_, k) => ({ id: `n${k}`, title: `Step ${k + 1} of lesson ${lesson}` }));
	const edges = nodes.slice(1).map((_, i) => ({ from: `n${Math.floor(i / 2)}`, to: `n${i + 1}` }));
	return { version: 1, nodes, edges };
}

/** State `i` of an `n`-node map: node i % n current, the nodes before it visited, the first node's mastery varied (distinct for i < 3n). */
const stateAt = (i: number, n: number): { statuses: DerivedPlanStatuses; mastery: PlanMastery } => {
	const k = i % n;
	return {
		statuses: { current: `n${k}`, visited: new Set(Array.from({ length: k }, (_, j) => `n${j}`)) },
		mastery: { n0: (["learned", "shaky", "not-yet"] as const)[Math.floor(i / n) % 3] ?? "not-yet" },
	};
};
const paint = (renderer: ReturnType<typeof createPlanRenderer>, tree: PlanTree, i: number) => {
	const { statuses, mastery } = stateAt(i, tree.nodes.length);
	return renderer.renderPlan(tree, statuses, mastery);
};

/** (f): lesson maps warm by size, and 20 lessons' maps changing state at once. */
async function benchMaps(
	layoutCache: boolean,
): Promise<{ warm: Record<string, number>; perSecond: number; cpuMsEach: number; widthPx: Record<string, number> }> {
	const renderer = createPlanRenderer({ queueLimit: 64, queueTimeoutMs: 120_000, layoutCache });
	try {
		await renderer.warm?.();
		const warm: Record<string, number> = {};
		const widthPx: Record<string, number> = {};
		for (const n of [4, 12, 40]) {
			const tree = mapOf(n);
			const first = await paint(renderer, tree, 0); // the structure drawn once
			widthPx[String(n)] = first.png?.readUInt32BE(16) ?? 0; // the PNG header's width
			const times: number[] = [];
			for (let i = 1; i <= 9; i++) times.push(...(await time(1, () => paint(renderer, tree, i))));
			warm[String(n)] = round(median(times));
		}
		const lessons = Array.from({ length: 20 }, (_, l) => mapOf(12, l + 1));
		await Promise.all(lessons.map((tree) => paint(renderer, tree, 0)));
		const started = performance.now();
		const cpuBefore = process.cpuUsage(); // this process's every thread (resvg's too), not Chromium's
		const pictures = await Promise.all(lessons.map((tree) => paint(renderer, tree, 3)));
		const perSecond = 20 / ((performance.now() - started) / 1000);
		const cpu = process.cpuUsage(cpuBefore);
		const failed = pictures.filter((p) => p.png === undefined).length;
		if (failed > 0) throw new Error(`${failed} of 20 maps had no picture`);
		return { warm, perSecond: round(perSecond), cpuMsEach: round((cpu.user + cpu.system) / 1000 / 20), widthPx };
	} finally {
		await renderer.close();
	}
}

async function main(): Promise<void> {
	const log = (line: string): void => void process.stdout.write(`${line}\n`);
	log(`render bench: 5-node plan, Chromium ${executablePath}, node ${process.version}`);

	// (c) ours, warm, cache off: the same source renders for real every time.
	const warm = createPlanRenderer({ cacheSize: 0 });
	let chromiumPeakMb = 0;
	const firstStarted = performance.now();
	await warm.renderMermaid(source);
	const firstMs = performance.now() - firstStarted;
	await warm.renderMermaid(source);
	const warmTimes: number[] = [];
	for (let i = 0; i < RUNS.warm; i++) {
		warmTimes.push(...(await time(1, () => warm.renderMermaid(source))));
		// Sampled outside the timed region (reading /proc takes milliseconds).
		if (i % 10 === 9) chromiumPeakMb = Math.max(chromiumPeakMb, treeRssMb(warm.stats().browserPid));
	}
	await warm.close();
	const oursWarm = median(warmTimes);
	log(`(c) ours warm: done (first render incl. launch ${round(firstMs)} ms)`);

	// (d) ours with the cache: the state was drawn once already.
	const cached = createPlanRenderer();
	const picture = await cached.renderPlan(tree, statuses);
	if (picture.png === undefined) throw new Error(picture.error ?? "no picture");
	const cachedTimes = await time(RUNS.cached, () => cached.renderPlan(tree, statuses));
	await cached.close();
	const oursCached = median(cachedTimes);
	log("(d) ours cached: done");

	// (e) throughput by pool size: distinct sources (a comment line each), so nothing is joined or cached.
	const throughput: Record<string, number> = {};
	for (const pages of [1, 2]) {
		const pool = createPlanRenderer({ cacheSize: 0, poolSize: pages, queueLimit: 64, queueTimeoutMs: 120_000 });
		await pool.warm?.();
		const started = performance.now();
		await Promise.all(Array.from({ length: 24 }, (_, i) => pool.renderMermaid(`${source}\n%% ${pages}-${i}`)));
		throughput[String(pages)] = 24 / ((performance.now() - started) / 1000);
		await pool.close();
	}
	log("(e) pages 1 vs 2: done");

	// (b) mermaid-cli's renderMermaid with one warm browser.
	const browser = await launchChromium(executablePath, 30_000);
	const rmOptions = {
		viewport: { width: 800, height: 600, deviceScaleFactor: 2 },
		backgroundColor: "white",
		mermaidConfig: MERMAID_CONFIG as unknown as Record<string, unknown>,
	};
	await renderMermaid(browser, source, "png", rmOptions); // warm-up
	const rmTimes = await time(RUNS.renderMermaid, () => renderMermaid(browser, source, "png", rmOptions));
	await browser.close();
	const rm = median(rmTimes);
	log("(b) renderMermaid warm: done");

	// (a) the mmdc CLI: a new process, Chromium and page per render.
	const dir = mkdtempSync(join(tmpdir(), "lh-bench-render-"));
	let mmdc = Number.NaN;
	try {
		writeFileSync(join(dir, "plan.mmd"), source);
		writeFileSync(
			join(dir, "puppeteer.json"),
			JSON.stringify({
				executablePath,
				headless: true,
				args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
			}),
		);
		const { startOnLoad: _omit, ...mermaidConfig } = MERMAID_CONFIG;
		writeFileSync(join(dir, "mermaid.json"), JSON.stringify(mermaidConfig));
		const bin = join(process.cwd(), "node_modules", ".bin", "mmdc");
		const args = [
			"-i",
			"plan.mmd",
			"-o",
			"plan.png",
			"-p",
			"puppeteer.json",
			"-c",
			"mermaid.json",
			"-s",
			"2",
			"-b",
			"white",
			"-q",
		];
		const mmdcTimes = await time(RUNS.mmdc, () => run(bin, args, { cwd: dir, timeout: 60_000 }));
		mmdc = median(mmdcTimes);
		log("(a) mmdc CLI: done");
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}

	const speedupRm = rm / oursWarm;
	const speedupMmdc = mmdc / oursWarm;
	const peakRss = process.resourceUsage().maxRSS / 1024;
	log("");
	log(
		table([
			["", "median ms", "runs", "vs ours warm"],
			["(a) mmdc CLI", fmt(mmdc, 1), String(RUNS.mmdc), `${round(speedupMmdc)}x (a/c)`],
			["(b) renderMermaid, warm browser", fmt(rm, 1), String(RUNS.renderMermaid), `${round(speedupRm)}x (b/c)`],
			["(c) ours, warm page", fmt(oursWarm, 1), String(RUNS.warm), "1x"],
			["(d) ours, cached", fmt(oursCached, 3), String(RUNS.cached), `${round(oursCached / oursWarm, 4)}x`],
		]),
	);
	log(
		`(e) pictures per second, 24 at once: 1 page ${fmt(throughput["1"] ?? 0, 1)}, 2 pages ${fmt(throughput["2"] ?? 0, 1)} (${round((throughput["2"] ?? 0) / (throughput["1"] ?? 1), 2)}x)`,
	);
	log(
		`peak RSS: node ${round(peakRss)} MB; our Chromium tree ${round(chromiumPeakMb)} MB PSS (sampled between renders)`,
	);
	log(
		`targets: ours warm < 250 ms: ${oursWarm < 250 ? "yes" : "NO"}; >= 10x faster than renderMermaid: ${speedupRm >= 10 ? "yes" : "NO"}`,
	);
	const maps = await benchMaps(true);
	const perState = await benchMaps(false);
	log(
		`(f) the same, every state rendered by Chromium (layoutCache: false, as before): ${perState.warm["4"]} / ${perState.warm["12"]} / ${perState.warm["40"]} ms; ${perState.perSecond} maps/s`,
	);
	log(
		`(f) lesson maps, a new state of a map drawn before: 4 / 12 / 40 nodes ${maps.warm["4"]} / ${maps.warm["12"]} / ${maps.warm["40"]} ms; 20 lessons' maps at once: ${maps.perSecond} maps/s (${maps.cpuMsEach} ms of Node CPU a map); targets: 12 nodes <= 100 ms: ${(maps.warm["12"] ?? Infinity) <= 100 ? "yes" : "NO"}, >= 20 maps/s: ${maps.perSecond >= 20 ? "yes" : "NO"}`,
	);
	const math = await benchMath();
	log(
		`math (MathJax TeX->SVG, resvg SVG->PNG at 2x): warm ${fmt(math.warmMs, 2)} ms a formula, cached ${fmt(math.cachedMs, 4)} ms; 20 formulas at once: ${round(math.picturesPerS20AtOnce)} pictures/s; target warm < 30 ms: ${math.warmMs < 30 ? "yes" : "NO"}`,
	);
	log(
		JSON.stringify({
			bench: "render",
			mmdc_ms: round(mmdc),
			render_mermaid_warm_ms: round(rm),
			ours_warm_ms: round(oursWarm),
			ours_cached_ms: round(oursCached, 3),
			pictures_per_s_by_pages: { "1": round(throughput["1"] ?? 0), "2": round(throughput["2"] ?? 0) },
			speedup_vs_render_mermaid: round(speedupRm),
			peak_rss_mb: round(peakRss),
			math_warm_ms: round(math.warmMs, 2),
			math_cached_ms: round(math.cachedMs, 4),
			pictures_per_s_20_at_once: round(math.picturesPerS20AtOnce),
			map_warm_ms: maps.warm,
			map_width_px: maps.widthPx,
			maps_per_s_20_at_once: maps.perSecond,
			map_cpu_ms_20_at_once: maps.cpuMsEach,
			map_warm_ms_chromium_per_state: perState.warm,
			maps_per_s_20_at_once_chromium_per_state: perState.perSecond,
		}),
	);
}

main().catch((error: unknown) => {
	process.stderr.write(
		`render bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
	);
	process.exitCode = 1;
});
