/**
 * `learnharness progress` and `learnharness forget-me [--yes]`: the terminal
 * learner's progress and the deletion of what is stored about them, on the
 * configured store (the same flows as `/lesson progress` and `/lesson
 * forget-me`). Logs go to the playground's log file.
 */

import { runTerminalForget, runTerminalProgress } from "../adapters/terminal/index.ts";
import type { Locale } from "../i18n/index.ts";
import { type CliIo, EXIT_CONFIG, loadConfigOrReport, useColor } from "./io.ts";
import { createProcessLogger } from "./logger.ts";
import { PLAYGROUND_LOG } from "./playground-command.ts";
import { installProcessHandlers, ShutdownRegistry } from "./process.ts";
import { createServices, type Services } from "./services.ts";

/** Options of the profile commands. */
export interface ProfileCommandOptions {
	/** The language of what is printed (default English). */
	language?: Locale;
}

/** Runs `work` on the configured services; resolves with the exit code. */
async function withServices(io: CliIo, what: string, work: (runtime: Services) => Promise<void>): Promise<number> {
	const config = loadConfigOrReport(io);
	if (!config) return EXIT_CONFIG;
	const logger = createProcessLogger(config.logLevel, { kind: "file", path: PLAYGROUND_LOG });
	const registry = new ShutdownRegistry(logger);
	const uninstall = installProcessHandlers(logger, registry, (code) => {
		logger.flush();
		process.exit(code);
	});
	try {
		await work(await createServices(config, logger, registry, { closeTimeoutMs: 500 }));
		return 0;
	} catch (error) {
		logger.error({ err: error }, `${what} failed`);
		io.stderr.write(`The ${what} failed: ${error instanceof Error ? error.message : String(error)}\n`);
		return 1;
	} finally {
		await registry.close();
		uninstall();
		logger.flush();
	}
}

/** `learnharness progress`. */
export function progressCommand(io: CliIo, options: ProfileCommandOptions = {}): Promise<number> {
	return withServices(io, "progress", async (runtime) => {
		await runTerminalProgress({
			tutor: runtime.tutor,
			learning: runtime.learning,
			output: io.stdout,
			color: useColor(io.stdout, io.env),
			...(options.language ? { locale: options.language } : {}),
		});
	});
}

/** `learnharness forget-me [--yes]`. */
export function forgetMeCommand(io: CliIo, options: ProfileCommandOptions & { yes: boolean }): Promise<number> {
	return withServices(io, "deletion", async (runtime) => {
		await runTerminalForget({
			tutor: runtime.tutor,
			learning: runtime.learning,
			output: io.stdout,
			color: useColor(io.stdout, io.env),
			yes: options.yes,
			command: io.invocation ?? "learnharness",
			...(options.language ? { locale: options.language } : {}),
		});
	});
}
