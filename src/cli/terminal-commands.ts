/**
 * The terminal learner's commands, on the configured store and model, each on the same
 * services, shutdown and log file (logs never garble what the terminal shows):
 * - `learnharness playground`: a lesson in this terminal (the store is the configured one, so a
 *   lesson can be resumed by id later);
 * - `learnharness review`: the due review items, asked one a line (as `/lesson review`);
 * - `learnharness progress` and `learnharness forget-me [--yes]`: the learner's progress and the
 *   deletion of what is stored about them (as `/lesson progress` and `/lesson forget-me`).
 */

import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import {
	createLineSource,
	createPromptSource,
	runPlayground,
	runTerminalForget,
	runTerminalProgress,
	runTerminalReview,
} from "../adapters/terminal/index.ts";
import { DEFAULT_MATERIAL_LIMITS } from "../agent/index.ts";
import { type Config, redactUrl } from "../config.ts";
import type { LessonMode } from "../core/contracts/events.ts";
import type { MaterialUpload } from "../core/contracts/tutor.ts";
import { type Locale, t } from "../i18n/index.ts";
import { type CliIo, EXIT_CONFIG, loadConfigOrReport, useColor } from "./io.ts";
import { createProcessLogger, type ProcessLogger } from "./logger.ts";
import { installProcessHandlers, ShutdownRegistry } from "./process.ts";
import { createServices, describeModel, type Services } from "./services.ts";

/** Where the terminal commands write their log. */
export const PLAYGROUND_LOG = "data/learnharness.log";

/** What a terminal command's work is given. */
interface TerminalRun {
	config: Config;
	runtime: Services;
	logger: ProcessLogger;
	/** Aborted by Ctrl+C while the work runs (when the command asked for it). */
	signal: AbortSignal;
}

/**
 * Runs `work` on the configured services and resolves with its exit code (1 when it throws, told as "The
 * `what` failed"). `interruptible`: Ctrl+C aborts the run's signal instead of ending the process (a prompt
 * takes Ctrl+C itself).
 */
async function withServices(
	io: CliIo,
	what: string,
	work: (run: TerminalRun) => Promise<number>,
	interruptible = false,
): Promise<number> {
	const config = loadConfigOrReport(io);
	if (!config) return EXIT_CONFIG;
	const logger = createProcessLogger(config.logLevel, { kind: "file", path: PLAYGROUND_LOG });
	const registry = new ShutdownRegistry(logger);
	const interrupt = new AbortController();
	const uninstall = installProcessHandlers(
		logger,
		registry,
		(code) => {
			logger.flush();
			process.exit(code);
		},
		interruptible
			? {
					onSignal: () => {
						interrupt.abort();
						return true;
					},
				}
			: {},
	);
	try {
		// A paused lesson resumes later: do not keep the learner waiting for a model call to finish.
		const runtime = await createServices(config, logger, registry, { closeTimeoutMs: 500 });
		return await work({ config, runtime, logger, signal: interrupt.signal });
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

/** The learner's answers: prompts on a terminal, else lines of standard input. */
const answerSource = (io: CliIo) =>
	io.stdin.isTTY === true ? createPromptSource(io.stdin, io.stdout) : createLineSource(io.stdin, io.stdout);

/** Options of the playground command. */
export interface PlaygroundCommandOptions {
	resume?: string;
	topic?: string;
	mode?: LessonMode;
	/** The language of a new lesson (default English). */
	language?: Locale;
	/** Where plan pictures go (default ./data/plans). */
	plansDir?: string;
	/** A PDF a new lesson teaches from (`--material FILE`). */
	material?: string;
}

/** The material file's bytes (refused before reading when it is over the size limit), or why not. */
async function readMaterialFile(
	path: string,
): Promise<{ ok: true; upload: MaterialUpload } | { ok: false; why: string }> {
	try {
		const info = await stat(path);
		if (!info.isFile()) return { ok: false, why: `${path} is not a file.` };
		if (info.size > DEFAULT_MATERIAL_LIMITS.maxBytes)
			return { ok: false, why: `${path} is larger than ${DEFAULT_MATERIAL_LIMITS.maxBytes / (1024 * 1024)} MB.` };
		return { ok: true, upload: { name: basename(path), data: new Uint8Array(await readFile(path)) } };
	} catch (error) {
		return { ok: false, why: `${path} could not be read (${(error as { code?: string }).code ?? "error"}).` };
	}
}

/** `learnharness playground`; Ctrl+C while the tutor thinks pauses the lesson with the resume hint. */
export function playgroundCommand(options: PlaygroundCommandOptions, io: CliIo): Promise<number> {
	return withServices(
		io,
		"playground",
		async ({ config, runtime, logger, signal }) => {
			const material = options.material ? await readMaterialFile(options.material) : undefined;
			if (material && !material.ok) {
				io.stderr.write(`The material was not used: ${material.why}\n`);
				return 1;
			}
			const result = await runPlayground({
				tutor: runtime.tutor,
				renderer: runtime.renderer,
				source: answerSource(io),
				output: io.stdout,
				color: useColor(io.stdout, io.env),
				interactive: io.stdin.isTTY === true,
				...(options.resume ? { resume: options.resume } : {}),
				...(options.topic ? { topic: options.topic } : {}),
				mode: options.mode ?? "solo",
				...(options.language ? { language: options.language } : {}),
				...(options.plansDir ? { plansDir: options.plansDir } : {}),
				...(material?.ok ? { material: material.upload } : {}),
				// In the lesson's language: the option's, or a resumed lesson's own.
				banner: (locale: Locale) =>
					t(locale, "play.banner", {
						model: describeModel(config),
						store: redactUrl(config.storeUrl),
						log: PLAYGROUND_LOG,
					}),
				command: io.invocation ?? "learnharness",
				signal,
				logger,
				learning: runtime.learning,
			});
			logger.info({ ...result }, "playground finished");
			return result.exitCode;
		},
		true,
	);
}

/** `learnharness review`. */
export function reviewCommand(io: CliIo): Promise<number> {
	return withServices(io, "review", async ({ runtime, logger }) => {
		const result = await runTerminalReview({
			tutor: runtime.tutor,
			learning: runtime.learning,
			source: answerSource(io),
			output: io.stdout,
			color: useColor(io.stdout, io.env),
			logger,
		});
		logger.info({ ...result }, "review finished");
		return 0;
	});
}

/** Options of the profile commands. */
export interface ProfileCommandOptions {
	/** The language of what is printed (default English). */
	language?: Locale;
}

/** `learnharness progress`. */
export function progressCommand(io: CliIo, options: ProfileCommandOptions = {}): Promise<number> {
	return withServices(io, "progress", async ({ runtime }) => {
		await runTerminalProgress({
			tutor: runtime.tutor,
			learning: runtime.learning,
			output: io.stdout,
			color: useColor(io.stdout, io.env),
			...(options.language ? { locale: options.language } : {}),
		});
		return 0;
	});
}

/** `learnharness forget-me [--yes]`. */
export function forgetMeCommand(io: CliIo, options: ProfileCommandOptions & { yes: boolean }): Promise<number> {
	return withServices(io, "deletion", async ({ runtime }) => {
		await runTerminalForget({
			tutor: runtime.tutor,
			learning: runtime.learning,
			output: io.stdout,
			color: useColor(io.stdout, io.env),
			yes: options.yes,
			command: io.invocation ?? "learnharness",
			...(options.language ? { locale: options.language } : {}),
		});
		return 0;
	});
}
