/**
 * What a command touches outside itself (environment, streams), passed in so commands can be run in-process by
 * tests; and the real process's. Loads no configuration code (io.ts has the configuration helpers).
 */

import { basename, isAbsolute, relative } from "node:path";
import type { Readable, Writable } from "node:stream";

/** A command's environment and streams. */
export interface CliIo {
	env: Record<string, string | undefined>;
	stdin: Readable & { isTTY?: boolean };
	stdout: Writable & { isTTY?: boolean };
	stderr: Writable & { isTTY?: boolean };
	/** The `.env` file to read (default ./.env); false to skip. */
	dotenvPath?: string | false;
	/** How the user runs this CLI, for hints such as the resume command (default "learnharness"). */
	invocation?: string;
}

/** The real process's io. */
export function processIo(): CliIo {
	return {
		env: process.env,
		stdin: process.stdin,
		stdout: process.stdout,
		stderr: process.stderr,
		invocation: cliInvocation(process.env, process.argv[1]),
	};
}

/**
 * The command that runs this CLI again from where the user is: `npx learnharness` under npm
 * (`npm start` puts no `learnharness` on the PATH), `learnharness` when installed or linked,
 * else `node <path to bin/learnharness.js>`.
 */
export function cliInvocation(env: Record<string, string | undefined>, script: string | undefined): string {
	if (env.npm_lifecycle_event !== undefined) return "npx learnharness";
	if (script === undefined || basename(script) === "learnharness") return "learnharness";
	const rel = relative(process.cwd(), script);
	const path = rel.startsWith("..") || isAbsolute(rel) ? script : rel;
	return `node ${/\s/.test(path) ? JSON.stringify(path) : path}`;
}
