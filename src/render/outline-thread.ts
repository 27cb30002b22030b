/**
 * Map outlines (map-outline.ts) made in a worker thread: resvg's text-to-paths is synchronous and
 * shapes every label (about 16 ms a marks string for 12 nodes, 125 ms for 40 on a quiet core), and
 * a new structure needs 7 of them; on the event loop that would stall every chat reply meanwhile.
 * One worker, started on the first outline, serves them in order; idle, it is unref'd (it never keeps
 * the process alive) and a crashed one fails the outlines it held (the map is then drawn from its text
 * template) and is started again for the next. The worker is a few lines of CommonJS given as
 * source (`eval`), loading resvg from the path resolved here: no file of its own to bundle.
 */

import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** Font options of resvg (the subset map-painter.ts passes). */
export interface OutlineFont {
	loadSystemFonts: boolean;
	fontFiles: string[];
	defaultFontFamily: string;
}

/** Makes outlines off the event loop. */
export interface Outliner {
	/** resvg's SVG of `svg` with its text as paths; rejects when resvg or the worker fails. */
	outline(svg: string): Promise<string>;
	/** Stops the worker; outlines still running fail. A later outline starts a new one. */
	close(): void;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { Resvg } = require(workerData.resvg);
parentPort.on("message", ({ id, svg }) => {
	try {
		parentPort.postMessage({ id, svg: new Resvg(svg, { font: workerData.font }).toString() });
	} catch (error) {
		parentPort.postMessage({ id, error: String((error && error.message) || error) });
	}
});
`;

type Reply = { id: number; svg?: string; error?: string };

/** An outliner drawing text with `font`. */
export function createOutliner(font: OutlineFont): Outliner {
	type Job = { resolve(svg: string): void; reject(error: Error): void };
	/** The running worker and the outlines it holds (a stopped worker's end fails its own jobs only). */
	let current: { worker: Worker; jobs: Map<number, Job> } | undefined;
	let seq = 0;

	const failAll = (jobs: Map<number, Job>, error: Error): void => {
		for (const job of jobs.values()) job.reject(error);
		jobs.clear();
	};

	const start = (): { worker: Worker; jobs: Map<number, Job> } => {
		const resvg = createRequire(import.meta.url).resolve("@resvg/resvg-js");
		// execArgv: [] so a test runner's or tsx's loader flags are not passed to a plain CommonJS worker.
		const w = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { resvg, font } });
		const jobs = new Map<number, Job>();
		const mine = { worker: w, jobs };
		w.unref();
		w.on("message", ({ id, svg, error }: Reply) => {
			const job = jobs.get(id);
			jobs.delete(id);
			if (jobs.size === 0) w.unref();
			if (svg !== undefined) job?.resolve(svg);
			else job?.reject(new Error(`resvg could not outline the map: ${error ?? "no reply"}`));
		});
		const end = (error: Error): void => {
			if (current === mine) current = undefined;
			failAll(jobs, error);
		};
		w.on("error", end);
		w.on("exit", (code) => end(new Error(`the outline worker exited (${code})`)));
		return mine;
	};

	return {
		outline(svg) {
			current ??= start();
			const { worker, jobs } = current;
			const id = ++seq;
			return new Promise<string>((resolve, reject) => {
				jobs.set(id, { resolve, reject });
				worker.ref(); // an outline awaited keeps the process alive until it is made
				worker.postMessage({ id, svg });
			});
		},
		close() {
			const stopping = current;
			current = undefined;
			if (!stopping) return;
			failAll(stopping.jobs, new Error("the outliner is closed"));
			void stopping.worker.terminate();
		},
	};
}
