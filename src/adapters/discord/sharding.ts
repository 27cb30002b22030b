/**
 * Discord sharding on discord.js's own machinery: a ShardingManager forks one
 * child process per shard (our own entry, told by `args` to run one shard; the
 * manager passes SHARDS and SHARD_COUNT in the environment, which the child's
 * discord.js Client picks up by itself), respawns a child that dies, and
 * hears when each shard's gateway is ready. This module only spawns, watches,
 * asks and stops; what a child runs is the CLI's business.
 */

import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { REST, type Shard, ShardingManager } from "discord.js";
import { type APIGatewayBotInfo, Routes } from "discord-api-types/v10";
import type { Logger } from "../../core/contracts/logger.ts";

/** What `GET /gateway/bot` says about sharding: the recommended count, and how many shards may identify at once. */
export interface GatewayShardInfo {
	shards: number;
	maxConcurrency: number;
}

/** Discord's recommended shard count and identify concurrency (`GET /gateway/bot`), through `apiUrl` when set. */
export async function gatewayShardInfo(token: string, apiUrl?: string): Promise<GatewayShardInfo> {
	const rest = new REST(apiUrl ? { api: apiUrl } : {}).setToken(token);
	try {
		const info = (await rest.get(Routes.gatewayBot())) as APIGatewayBotInfo;
		if (!Number.isInteger(info.shards) || info.shards < 1) throw new Error(`Discord recommended ${info.shards} shards`);
		const concurrency = info.session_start_limit?.max_concurrency;
		return { shards: info.shards, maxConcurrency: Number.isInteger(concurrency) && concurrency > 0 ? concurrency : 1 };
	} finally {
		rest.clearHashSweeper();
		rest.clearHandlerSweeper();
	}
}

/** How to spawn the shards. */
export interface ShardManagerOptions {
	/** The script each child runs (bin/learnharness.js). */
	file: string;
	/** Its arguments (e.g. `start --shard-process`). */
	args: string[];
	token: string;
	totalShards: number;
	logger: Logger;
	/**
	 * How many shards may identify at once (`max_concurrency` of /gateway/bot; default 1). When every
	 * shard fits, all start together; else one after another, each ready and 5.5 s apart (Discord allows
	 * one IDENTIFY per 5 s per bucket), as discord.js's ShardingManager does.
	 */
	maxConcurrency?: number;
	/** How long a child may take to be ready (its gateway connected); default 60 s. */
	readyTimeoutMs?: number;
	/** A shard that dies this many times within `restartWindowMs` is not respawned again (default 5 in 60 s). */
	maxRestarts?: number;
	restartWindowMs?: number;
	/** Called once when a shard keeps dying and the manager gives up on it. */
	onGiveUp?: (shardId: number) => void;
}

/** One shard as the manager sees it. */
export interface ShardState {
	id: number;
	/** Its gateway is connected (the child said so). */
	ready: boolean;
	/** The child's process id, while it runs. */
	pid?: number;
	/** Times its child died so far. */
	deaths: number;
}

/** The running shards. */
export interface RunningShards {
	readonly total: number;
	shards(): ShardState[];
	/** Send `message` to a shard's child and resolve the first reply `matches` accepts, or undefined after `timeoutMs`. */
	ask(shardId: number, message: unknown, matches: (reply: unknown) => boolean, timeoutMs: number): Promise<unknown>;
	/** No more respawns; SIGTERM every child, SIGKILL those still running after `timeoutMs`. */
	stop(timeoutMs: number): Promise<void>;
}

/** Spawn every shard (one after another, each waited for until ready); rejects when one cannot start. */
export async function startShards(options: ShardManagerOptions): Promise<RunningShards> {
	const { logger } = options;
	const manager = new ShardingManager(options.file, {
		totalShards: options.totalShards,
		shardArgs: options.args,
		// The entry is plain JavaScript (it loads tsx itself); no flags of this process are passed on.
		execArgv: [],
		token: options.token,
		respawn: true,
		mode: "process",
	});
	const maxRestarts = options.maxRestarts ?? 5;
	const windowMs = options.restartWindowMs ?? 60_000;
	const deaths = new Map<number, number[]>();
	let stopping = false;
	/** Each shard's first readiness; rejected when its first child dies before. */
	const firstReady: Array<Promise<void>> = [];

	manager.on("shardCreate", (shard: Shard) => {
		const ready = new Promise<void>((resolve, reject) => {
			shard.once("ready", () => resolve());
			shard.once("death", () => reject(new Error(`shard ${shard.id}'s process exited before it was ready`)));
		});
		ready.catch(() => {}); // awaited below only in the parallel start
		firstReady.push(ready);
		shard.on("spawn", (child) => logger.info({ shard: shard.id, pid: (child as ChildProcess).pid }, "shard started"));
		shard.on("ready", () => logger.info({ shard: shard.id }, "shard ready"));
		shard.on("error", (error: unknown) => logger.error({ err: error, shard: shard.id }, "shard error"));
		shard.on("death", (died) => {
			const child = died as ChildProcess;
			if (stopping) return;
			const now = Date.now();
			const recent = [...(deaths.get(shard.id) ?? []), now].filter((at) => now - at < windowMs);
			deaths.set(shard.id, recent);
			if (recent.length > maxRestarts) {
				// _handleExit reads manager.respawn after this event: the shard is not respawned.
				manager.respawn = false;
				logger.error(
					{ shard: shard.id, deaths: recent.length, windowMs },
					"a shard keeps dying; giving up on respawning it",
				);
				options.onGiveUp?.(shard.id);
				return;
			}
			logger.warn(
				{ shard: shard.id, code: child.exitCode, signal: child.signalCode },
				"shard process exited; respawning it",
			);
		});
	});

	const stop = async (timeoutMs: number): Promise<void> => {
		stopping = true;
		manager.respawn = false;
		await Promise.all(
			[...manager.shards.values()].map(async (shard) => {
				const child = shard.process;
				if (!child || child.exitCode !== null || child.signalCode !== null) return;
				const exited = once(child, "exit").catch(() => undefined);
				child.kill("SIGTERM");
				child.kill("SIGCONT"); // a paused child cannot handle SIGTERM until it runs again
				let timer: NodeJS.Timeout | undefined;
				const late = new Promise<"late">((resolve) => {
					timer = setTimeout(() => resolve("late"), timeoutMs);
				});
				const outcome = await Promise.race([exited, late]);
				clearTimeout(timer);
				if (outcome === "late") {
					logger.warn({ shard: shard.id, timeoutMs }, "shard did not stop in time; killing it");
					child.kill("SIGKILL");
				}
			}),
		);
	};

	const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
	try {
		if ((options.maxConcurrency ?? 1) >= options.totalShards) {
			// Every shard in a bucket of its own: fork them all now, then wait (bounded) until all are ready.
			await manager.spawn({ amount: options.totalShards, delay: 0, timeout: -1 });
			let timer: NodeJS.Timeout | undefined;
			const late = new Promise<never>((_, reject) => {
				timer = setTimeout(() => reject(new Error(`shards not ready within ${readyTimeoutMs} ms`)), readyTimeoutMs);
			});
			try {
				await Promise.race([Promise.all(firstReady), late]);
			} finally {
				clearTimeout(timer);
			}
		} else {
			await manager.spawn({ amount: options.totalShards, delay: 5_500, timeout: readyTimeoutMs });
		}
	} catch (error) {
		await stop(5_000);
		throw error;
	}

	return {
		total: options.totalShards,
		shards: () =>
			[...manager.shards.values()].map((shard) => ({
				id: shard.id,
				ready: shard.ready,
				...(shard.process?.pid !== undefined ? { pid: shard.process.pid } : {}),
				deaths: deaths.get(shard.id)?.length ?? 0,
			})),
		async ask(shardId, message, matches, timeoutMs) {
			const shard = manager.shards.get(shardId);
			if (!shard?.process) return undefined;
			let timer: NodeJS.Timeout | undefined;
			let listener: ((reply: unknown) => void) | undefined;
			try {
				return await new Promise<unknown>((resolve) => {
					timer = setTimeout(() => resolve(undefined), timeoutMs);
					listener = (reply: unknown) => {
						if (matches(reply)) resolve(reply);
					};
					shard.on("message", listener);
					shard.send(message).catch(() => resolve(undefined));
				});
			} finally {
				clearTimeout(timer);
				if (listener) shard.off("message", listener);
			}
		},
		stop,
	};
}
