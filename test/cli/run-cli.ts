/**
 * Runs `node bin/learnharness.js …` as a child process with a clean
 * environment (no keys or tokens from the machine), scripted stdin, and a
 * hard time limit; the child is killed if it overstays.
 */

import { spawn } from "node:child_process";
import { BIN, CHILD_START_MS } from "../fixtures/child-process.ts";

/** The vitest timeout of a test that runs the CLI as a child (above CHILD_START_MS, its hard limit). */
export const CLI_TEST_TIMEOUT_MS = 300_000;

/** What a run produced. */
export interface CliRun {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs the CLI; `env` is added to a minimal environment (PATH, HOME, TMPDIR). */
export function runCli(
	args: string[],
	options: {
		env?: Record<string, string>;
		cwd: string;
		input?: string;
		/** Another entry script than bin/learnharness.js (e.g. a built bundle). */
		entry?: string;
	},
): Promise<CliRun> {
	const env: Record<string, string> = { NO_COLOR: "1" };
	for (const name of ["PATH", "HOME", "TMPDIR"]) {
		const value = process.env[name];
		if (value !== undefined) env[name] = value;
	}
	Object.assign(env, options.env);
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [options.entry ?? BIN, ...args], {
			cwd: options.cwd,
			env,
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (c: Buffer) => {
			stdout += c.toString();
		});
		child.stderr.on("data", (c: Buffer) => {
			stderr += c.toString();
		});
		const limitMs = CHILD_START_MS;
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`learnharness ${args.join(" ")} ran over ${limitMs} ms\n${stdout}\n${stderr}`));
		}, limitMs);
		child.on("error", (error) => {
			clearTimeout(timer);
			reject(error);
		});
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
		child.stdin.on("error", () => undefined);
		child.stdin.end(options.input ?? "");
	});
}
