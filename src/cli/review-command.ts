/**
 * `learnharness review`: the terminal learner's due review items, asked one a
 * line (the same flow as `/lesson review` in Discord and Slack), on the
 * configured store and model. Logs go to the playground's log file.
 */

import { createLineSource, createPromptSource, runTerminalReview } from "../adapters/terminal/index.ts";
import { type CliIo, EXIT_CONFIG, loadConfigOrReport, useColor } from "./io.ts";
import { createProcessLogger } from "./logger.ts";
import { PLAYGROUND_LOG } from "./playground-command.ts";
import { installProcessHandlers, ShutdownRegistry } from "./process.ts";
import { createServices } from "./services.ts";

/** Runs a terminal review; resolves with the exit code. */
export async function reviewCommand(io: CliIo): Promise<number> {
	const config = loadConfigOrReport(io);
	if (!config) return EXIT_CONFIG;
	const logger = createProcessLogger(config.logLevel, { kind: "file", path: PLAYGROUND_LOG });
	const registry = new ShutdownRegistry(logger);
	const uninstall = installProcessHandlers(logger, registry, (code) => {
		logger.flush();
		process.exit(code);
	});
	try {
		const runtime = await createServices(config, logger, registry, { closeTimeoutMs: 500 });
		const interactive = io.stdin.isTTY === true;
		const source = interactive ? createPromptSource(io.stdin, io.stdout) : createLineSource(io.stdin, io.stdout);
		const result = await runTerminalReview({
			tutor: runtime.tutor,
			learning: runtime.learning,
			source,
			output: io.stdout,
			color: useColor(io.stdout, io.env),
			logger,
		});
		logger.info({ ...result }, "review finished");
		return 0;
	} catch (error) {
		logger.error({ err: error }, "review failed");
		io.stderr.write(`The review failed: ${error instanceof Error ? error.message : String(error)}\n`);
		return 1;
	} finally {
		await registry.close();
		uninstall();
		logger.flush();
	}
}
