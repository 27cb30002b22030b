/**
 * `learnharness playground`: a lesson in this terminal. Logs go to a file so
 * they never garble the lesson; the store is the configured one, so a lesson
 * can be resumed by id later.
 */

import { createLineSource, createPromptSource, runPlayground } from "../adapters/terminal/index.ts";
import { redactUrl } from "../config.ts";
import type { LessonMode } from "../core/contracts/events.ts";
import { type Locale, t } from "../i18n/index.ts";
import { type CliIo, EXIT_CONFIG, loadConfigOrReport, useColor } from "./io.ts";
import { createProcessLogger } from "./logger.ts";
import { installProcessHandlers, ShutdownRegistry } from "./process.ts";
import { createServices, describeModel } from "./services.ts";

/** Options of the playground command. */
export interface PlaygroundCommandOptions {
	resume?: string;
	topic?: string;
	mode?: LessonMode;
	/** The language of a new lesson (default English). */
	language?: Locale;
	/** Where plan pictures go (default ./data/plans). */
	plansDir?: string;
}

/** Where the playground writes its log. */
export const PLAYGROUND_LOG = "data/learnharness.log";

/** Runs the playground; resolves with the exit code. */
export async function playgroundCommand(options: PlaygroundCommandOptions, io: CliIo): Promise<number> {
	const config = loadConfigOrReport(io);
	if (!config) return EXIT_CONFIG;
	const logger = createProcessLogger(config.logLevel, { kind: "file", path: PLAYGROUND_LOG });
	const registry = new ShutdownRegistry(logger);
	// Ctrl+C while the tutor thinks (a prompt takes Ctrl+C itself) pauses the lesson with the resume hint.
	const interrupt = new AbortController();
	const uninstall = installProcessHandlers(
		logger,
		registry,
		(code) => {
			logger.flush();
			process.exit(code);
		},
		{
			onSignal: () => {
				interrupt.abort();
				return true;
			},
		},
	);
	try {
		// A paused lesson resumes later: do not keep the learner waiting for a model call to finish.
		const runtime = await createServices(config, logger, registry, { closeTimeoutMs: 500 });
		const interactive = io.stdin.isTTY === true;
		const source = interactive ? createPromptSource(io.stdin, io.stdout) : createLineSource(io.stdin, io.stdout);
		const result = await runPlayground({
			tutor: runtime.tutor,
			renderer: runtime.renderer,
			source,
			output: io.stdout,
			color: useColor(io.stdout, io.env),
			interactive,
			...(options.resume ? { resume: options.resume } : {}),
			...(options.topic ? { topic: options.topic } : {}),
			mode: options.mode ?? "solo",
			...(options.language ? { language: options.language } : {}),
			...(options.plansDir ? { plansDir: options.plansDir } : {}),
			// In the lesson's language: the option's, or a resumed lesson's own.
			banner: (locale: Locale) =>
				t(locale, "play.banner", {
					model: describeModel(config),
					store: redactUrl(config.storeUrl),
					log: PLAYGROUND_LOG,
				}),
			command: io.invocation ?? "learnharness",
			signal: interrupt.signal,
			logger,
			learning: runtime.learning,
		});
		logger.info({ ...result }, "playground finished");
		return result.exitCode;
	} catch (error) {
		logger.error({ err: error }, "playground failed");
		io.stderr.write(`The playground failed: ${error instanceof Error ? error.message : String(error)}\n`);
		return 1;
	} finally {
		await registry.close();
		uninstall();
		logger.flush();
	}
}
