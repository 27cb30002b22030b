/**
 * Start-time benchmark (`npm run bench:start`): builds the bundle (`npm run build`), then times, from spawning
 * `node bin/learnharness.js` to its first line on stdout (the bundle in dist/, as `npm start` runs it):
 *   - `--version`, median of BENCH_RUNS (default 10);
 *   - `doctor`'s first line, median of BENCH_RUNS;
 *   - the playground's first question (the demo model, a new SQLite file in a scratch folder), median of 5;
 *   - `node -e 'console.log(1)'`, median of BENCH_RUNS: the floor on this machine at this moment (a busy machine
 *     slows every figure alike; compare against it).
 * The last line is one JSON object.
 */

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "bin", "learnharness.js");

const median = (xs: number[]): number => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.floor(s.length / 2)] ?? 0;
};

/** Milliseconds from spawning `args` to stdout holding `until` (the first output when absent); the child is then killed. */
function firstOutput(args: string[], until?: string, cwd = root): Promise<number> {
	const started = performance.now();
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, args, {
			cwd,
			stdio: ["pipe", "pipe", "ignore"],
			env: { ...process.env, LEARNHARNESS_FROM_SOURCE: "" },
		});
		let out = "";
		let done = false;
		child.stdout.on("data", (chunk: Buffer) => {
			out += chunk.toString("utf8");
			if (done || (until !== undefined && !out.includes(until))) return;
			done = true;
			resolve(performance.now() - started);
			child.kill("SIGKILL");
		});
		child.on("error", reject);
		child.on("exit", () => {
			if (!done) reject(new Error(`${args.join(" ")} ended before its output (${out.slice(0, 200)})`));
		});
	});
}

async function timed(runs: number, once: () => Promise<number>): Promise<number> {
	const times: number[] = [];
	for (let i = 0; i < runs; i++) times.push(await once());
	return median(times);
}

execFileSync(
	process.execPath,
	[join(root, "node_modules", "tsx", "dist", "cli.mjs"), join(root, "scripts", "build.ts")],
	{
		cwd: root,
		stdio: "inherit",
	},
);
const nodeMs = await timed(RUNS, () => firstOutput(["-e", "console.log(1)"]));
const versionMs = await timed(RUNS, () => firstOutput([bin, "--version"]));
const doctorMs = await timed(RUNS, () => firstOutput([bin, "doctor", "--timeout", "1"]));
const questionMs = await timed(5, async () => {
	const dir = mkdtempSync(join(tmpdir(), "lh-bench-start-"));
	try {
		return await firstOutput([bin, "playground", "--topic", "fractions"], "What do you do first?", dir);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
const round = (x: number) => Math.round(x);
console.log(
	`from the bundle, medians: --version ${round(versionMs)} ms, doctor's first line ${round(doctorMs)} ms, the playground's first question ${round(questionMs)} ms; node -e ${round(nodeMs)} ms on this machine now`,
);
console.log(
	`targets: --version < 300 ms: ${versionMs < 300 ? "yes" : "NO"}; doctor < 300 ms: ${doctorMs < 300 ? "yes" : "NO"}; first question < 1 s: ${questionMs < 1000 ? "yes" : "NO"}`,
);
console.log(
	JSON.stringify({
		bench: "start",
		version_ms: round(versionMs),
		doctor_first_line_ms: round(doctorMs),
		playground_first_question_ms: round(questionMs),
		node_e_ms: round(nodeMs),
		runs: RUNS,
	}),
);
