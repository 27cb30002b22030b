/**
 * `learnharness start`: every adapter whose credentials are set, or the
 * playground when none is. Adapters are imported lazily, so a broken or
 * missing adapter never stops the playground (or the other adapter).
 */

import { openStateStore } from "../agent/index.ts";
import { type Config, redactUrl } from "../config.ts";
import type { Logger } from "../core/contracts/logger.ts";
import { type CliIo, EXIT_CONFIG, loadConfigOrReport } from "./io.ts";
import { createProcessLogger } from "./logger.ts";
import { playgroundCommand } from "./playground-command.ts";
import { installProcessHandlers, ShutdownRegistry } from "./process.ts";
import { createServices, describeModel, type Services } from "./services.ts";

/** A started adapter, as start sees it. */
interface RunningAdapter {
	stop(): Promise<void>;
}

/** The result of start: an exit code now, or `running` (the process stays up until a signal). */
export type StartOutcome = { running: true } | { running: false; exitCode: number };

/** Starts the configured adapters (or the playground). */
export async function startCommand(io: CliIo): Promise<StartOutcome> {
	const config = loadConfigOrReport(io);
	if (!config) return { running: false, exitCode: EXIT_CONFIG };
	if (!config.discord && !config.slack) {
		io.stdout.write(
			// Short lines: this prints before the playground knows the terminal's width.
			"No chat platform is configured, so here is the terminal playground.\n" +
				"To teach in Discord or Slack, set DISCORD_TOKEN or SLACK_BOT_TOKEN\n" +
				"(see docs/discord.md and docs/slack.md).\n" +
				(io.stdin.isTTY === true
					? "\n"
					: "Standard input is not a terminal: the topic and the answers are read from it, one a line.\n\n"),
		);
		return { running: false, exitCode: await playgroundCommand({}, io) };
	}
	const logger = createProcessLogger(config.logLevel, { kind: "stderr", pretty: io.stderr.isTTY === true });
	const registry = new ShutdownRegistry(logger);
	installProcessHandlers(logger, registry, (code) => {
		logger.flush();
		process.exit(code);
	});
	let runtime: Services;
	try {
		runtime = await createServices(config, logger, registry);
	} catch (error) {
		logger.error({ err: error }, "could not start the tutor");
		await registry.close();
		return { running: false, exitCode: 1 };
	}
	logger.info({ model: describeModel(config), store: redactUrl(config.storeUrl) }, "tutor ready");
	const started = await Promise.all([
		config.discord ? startAdapter("discord", () => startDiscord(config, runtime, logger, registry), logger) : undefined,
		config.slack ? startAdapter("slack", () => startSlack(config, runtime, logger, registry), logger) : undefined,
	]);
	const running = started.filter((a) => a !== undefined);
	if (running.length === 0) {
		logger.error({}, "no adapter could start; see the errors above, or run `learnharness doctor`");
		await registry.close();
		return { running: false, exitCode: 1 };
	}
	for (const [i, adapter] of running.entries()) registry.add({ name: `adapter ${i + 1}`, close: () => adapter.stop() });
	logger.info({ adapters: running.length }, "learnharness is running; Ctrl+C stops it");
	return { running: true };
}

async function startAdapter(
	name: string,
	start: () => Promise<RunningAdapter>,
	logger: Logger,
): Promise<RunningAdapter | undefined> {
	try {
		const adapter = await start();
		logger.info({ adapter: name }, "adapter started");
		return adapter;
	} catch (error) {
		logger.error({ err: error, adapter: name }, `the ${name} adapter could not start`);
		return undefined;
	}
}

/** The adapter's lesson state (posted cards, server settings, daily counts) in the same store, so it survives restarts. */
function adapterState(config: Config, name: string, logger: Logger, registry: ShutdownRegistry) {
	const state = openStateStore(config.storeUrl, name, logger);
	registry.add({ name: `${name} state`, close: () => state.close() });
	return state;
}

async function startDiscord(
	config: Config,
	runtime: Services,
	logger: Logger,
	registry: ShutdownRegistry,
): Promise<RunningAdapter> {
	const discord = config.discord;
	if (!discord) throw new Error("Discord is not configured");
	const { createDiscordAdapter } = await import("../adapters/discord/index.ts");
	const adapter = createDiscordAdapter({
		tutor: runtime.tutor,
		renderer: runtime.renderer,
		config: discord,
		logger: logger.child({ adapter: "discord" }),
		state: adapterState(config, "discord", logger, registry),
	});
	await adapter.start();
	return adapter;
}

async function startSlack(
	config: Config,
	runtime: Services,
	logger: Logger,
	registry: ShutdownRegistry,
): Promise<RunningAdapter> {
	const slack = config.slack;
	if (!slack) throw new Error("Slack is not configured");
	const { createSlackAdapter } = await import("../adapters/slack/index.ts");
	const adapter = createSlackAdapter({
		tutor: runtime.tutor,
		renderer: runtime.renderer,
		config: slack,
		logger, // the Slack adapter tags its own lines
		state: adapterState(config, "slack", logger, registry),
	});
	await adapter.start();
	return adapter;
}
