/**
 * `learnharness start --shards auto|N` (or DISCORD_SHARDS): Discord as N shard
 * processes under discord.js's ShardingManager. This process is the manager
 * only: it checks that the store is shared, asks Discord for the count
 * (`auto`), registers `/lesson` once, spawns `bin/learnharness.js start
 * --shard-process` per shard (respawned when one dies), serves
 * LEARNHARNESS_HEALTH_PORT for all of them (each child answers a readiness
 * question over the IPC channel), and on SIGTERM/SIGINT stops the children
 * and exits. It opens no store and no Chromium: the children do.
 */

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Config, redactUrl } from "../config.ts";
import type { Logger } from "../core/contracts/logger.ts";
import { createHealth, type Health, READY_CHECK_MS, type ReadinessStatus } from "./health.ts";
import { type CliIo, EXIT_CONFIG, messageOf } from "./io.ts";
import { createProcessLogger } from "./logger.ts";
import { installProcessHandlers, ShutdownRegistry } from "./process.ts";

// The hidden flag the manager gives its children (run one shard, from SHARDS/SHARD_COUNT) and `--shards`' parser
// live in shard-option.ts: the command line reads them without loading this file.
import { SHARD_PROCESS_FLAG, type ShardSetting } from "./shard-option.ts";

export { parseShardsOption, SHARD_PROCESS_FLAG, type ShardSetting } from "./shard-option.ts";

/** How long the children get to finish their turns on SIGTERM before they are killed. */
const CHILD_STOP_MS = 20_000;

/** The shard ids this process runs, when it is a shard child (discord.js passes SHARDS to it). */
export function shardIdsOfThisProcess(env: Record<string, string | undefined> = process.env): number[] {
	try {
		const parsed: unknown = JSON.parse(env.SHARDS ?? "null");
		if (typeof parsed === "number") return [parsed];
		if (Array.isArray(parsed)) return parsed.filter((x): x is number => typeof x === "number");
	} catch {
		// not a shard child
	}
	return [];
}

/** A shard child's configuration: Slack (one HTTP port) in shard 0 only, and no health port (the manager's). */
export function shardChildConfig(config: Config, shardIds: readonly number[]): Config {
	const { slack, healthPort: _managers, ...rest } = config;
	return { ...rest, ...(slack && shardIds.includes(0) ? { slack } : {}) };
}

/** Stores several processes can share (SQLite allows one process; memory:// is one process's memory). */
export function storeIsShared(url: string): boolean {
	return /^(redis|rediss|postgres|postgresql):\/\//i.test(url);
}

/** bin/learnharness.js, from the sources (src/cli/) or the bundle (dist/). */
function entryScript(): string {
	for (const path of ["../../bin/learnharness.js", "../bin/learnharness.js"]) {
		const file = fileURLToPath(new URL(path, import.meta.url));
		if (existsSync(file)) return file;
	}
	throw new Error("bin/learnharness.js was not found next to the sources");
}

/** Runs the shard manager; resolves `running` once every shard is ready, or an exit code. */
export async function runShardManager(
	config: Config,
	setting: ShardSetting,
	io: CliIo,
): Promise<{ running: true } | { running: false; exitCode: number }> {
	const refuse = (sentence: string, code = EXIT_CONFIG) => {
		io.stderr.write(`learnharness could not start: ${sentence}\n`);
		return { running: false as const, exitCode: code };
	};
	const discord = config.discord;
	if (!discord)
		return refuse("--shards (DISCORD_SHARDS) runs Discord in shard processes, but DISCORD_TOKEN is not set.");
	if (!storeIsShared(config.storeUrl))
		return refuse(
			`sharding runs one process per shard, and they must share one store, but LEARNHARNESS_STORE_URL is ${redactUrl(config.storeUrl)}, ` +
				"which one process holds alone. Set LEARNHARNESS_STORE_URL to redis://… or postgres://… (docs/scaling.md), or start without --shards.",
		);
	const logger = createProcessLogger(config.logLevel, { kind: "stderr", pretty: io.stderr.isTTY === true }).child({
		role: "shard manager",
	});
	// Only what the manager needs (not the lesson adapter): it runs no lessons.
	const { gatewayShardInfo, startShards } = await import("../adapters/discord/sharding.ts");
	const { registerDiscordCommands } = await import("../adapters/discord/commands.ts");
	// The count (for auto) and how many shards may identify at once; a given count starts without the answer.
	let gateway: { shards: number; maxConcurrency: number };
	try {
		gateway = await gatewayShardInfo(discord.token, discord.apiUrl);
	} catch (error) {
		if (setting === "auto")
			return refuse(
				`could not ask Discord for the shard count (${messageOf(error)}). Check DISCORD_TOKEN and DISCORD_API_URL, or give a number (--shards 2).`,
				1,
			);
		logger.warn({ err: error }, "discord: GET /gateway/bot failed; shards start one after another");
		gateway = { shards: setting, maxConcurrency: 1 };
	}
	const total = setting === "auto" ? gateway.shards : setting;
	// Once here, not once per shard: every child starts with registering turned off.
	try {
		await registerDiscordCommands(discord, logger);
	} catch (error) {
		logger.error({ err: error }, "discord: registering /lesson failed; existing commands stay");
	}

	const registry = new ShutdownRegistry(logger, CHILD_STOP_MS + 5_000);
	const health = config.healthPort === undefined ? undefined : createHealth(logger);
	if (health) registry.add({ name: "health endpoints", close: () => health.close() });
	let giveUp: (() => void) | undefined;
	installProcessHandlers(
		logger,
		registry,
		(code) => {
			logger.info({ code }, "shard manager stopped");
			process.exit(code);
		},
		{
			onSignal: () => {
				health?.drain();
				return false;
			},
		},
	);
	logger.info({ shards: total, store: redactUrl(config.storeUrl) }, "starting Discord shards");
	let shards: Awaited<ReturnType<typeof startShards>>;
	try {
		shards = await startShards({
			file: entryScript(),
			args: ["start", SHARD_PROCESS_FLAG],
			token: discord.token,
			totalShards: total,
			maxConcurrency: gateway.maxConcurrency,
			logger,
			onGiveUp: () => giveUp?.(),
		});
	} catch (error) {
		await registry.close();
		return refuse(`a shard process did not start (${messageOf(error)}); its own lines above say why.`, 1);
	}
	registry.add({ name: "shard processes", close: () => shards.stop(CHILD_STOP_MS) });
	// A shard that keeps crashing takes the whole bot down visibly instead of serving a part of the guilds.
	giveUp = () => {
		health?.drain();
		void registry.close().finally(() => {
			logger.error({}, "shard manager stopped: a shard could not stay up");
			process.exit(1);
		});
	};
	if (health) await serveManagerHealth(health, shards, config.healthPort ?? 0, logger);
	logger.info({ shards: total }, "learnharness is running in shard processes; Ctrl+C stops them");
	return { running: true };
}

/** A child's answer to the manager's readiness question. */
interface ReadyReply {
	lh: "readyz";
	nonce: number;
	status: ReadinessStatus;
}

let nonces = 0;

/** /healthz and /readyz for every shard: ready when every child is ready and its own checks pass. */
async function serveManagerHealth(
	health: Health,
	shards: { shards(): Array<{ id: number; ready: boolean }>; ask: AskFn; total: number },
	port: number,
	logger: Logger,
): Promise<void> {
	for (let id = 0; id < shards.total; id++)
		health.add({
			name: `shard ${id}`,
			async check() {
				const state = shards.shards().find((s) => s.id === id);
				if (!state?.ready) return { ok: false, detail: "not connected" };
				const nonce = ++nonces;
				const reply = (await shards.ask(
					id,
					{ lh: "readyz", nonce },
					(r) => (r as ReadyReply | null)?.lh === "readyz" && (r as ReadyReply).nonce === nonce,
					READY_CHECK_MS - 200,
				)) as ReadyReply | undefined;
				if (!reply) return { ok: false, detail: "no answer in time" };
				// Only the checks that failed (a line like `turns` or `platform: connected` is not a reason).
				const failing = Object.entries(reply.status.checks).filter(([name]) => reply.status.failing?.includes(name));
				return {
					ok: reply.status.ok,
					detail: reply.status.ok ? "ready" : failing.map(([name, d]) => `${name}: ${d}`).join(", ") || "not ready",
				};
			},
		});
	try {
		const bound = await health.listen(port);
		logger.info({ port: bound }, "health endpoints listening for every shard (/healthz, /readyz)");
	} catch (error) {
		logger.error({ err: error, port }, "health endpoints could not listen; the bot runs without them");
	}
}

type AskFn = (
	shardId: number,
	message: unknown,
	matches: (reply: unknown) => boolean,
	timeoutMs: number,
) => Promise<unknown>;

/**
 * In a shard child: answer the manager's readiness questions with this process's checks, and
 * stop (as on SIGTERM) when the manager is gone, so no orphan keeps a shard's connection.
 */
export function serveShardChild(health: Health, logger: Logger): void {
	if (typeof process.send !== "function") return;
	process.on("message", (message: unknown) => {
		const m = message as { lh?: unknown; nonce?: unknown } | null;
		if (m?.lh !== "readyz" || typeof m.nonce !== "number") return;
		const nonce = m.nonce;
		void health.status().then((status) => {
			if (process.connected) process.send?.({ lh: "readyz", nonce, status } satisfies ReadyReply);
		});
	});
	const orphaned = () => {
		logger.warn({}, "the shard manager is gone; stopping this shard");
		process.kill(process.pid, "SIGTERM");
	};
	// Gone while this shard was starting: the disconnect event has passed already.
	if (!process.connected) orphaned();
	else process.once("disconnect", orphaned);
}
