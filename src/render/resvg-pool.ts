/**
 * resvg in worker threads, for lesson maps: a state's rasterizing and PNG encoding, and a kept
 * layout's outlines (map-outline.ts). resvg-js's text-to-paths and PNG encoding are synchronous
 * (7 outlines a new structure, ~16 ms each for 12 nodes and ~125 ms for 40; a PNG ~11 ms for
 * 12 nodes), so on the event loop they would stall every chat reply meanwhile and run one at a
 * time however many maps changed. A few workers (default 2: the machine's cores) take jobs, each
 * to the least busy; idle, they are unref'd (they never keep the process alive). A crashed worker
 * fails the jobs it held (the caller draws that map another way) and is started again for the
 * next. The worker is a few lines of CommonJS given as source (`eval`), loading resvg from the
 * path resolved here: no file of its own to bundle.
 */

import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/** Font options of resvg (the subset map-painter.ts passes). */
export interface ResvgFont {
	loadSystemFonts: boolean;
	fontFiles: string[];
	defaultFontFamily: string;
}

/** How a PNG is drawn: zoom, background (CSS colour; absent = transparent), and whether it has text to draw with the font. */
export interface PngOptions {
	zoom: number;
	background?: string;
	text: boolean;
}

/** resvg off the event loop. */
export interface ResvgPool {
	/** resvg's SVG of `svg` with its text as paths; rejects when resvg or the worker fails. */
	outline(svg: string): Promise<string>;
	/** The PNG of `svg`; rejects when resvg or the worker fails. */
	png(svg: string, options: PngOptions): Promise<Buffer>;
	/** Stops the workers; jobs still running fail. A later job starts them again. */
	close(): void;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { Resvg } = require(workerData.resvg);
const noFont = { loadSystemFonts: false };
parentPort.on("message", ({ id, svg, png }) => {
	try {
		if (png === undefined) {
			parentPort.postMessage({ id, svg: new Resvg(svg, { font: workerData.font }).toString() });
			return;
		}
		const drawn = new Resvg(svg, {
			fitTo: { mode: "zoom", value: png.zoom },
			...(png.background !== undefined ? { background: png.background } : {}),
			font: png.text ? workerData.font : noFont,
		}).render();
		parentPort.postMessage({ id, png: drawn.asPng() });
	} catch (error) {
		parentPort.postMessage({ id, error: String((error && error.message) || error) });
	}
});
`;

type Reply = { id: number; svg?: string; png?: Uint8Array; error?: string };
type Job = { resolve(reply: Reply): void; reject(error: Error): void };
type Running = { worker: Worker; jobs: Map<number, Job> };

/** A pool drawing text with `font`; no worker starts until the first job. */
export function createResvgPool(font: ResvgFont, size = Math.min(2, availableParallelism())): ResvgPool {
	/** Running workers and the jobs each holds (a stopped worker's end fails its own jobs only). */
	const running: Array<Running | undefined> = Array.from({ length: Math.max(1, size) }, () => undefined);
	let seq = 0;

	const failAll = (jobs: Map<number, Job>, error: Error): void => {
		for (const job of jobs.values()) job.reject(error);
		jobs.clear();
	};

	const start = (slot: number): Running => {
		const resvg = createRequire(import.meta.url).resolve("@resvg/resvg-js");
		// execArgv: [] so a test runner's or tsx's loader flags are not passed to a plain CommonJS worker.
		const w = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { resvg, font } });
		const mine: Running = { worker: w, jobs: new Map() };
		w.unref();
		w.on("message", (reply: Reply) => {
			const job = mine.jobs.get(reply.id);
			mine.jobs.delete(reply.id);
			if (mine.jobs.size === 0) w.unref();
			if (reply.error === undefined) job?.resolve(reply);
			else job?.reject(new Error(`resvg failed: ${reply.error}`));
		});
		const end = (error: Error): void => {
			if (running[slot] === mine) running[slot] = undefined;
			failAll(mine.jobs, error);
		};
		w.on("error", end);
		w.on("exit", (code) => end(new Error(`the resvg worker exited (${code})`)));
		running[slot] = mine;
		return mine;
	};

	const send = (message: { svg: string; png?: PngOptions }): Promise<Reply> => {
		// The least busy worker; an empty slot (none started yet, or one that ended) is started.
		let slot = 0;
		for (let i = 0; i < running.length; i++)
			if ((running[i]?.jobs.size ?? -1) < (running[slot]?.jobs.size ?? -1)) slot = i;
		const { worker, jobs } = running[slot] ?? start(slot);
		const id = ++seq;
		return new Promise<Reply>((resolve, reject) => {
			jobs.set(id, { resolve, reject });
			worker.ref(); // a job awaited keeps the process alive until it is done
			worker.postMessage({ id, ...message });
		});
	};

	return {
		async outline(svg) {
			const { svg: drawn } = await send({ svg });
			if (drawn === undefined) throw new Error("resvg failed: no outline");
			return drawn;
		},
		async png(svg, options) {
			const { png } = await send({ svg, png: options });
			if (png === undefined) throw new Error("resvg failed: no PNG");
			return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
		},
		close() {
			running.forEach((stopping, slot) => {
				running[slot] = undefined;
				if (!stopping) return;
				failAll(stopping.jobs, new Error("the resvg pool is closed"));
				void stopping.worker.terminate();
			});
		},
	};
}
