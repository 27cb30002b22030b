/**
 * The command line: `learnharness start | playground | review | progress | forget-me | register-commands | doctor`
 * (commander), each with `--help`. Commands resolve with an exit code; only the
 * entry (src/cli.ts) exits the process.
 */

import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import type { LessonMode } from "../core/contracts/events.ts";
import { LOCALES, type Locale } from "../i18n/locales.ts";
import { type CliIo, processIo } from "./process-io.ts";
import { parseShardsOption, SHARD_PROCESS_FLAG, type ShardSetting } from "./shard-option.ts";

// Each command's module (and the store, model, renderer and platform SDKs behind it) loads when the command runs:
// `--version`, `--help` and a usage error load only commander (docs/operations.md "Start time").

/** What running the CLI leads to: exit with a code, or keep running (servers). */
export type CliOutcome = { exit: number } | { running: true };

function version(): string {
	// From src/cli/ (tsx) the package is two folders up; from the bundle in dist/, one.
	for (const path of ["../../package.json", "../package.json"]) {
		try {
			const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8")) as {
				name?: string;
				version?: string;
			};
			if (pkg.name === "learnharness") return pkg.version ?? "0.0.0";
		} catch {
			// not there: try the next place
		}
	}
	return "0.0.0";
}

/** Builds the commander program; `settle` receives each command's outcome. */
export function createProgram(io: CliIo, settle: (outcome: CliOutcome) => void): Command {
	const program = new Command()
		.name("learnharness")
		.description(
			"A tutor for Discord and Slack threads: it probes what a learner knows, maps a lesson, and teaches with quizzes.",
		)
		.version(version())
		.showHelpAfterError("(run with --help for usage)");
	program
		.command("start")
		.description(
			"Run every chat adapter whose credentials are set (DISCORD_TOKEN, SLACK_BOT_TOKEN); with none set, the terminal playground.",
		)
		.addOption(
			new Option(
				"--shards <count>",
				"run Discord as shard processes under discord.js's ShardingManager: auto (Discord's count) or a number; needs a Redis or PostgreSQL store (as DISCORD_SHARDS)",
			).argParser(parseShardsOption),
		)
		.addOption(new Option(SHARD_PROCESS_FLAG, "run one shard (the shard manager starts its children so)").hideHelp())
		.action(async (opts: { shards?: ShardSetting; shardProcess?: boolean }) => {
			const { startCommand } = await import("./start.ts");
			const outcome = await startCommand(io, {
				...(opts.shards !== undefined ? { shards: opts.shards } : {}),
				...(opts.shardProcess === true ? { shardProcess: true } : {}),
			});
			settle(outcome.running ? { running: true } : { exit: outcome.exitCode });
		});
	program
		.command("playground")
		.description("Take a lesson in this terminal (works with no key on the built-in demo model).")
		.option("--resume <id>", "resume a lesson by its session id (terminal:<id>, printed when it starts)")
		.option("--topic <topic>", "what to learn (asked for when omitted)")
		.addOption(new Option("--mode <mode>", "solo (one learner) or group").choices(["solo", "group"]).default("solo"))
		.addOption(
			new Option("--language <code>", "the lesson's language (the demo model stays English)")
				.choices([...LOCALES])
				.default("en"),
		)
		.option("--material <file>", "a PDF the lesson teaches from, citing its pages (docs/material.md)")
		.option("--plans-dir <dir>", "where plan pictures are saved", "data/plans")
		.addHelpText(
			"after",
			"\nAnswer with the arrow keys or a letter, then Enter. When standard input is not a terminal, give one answer a line\n" +
				"(a letter for a choice, text for a typed answer); /quit pauses, /end ends the lesson.",
		)
		.action(
			async (opts: {
				resume?: string;
				topic?: string;
				mode: LessonMode;
				language: Locale;
				plansDir: string;
				material?: string;
			}) => {
				const { playgroundCommand } = await import("./terminal-commands.ts");
				settle({ exit: await playgroundCommand(opts, io) });
			},
		);
	program
		.command("review")
		.description("Review the ideas due from your terminal lessons (spaced review; one answer a line).")
		.action(async () => {
			const { reviewCommand } = await import("./terminal-commands.ts");
			settle({ exit: await reviewCommand(io) });
		});
	program
		.command("progress")
		.description("Your progress per topic from your terminal lessons (learned, shaky, not yet; items due).")
		.addOption(new Option("--language <code>", "the language of what is printed").choices([...LOCALES]).default("en"))
		.action(async (opts: { language: Locale }) => {
			const { progressCommand } = await import("./terminal-commands.ts");
			settle({ exit: await progressCommand(io, { language: opts.language }) });
		});
	program
		.command("forget-me")
		.description(
			"Delete your learner profile, review items and the transcripts of your terminal lessons (asks for --yes first).",
		)
		.option("--yes", "delete now (without it, the command says what would go)")
		.addOption(new Option("--language <code>", "the language of what is printed").choices([...LOCALES]).default("en"))
		.action(async (opts: { yes?: boolean; language: Locale }) => {
			const { forgetMeCommand } = await import("./terminal-commands.ts");
			settle({ exit: await forgetMeCommand(io, { yes: opts.yes === true, language: opts.language }) });
		});
	program
		.command("register-commands")
		.description("Register the /lesson slash command with Discord (in DISCORD_GUILD_ID when set, else globally).")
		.action(async () => {
			const { registerCommandsCommand } = await import("./register-commands.ts");
			settle({ exit: await registerCommandsCommand(io) });
		});
	program
		.command("doctor")
		.description(
			"Check the configuration, Chromium and a test render, the store, the model and each platform token; exit 1 on failure.",
		)
		.option("--timeout <seconds>", "time limit of each check", "20")
		.action(async (opts: { timeout: string }) => {
			const seconds = Number(opts.timeout);
			const timeoutMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 20_000;
			const { doctorCommand } = await import("./doctor.ts");
			settle({ exit: await doctorCommand(io, { timeoutMs }) });
		});
	return program;
}

/** Parses argv and runs the command; resolves with its outcome (help and usage errors exit through commander). */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<CliOutcome> {
	let outcome: CliOutcome = { exit: 0 };
	const program = createProgram(io, (o) => {
		outcome = o;
	});
	await program.parseAsync([...argv]);
	return outcome;
}
