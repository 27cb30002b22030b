/**
 * What a command touches outside itself (environment, streams), passed in so
 * commands can be run in-process by tests.
 */

import { basename, isAbsolute, relative } from "node:path";
import type { Readable, Writable } from "node:stream";
import { type Config, ConfigError, type ConfigProblem, formatConfigProblems, loadConfig } from "../config.ts";

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

/** Exit code of a command whose configuration is invalid. */
export const EXIT_CONFIG = 2;

/** Loads the configuration, printing warnings; on problems prints them and returns undefined. */
export function loadConfigOrReport(io: CliIo): Config | undefined {
	try {
		const { config, warnings } = loadConfig({
			env: io.env,
			...(io.dotenvPath !== undefined ? { dotenvPath: io.dotenvPath } : {}),
		});
		if (warnings.length > 0) io.stderr.write(`${formatWarnings(warnings)}\n`);
		return config;
	} catch (error) {
		if (!(error instanceof ConfigError)) throw error;
		io.stderr.write(`${formatConfigProblems(error.problems)}\n\nRun \`learnharness doctor\` for a full check.\n`);
		return undefined;
	}
}

/** Warnings as lines. */
export function formatWarnings(warnings: readonly ConfigProblem[]): string {
	return warnings.map((w) => `warning: ${w.variable} ${w.problem}. ${w.fix}`).join("\n");
}

/** Whether to use colour on a stream (a terminal, and NO_COLOR unset). */
export function useColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
	return stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== "dumb";
}

/** An error's first line (our start-up errors are sentences that name the fix). */
export function messageOf(error: unknown): string {
	return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "unknown error";
}
