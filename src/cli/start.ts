/**
 * `learnharness start`: every adapter whose credentials are set, or the
 * playground when none is. Adapters are imported lazily, so a broken or
 * missing adapter never stops the playground (or the other adapter).
 * With `--shards` (or DISCORD_SHARDS) this process becomes the shard manager
 * instead (src/cli/shards.ts), and each shard child runs this function with
 * `shardProcess`: Discord for its shard (from SHARDS/SHARD_COUNT), Slack only
 * in shard 0, no command registration (the manager did it once), and no
 * health port (the manager serves it for all).
 */

import { isStoreError, openStateStore } from "../agent/index.ts";
import { type Config, redactUrl } from "../config.ts";
import type { Logger } from "../core/contracts/logger.ts";
import type { Dashboard } from "../dashboard/index.ts";
import { createHealth, type Health } from "./health.ts";
import { type CliIo, EXIT_CONFIG, loadConfigOrReport, messageOf } from "./io.ts";
import { createProcessLogger } from "./logger.ts";
import { installProcessHandlers, ShutdownRegistry } from "./process.ts";
import { createServices, describeModel, type Services } from "./services.ts";
import {
	runShardManager,
	type ShardSetting,
	serveShardChild,
	shardChildConfig,
	shardIdsOfThisProcess,
} from "./shards.ts";
import { PLAYGROUND_LOG, playgroundCommand } from "./terminal-commands.ts";
import { turnGateDetail } from "./turn-gate-report.ts";

/** A started adapter, as start sees it. */
interface RunningAdapter {
	stop(): Promise<void>;
	/** Connected and not stopping (for /readyz). */
	ready(): boolean;
}

/** The result of start: an exit code now, or `running` (the process stays up until a signal). */
export type StartOutcome = { running: true } | { running: false; exitCode: number };

/** Options of `start`. */
export interface StartOptions {
	/** `--shards`: run the shard manager (overrides DISCORD_SHARDS). */
	shards?: ShardSetting;
	/** Set by the shard manager on its children: run the shard in SHARDS/SHARD_COUNT. */
	shardProcess?: boolean;
}

/** Starts the configured adapters (or the playground), or the Discord shard manager. */
export async function startCommand(io: CliIo, options: StartOptions = {}): Promise<StartOutcome> {
	const loaded = loadConfigOrReport(io);
	if (!loaded) return { running: false, exitCode: EXIT_CONFIG };
	const shards = options.shards ?? loaded.discord?.shards;
	if (!options.shardProcess && shards !== undefined) return await runShardManager(loaded, shards, io);
	const shardIds = options.shardProcess ? shardIdsOfThisProcess() : [];
	const config = options.shardProcess ? shardChildConfig(loaded, shardIds) : loaded;
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
	const processLogger = createProcessLogger(config.logLevel, { kind: "stderr", pretty: io.stderr.isTTY === true });
	const logger = options.shardProcess ? processLogger.child({ shard: shardIds.join(",") }) : processLogger;
	const registry = new ShutdownRegistry(logger);
	// Registered first, so it closes last: /readyz says "draining" while the adapters finish their turns.
	const health = createHealth(logger);
	registry.add({ name: "health endpoints", close: () => health.close() });
	installProcessHandlers(
		logger,
		registry,
		(code) => {
			processLogger.flush();
			process.exit(code);
		},
		{
			onSignal: () => {
				health.drain(); // load balancers stop sending; then everything closes as usual
				return false;
			},
		},
	);
	let runtime: Services;
	try {
		runtime = await createServices(config, logger, registry);
	} catch (error) {
		await registry.close();
		// A SQLite file held by another process says what to do itself.
		const fix =
			isStoreError(error) && error.code !== "store-locked"
				? " Check LEARNHARNESS_STORE_URL, and that the store's server is running."
				: "";
		return startFailed(io, config, [`${sentence(messageOf(error))}${fix}`], [error]);
	}
	// The admins' dashboard: links from every process, pages from one (not from the Discord shards past the first).
	if (config.dashboard) {
		const serve = !options.shardProcess || shardIds.includes(0);
		const dashboard = await startDashboard(config.storeUrl, config.dashboard, runtime, logger, registry, serve);
		if (dashboard) runtime.learning.dashboard = dashboard;
	}
	const started = await Promise.all([
		config.discord
			? startAdapter(
					"discord",
					() => startDiscord(config, runtime, logger, registry, options.shardProcess !== true),
					logger,
				)
			: undefined,
		config.slack
			? startAdapter("slack", () => startSlack(config, runtime, logger, registry, health), logger)
			: undefined,
	]);
	const running = started.flatMap((a) => (a && "adapter" in a ? [a.adapter] : []));
	const failed = started.flatMap((a) => (a && "error" in a ? [a.error] : []));
	if (running.length === 0) {
		await registry.close();
		return startFailed(io, config, failed.map(messageOf), failed);
	}
	// One platform is up: the other's failure is an error in the running log, not a stop.
	for (const error of failed) logger.error({ err: error }, "an adapter could not start; the others run");
	for (const [i, adapter] of running.entries()) registry.add({ name: `adapter ${i + 1}`, close: () => adapter.stop() });
	// Chromium starts now, not on the first lesson's map (readiness waits for it).
	void runtime.renderer.warm?.();
	await serveHealth(config, runtime, health, running, logger, registry);
	if (options.shardProcess) serveShardChild(health, logger);
	// One line once everything is up (a start that fails prints only its sentences).
	logger.info(
		{ adapters: running.length, model: describeModel(config), store: redactUrl(config.storeUrl) },
		"learnharness is running; Ctrl+C stops it",
	);
	return { running: true };
}

/** The readiness checks, and a port of their own when LEARNHARNESS_HEALTH_PORT is set (else Slack's, if any). */
async function serveHealth(
	config: Config,
	runtime: Services,
	health: Health,
	adapters: RunningAdapter[],
	logger: Logger,
	registry: ShutdownRegistry,
): Promise<void> {
	const probe = openStateStore(config.storeUrl, "health", logger);
	registry.add({ name: "health store", close: () => probe.close() });
	health.add({
		name: "store",
		check: async () => {
			await probe.get("probe");
			return { ok: true, detail: "ok" };
		},
	});
	health.add({
		name: "chromium",
		check: async () => {
			const state = runtime.renderer.readiness?.() ?? "ready";
			// Without a browser, pictures fall back to outlines: the bot still serves.
			return { ok: state !== "starting", detail: state === "unavailable" ? "unavailable (outlines only)" : state };
		},
	});
	const gate = runtime.turnGate;
	// Informational: a saturated process still acknowledges on time; its held turns start within 30 s.
	if (gate) health.add({ name: "turns", check: async () => ({ ok: true, detail: turnGateDetail(gate.stats()) }) });
	for (const [i, adapter] of adapters.entries())
		health.add({
			name: adapters.length === 1 ? "platform" : `platform ${i + 1}`,
			check: async () => (adapter.ready() ? { ok: true, detail: "connected" } : { ok: false, detail: "not connected" }),
		});
	if (config.healthPort === undefined) return;
	try {
		const port = await health.listen(config.healthPort);
		logger.info({ port }, "health endpoints listening (/healthz, /readyz)");
	} catch (error) {
		logger.error(
			{ err: error, port: config.healthPort },
			"health endpoints could not listen; the bot runs without them",
		);
	}
}

async function startAdapter(
	name: string,
	start: () => Promise<RunningAdapter>,
	logger: Logger,
): Promise<{ adapter: RunningAdapter } | { error: unknown }> {
	try {
		const adapter = await start();
		logger.info({ adapter: name }, "adapter started");
		return { adapter };
	} catch (error) {
		return { error };
	}
}

/** A message ending as a sentence does. */
const sentence = (text: string): string => (/[.!?)]$/.test(text) ? text : `${text}.`);

/**
 * Start-up failed: people get sentences on stderr, each with its fix, and a pointer to the
 * details (stack traces, causes), which go to the log file, not to the terminal.
 */
function startFailed(io: CliIo, config: Config, sentences: string[], errors: unknown[]): StartOutcome {
	const file = createProcessLogger(config.logLevel === "silent" ? "error" : config.logLevel, {
		kind: "file",
		path: PLAYGROUND_LOG,
	});
	for (const error of errors) file.error({ err: error }, "learnharness could not start");
	file.flush();
	const lines = sentences.map((s) => `learnharness could not start: ${s}`);
	lines.push(`Details are in ${PLAYGROUND_LOG}; \`${io.invocation ?? "learnharness"} doctor\` checks the whole setup.`);
	io.stderr.write(`${lines.join("\n")}\n`);
	return { running: false, exitCode: 1 };
}

/** The dashboard (docs/dashboard.md), listening when `serve`; undefined when it could not start (the bot runs without it). */
async function startDashboard(
	storeUrl: string,
	settings: NonNullable<Config["dashboard"]>,
	runtime: Services,
	logger: Logger,
	registry: ShutdownRegistry,
	serve: boolean,
): Promise<Dashboard | undefined> {
	const { createDashboard } = await import("../dashboard/index.ts");
	const state = openStateStore(storeUrl, "learnharness:dashboard", logger);
	registry.add({ name: "dashboard state", close: () => state.close() });
	const dashboard = createDashboard({
		...settings,
		state,
		learning: runtime.learning.learning,
		records: runtime.records,
		logger: logger.child({ part: "dashboard" }),
	});
	if (!serve) return dashboard;
	try {
		await dashboard.listen();
		registry.add({ name: "dashboard", close: () => dashboard.close() });
		return dashboard;
	} catch (error) {
		logger.error(
			{ err: error, host: settings.host, port: settings.port },
			"the dashboard could not listen; the bot runs without it (fix LEARNHARNESS_DASHBOARD_HOST or _PORT)",
		);
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
	registerCommands: boolean,
): Promise<RunningAdapter> {
	const discord = config.discord;
	if (!discord) throw new Error("Discord is not configured");
	const { createDiscordAdapter } = await import("../adapters/discord/index.ts");
	const adapter = createDiscordAdapter({
		tutor: runtime.tutor,
		renderer: runtime.renderer,
		config: { ...discord, vision: config.model.vision, ...(registerCommands ? {} : { registerCommands: false }) },
		logger: logger.child({ adapter: "discord" }),
		state: adapterState(config, "discord", logger, registry),
		budgets: runtime.budgets,
		learning: runtime.learning,
	});
	await adapter.start();
	return adapter;
}

async function startSlack(
	config: Config,
	runtime: Services,
	logger: Logger,
	registry: ShutdownRegistry,
	health: Health,
): Promise<RunningAdapter> {
	const slack = config.slack;
	if (!slack) throw new Error("Slack is not configured");
	const { createSlackAdapter } = await import("../adapters/slack/index.ts");
	const adapter = createSlackAdapter({
		tutor: runtime.tutor,
		renderer: runtime.renderer,
		config: { ...slack, vision: config.model.vision },
		logger, // the Slack adapter tags its own lines
		state: adapterState(config, "slack", logger, registry),
		budgets: runtime.budgets,
		// /healthz and /readyz on Slack's port, unless they have a port of their own.
		...(config.healthPort === undefined ? { httpRoutes: health.routes() } : {}),
		learning: runtime.learning,
	});
	await adapter.start();
	return adapter;
}
