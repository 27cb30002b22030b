/**
 * The bot processes of `bench:scale`: real `learnharness start` children on the private Redis,
 * the fake Discord and the slow model. Several processes are Discord shards, either as
 * `learnharness start --shards N` (discord.js's ShardingManager: one child per shard, respawned
 * when it dies) when the CLI has it, or as N independent `start` processes each given
 * `SHARDS=<i>` and `SHARD_COUNT=<N>` (discord.js's Client reads both; the bench restarts a
 * killed one itself, as the manager would).
 */

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { bareEnv, type CliChild, REPO_ROOT, startCli } from "../../test/fixtures/child-process.ts";

/** How shards run: under the CLI's ShardingManager, or as independent processes. */
export type ShardMode = "manager" | "env";

/** The CLI has `start --shards` (the sharding branch merged) unless BENCH_SHARD_MODE says otherwise. */
export function shardMode(): ShardMode {
	const forced = process.env.BENCH_SHARD_MODE;
	if (forced === "manager" || forced === "env") return forced;
	const cli = `${REPO_ROOT}src/cli/program.ts`;
	return existsSync(cli) && readFileSync(cli, "utf8").includes("--shards") ? "manager" : "env";
}

/** Running bot processes. */
export interface Cluster {
	mode: ShardMode;
	/** The process serving each shard now (pids of the bot processes, by shard id). */
	shardPids(): Map<number, number>;
	/** Every bot process's output (the last `chars`). */
	output(chars?: number): string;
	/** kill -9 the process of `shard`; in env mode start it again at once (the manager respawns its own). */
	kill(shard: number): void;
	/** CPU seconds (user + system) all bot processes used so far, their Chromium included (Linux /proc). */
	cpuSeconds(): number;
	/**
	 * What the bots' node processes (not their Chromium) used so far: CPU seconds, and read- and write-family
	 * system calls (`syscr` + `syscw` of /proc/<pid>/io: reads, writes, sends, receives; not epoll or futex).
	 */
	nodeUsage(): { cpuS: number; syscalls: number };
	stop(): Promise<void>;
}

/** Children of `pid` (ps). */
function childrenOf(pid: number): number[] {
	try {
		return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
			.split("\n")
			.map((s) => Number(s.trim()))
			.filter((n) => n > 0);
	} catch {
		return [];
	}
}

/** The `SHARDS` environment variable of a process (Linux /proc), if readable. */
function shardOfPid(pid: number): number | undefined {
	try {
		const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
		const v = env.find((e) => e.startsWith("SHARDS="))?.slice(7);
		return v === undefined ? undefined : Number(JSON.parse(v));
	} catch {
		return undefined;
	}
}

const ticks = Number(process.env.BENCH_CLK_TCK ?? 100);
function cpuOf(pid: number): number {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		return (Number(fields[11]) + Number(fields[12])) / ticks;
	} catch {
		return 0;
	}
}

/** Read- and write-family system calls of `pid` so far (/proc/<pid>/io), 0 when unreadable. */
function syscallsOf(pid: number): number {
	try {
		const io = readFileSync(`/proc/${pid}/io`, "utf8");
		return Number(/syscr: (\d+)/.exec(io)?.[1] ?? 0) + Number(/syscw: (\d+)/.exec(io)?.[1] ?? 0);
	} catch {
		return 0;
	}
}

/** True for a browser process (the renderer's Chromium and its helpers), by its command line. */
function isBrowser(pid: number): boolean {
	try {
		return /chrom|headless_shell/i.test(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "");
	} catch {
		return false;
	}
}

/** Start `processes` bot processes with `env` added (the fakes, the store, the model). */
export function startCluster(
	processes: number,
	env: Record<string, string>,
	dir: string,
	mode: ShardMode,
	nodeArgs: string[] = [],
): Cluster {
	const base = { ...bareEnv(dir), ...env };
	const children: CliChild[] = [];
	const dead: CliChild[] = [];
	const spawnOne = (shard: number) =>
		startCli(["start"], {
			cwd: REPO_ROOT,
			env: processes > 1 ? { ...base, SHARDS: String(shard), SHARD_COUNT: String(processes) } : base,
			nodeArgs,
		});
	if (mode === "manager" && processes > 1)
		children.push(startCli(["start", "--shards", String(processes)], { cwd: REPO_ROOT, env: base, nodeArgs }));
	else for (let i = 0; i < processes; i++) children.push(spawnOne(i));
	/** Bot processes: the children, or under a manager its children (a tsx start may add a node in between). */
	const botPids = (): number[] => {
		if (!(mode === "manager" && processes > 1)) return children.map((c) => c.child.pid ?? 0).filter((p) => p > 0);
		const manager = children[0]?.child.pid ?? 0;
		const out: number[] = [];
		const walk = (pid: number, depth: number) => {
			for (const c of childrenOf(pid)) {
				if (shardOfPid(c) !== undefined) out.push(c);
				else if (depth < 3) walk(c, depth + 1);
			}
		};
		walk(manager, 0);
		return out;
	};
	/** Every process of the bots: the children and their descendants (shards, Chromium and its helpers), 4 levels. */
	const tree = (): number[] => {
		const pids = new Set(children.map((c) => c.child.pid ?? 0).filter((p) => p > 0));
		let level = [...pids];
		for (let depth = 0; depth < 4 && level.length > 0; depth++) {
			level = level.flatMap(childrenOf).filter((p) => !pids.has(p));
			for (const p of level) pids.add(p);
		}
		return [...pids];
	};
	return {
		mode,
		shardPids() {
			const map = new Map<number, number>();
			if (processes === 1 || mode === "env") {
				for (const [i, c] of children.entries()) if (c.child.pid) map.set(i, c.child.pid);
			} else for (const pid of botPids()) map.set(shardOfPid(pid) ?? -1, pid);
			return map;
		},
		output: (chars = 4000) =>
			[...dead, ...children]
				.map((c) => c.output())
				.join("\n---\n")
				.slice(-chars),
		kill(shard) {
			if (mode === "env" || processes === 1) {
				const victim = children[shard];
				if (!victim) return;
				victim.kill();
				dead.push(victim);
				children[shard] = spawnOne(shard);
				return;
			}
			const pid = this.shardPids().get(shard);
			if (pid) process.kill(pid, "SIGKILL");
		},
		cpuSeconds() {
			let sum = 0;
			for (const pid of tree()) sum += cpuOf(pid);
			return sum;
		},
		nodeUsage() {
			let cpuS = 0;
			let syscalls = 0;
			for (const pid of tree())
				if (!isBrowser(pid)) {
					cpuS += cpuOf(pid);
					syscalls += syscallsOf(pid);
				}
			return { cpuS, syscalls };
		},
		async stop() {
			// A manager stops its shards on SIGTERM; any still running after the grace are killed by pid.
			const bots = botPids();
			// Profiling: a second SIGTERM exits at once, so each process writes its profile.
			if (nodeArgs.includes("--cpu-prof"))
				for (const c of children) {
					c.child.kill("SIGTERM");
					setTimeout(() => c.child.kill("SIGTERM"), 500).unref();
				}
			await Promise.all(children.map((c) => c.stop("SIGTERM", 10_000)));
			for (const c of dead) c.kill();
			for (const pid of bots)
				try {
					process.kill(pid, "SIGKILL");
				} catch {
					// already gone
				}
		},
	};
}
