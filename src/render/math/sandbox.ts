/**
 * The math sandbox: formulas are typeset in a worker thread (typeset-worker.ts), never on the
 * event loop, one at a time, with a heap of its own (`resourceLimits`) and a time budget per
 * formula. A formula over its budget has the worker terminated (the next formula starts a new
 * one); a worker that runs out of memory dies alone, not the process. The worker starts on the
 * first formula, loads MathJax once, and serves every formula after; its load is not charged to
 * a formula's budget. Beside the sources the worker is the .ts file, through tsx; in the bundle
 * it is dist/typeset-worker.js (scripts/build.ts emits it).
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { type MathPng, TexError } from "./typeset.ts";
import type { TypesetReply } from "./typeset-worker.ts";

/** A formula's time in the worker before it is given up (a warm one takes about 10 ms). */
export const MATH_BUDGET_MS = 2_000;
/** The worker's heap (V8's old generation), in MB: MathJax needs about 40. */
export const MATH_HEAP_MB = 192;
/** How long the worker may take to load MathJax and resvg. */
const LOAD_MS = 60_000;
/** Formulas waiting for the worker at most; more fail at once (transiently: "engine"). */
const MAX_QUEUE = 256;

/** Options of createMathSandbox. */
export interface MathSandboxOptions {
	/** A formula's time in the worker (ms); default MATH_BUDGET_MS. */
	budgetMs?: number;
	/** The worker's heap in MB; default MATH_HEAP_MB. */
	heapMb?: number;
	/** The worker's file (tests run a stand-in that hangs or runs out of memory on purpose); default the typeset worker. */
	workerFile?: URL;
}

/** Typesets formulas off the event loop. */
export interface MathSandbox {
	/** One formula's PNG; throws TexError ("timeout" and "memory": the sandbox stopped it). */
	typeset(tex: string, display: boolean): Promise<MathPng>;
	/** Workers started so far (each formula over its budget costs one). */
	workersStarted(): number;
	/** Stops the worker; formulas still waiting fail ("engine"). */
	close(): Promise<void>;
}

interface Job {
	id: number;
	tex: string;
	display: boolean;
	resolve(png: MathPng): void;
	reject(error: TexError): void;
}

/** The typeset worker beside this module: the .ts beside the sources, the .js in dist/. */
function typesetWorker(): URL {
	return new URL(import.meta.url.endsWith(".ts") ? "./typeset-worker.ts" : "./typeset-worker.js", import.meta.url);
}

/**
 * What a Worker runs for `file`: a .js file as it is; a .ts file through tsx (Node 20 gives a worker
 * none of the parent's loaders and ignores `--import` in a worker's execArgv): a two-line ES module
 * that registers tsx, named by its path, then imports the file.
 */
function runnable(file: URL): URL {
	if (!file.pathname.endsWith(".ts")) return file;
	const require = createRequire(import.meta.url);
	const manifest = require.resolve("tsx/package.json");
	const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
		exports?: Record<string, { import?: { default?: string } }>;
	};
	const api = pkg.exports?.["./esm/api"]?.import?.default ?? "./dist/esm/api/index.mjs";
	const register = new URL(api, pathToFileURL(manifest)).href;
	const code = `import { register } from ${JSON.stringify(register)};\nregister();\nawait import(${JSON.stringify(file.href)});\n`;
	return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** A sandbox; no worker runs until the first formula. */
export function createMathSandbox(options: MathSandboxOptions = {}): MathSandbox {
	const budgetMs = Math.max(1, options.budgetMs ?? MATH_BUDGET_MS);
	const heapMb = Math.max(4, options.heapMb ?? MATH_HEAP_MB);
	const file = options.workerFile ?? typesetWorker();
	let entry: URL | undefined;
	const queue: Job[] = [];
	let worker: Worker | undefined;
	let ready = false;
	let current: Job | undefined;
	let timer: NodeJS.Timeout | undefined;
	let started = 0;
	let nextId = 1;
	let closed = false;

	/** Forget the worker (its late messages and exit are ignored from here on) and stop it. */
	const drop = (): void => {
		clearTimeout(timer);
		timer = undefined;
		const old = worker;
		worker = undefined;
		ready = false;
		current = undefined;
		void old?.terminate().catch(() => undefined);
	};

	const failAll = (error: TexError): void => {
		for (const job of queue.splice(0)) job.reject(error);
	};

	/** The worker died or stopped answering: the formula it had fails; one that never loaded fails them all. */
	const lost = (error: TexError, wasReady: boolean): void => {
		const job = current;
		drop();
		if (!wasReady) failAll(error);
		else job?.reject(error);
		next();
	};

	function start(): void {
		entry ??= runnable(file);
		const w = new Worker(entry, {
			// None of the parent's flags: some are not allowed in a worker (`--input-type`), none is needed.
			execArgv: [],
			resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
		});
		worker = w;
		started++;
		// Never what keeps the process alive: a formula waiting holds a timer instead.
		w.unref();
		timer = setTimeout(() => {
			if (w === worker) lost(new TexError("engine", `MathJax did not load in ${LOAD_MS / 1000} s`), false);
		}, LOAD_MS);
		w.on("message", (reply: TypesetReply) => {
			if (w !== worker) return;
			if (reply.type === "ready") {
				clearTimeout(timer);
				ready = true;
				next();
			} else if (reply.type === "failed") lost(new TexError("engine", `MathJax did not load: ${reply.error}`), false);
			else if (current !== undefined && reply.id === current.id) {
				const job = current;
				clearTimeout(timer);
				current = undefined;
				if (reply.type === "done")
					job.resolve({
						png: Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength),
						width: reply.width,
						height: reply.height,
					});
				else job.reject(new TexError(reply.code, reply.error));
				next();
			}
		});
		w.on("error", (error: Error & { code?: string }) => {
			if (w !== worker) return;
			const wasReady = ready;
			const memory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
			if (!wasReady) lost(new TexError("engine", `the math worker did not load: ${message(error)}`), false);
			else if (memory) lost(new TexError("memory", `the formula needed more than ${heapMb} MB`), true);
			else lost(new TexError("crashed", `the math worker failed: ${message(error)}`), true);
		});
		w.on("exit", (code) => {
			if (w === worker) lost(new TexError(ready ? "crashed" : "engine", `the math worker exited (${code})`), ready);
		});
	}

	/** Hand the next formula to the worker, starting one when there is none. */
	function next(): void {
		if (closed || current !== undefined || queue.length === 0) return;
		if (worker === undefined) {
			try {
				start();
			} catch (error) {
				failAll(new TexError("engine", `the math worker did not start: ${message(error)}`));
			}
			return;
		}
		if (!ready) return; // its `ready` calls next()
		const job = queue.shift() as Job;
		current = job;
		const w = worker;
		timer = setTimeout(() => {
			if (w !== worker || current !== job) return;
			lost(new TexError("timeout", `the formula took over ${budgetMs} ms`), true);
		}, budgetMs);
		w.postMessage({ id: job.id, tex: job.tex, display: job.display });
	}

	return {
		typeset(tex, display) {
			if (closed) return Promise.reject(new TexError("engine", "the math sandbox is closed"));
			if (queue.length >= MAX_QUEUE) return Promise.reject(new TexError("engine", "the math sandbox is busy"));
			return new Promise<MathPng>((resolve, reject) => {
				queue.push({ id: nextId++, tex, display, resolve, reject });
				next();
			});
		},
		workersStarted: () => started,
		async close() {
			closed = true;
			const job = current;
			drop();
			job?.reject(new TexError("engine", "the math sandbox is closed"));
			failAll(new TexError("engine", "the math sandbox is closed"));
		},
	};
}
