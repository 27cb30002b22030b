/**
 * What a command touches outside itself (environment, streams), passed in so
 * commands can be run in-process by tests.
 */

import { type Config, ConfigError, type ConfigProblem, formatConfigProblems, loadConfig } from "../config.ts";
import type { CliIo } from "./process-io.ts";

// The io type and the real process's io live in process-io.ts (no configuration code: the command line builds the
// io before it knows the command).
export { type CliIo, cliInvocation, processIo } from "./process-io.ts";

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
