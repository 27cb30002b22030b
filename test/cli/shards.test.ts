/**
 * `start --shards` and DISCORD_SHARDS refuse what cannot work, in a sentence and before any
 * shard process starts: a store only one process may hold (SQLite), no Discord token, a count
 * that is not `auto` or a whole number. The running tree is tested in test/adapters/discord/shards*.test.ts.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { shardChildConfig, shardIdsOfThisProcess, storeIsShared } from "../../src/cli/shards.ts";
import { parseConfig } from "../../src/config.ts";
import { CLI_TEST_TIMEOUT_MS, runCli } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "lh-shards-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("start --shards refusals", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
	it("refuses a SQLite store, saying shard processes need a shared one (exit 2, nothing spawned)", async () => {
		const run = await runCli(["start", "--shards", "2"], {
			cwd: dir,
			env: { DISCORD_TOKEN: "abc.def.ghi", DISCORD_API_URL: "http://127.0.0.1:9/api", LEARNHARNESS_MODEL: "demo" },
		});
		expect(run.code, run.stderr).toBe(2);
		expect(run.stderr).toMatch(
			/^learnharness could not start: sharding runs one process per shard, and they must share one store, but LEARNHARNESS_STORE_URL is sqlite:/m,
		);
		expect(run.stderr).toContain("Set LEARNHARNESS_STORE_URL to redis://… or postgres://…");
		expect(run.stderr).not.toMatch(/shard started/);
	});

	it("refuses --shards without a Discord token (exit 2)", async () => {
		const run = await runCli(["start", "--shards", "auto"], {
			cwd: dir,
			env: { LEARNHARNESS_STORE_URL: "redis://127.0.0.1:9", LEARNHARNESS_MODEL: "demo" },
		});
		expect(run.code, run.stderr).toBe(2);
		expect(run.stderr).toMatch(
			/could not start: --shards \(DISCORD_SHARDS\) runs Discord in shard processes, but DISCORD_TOKEN is not set/,
		);
	});

	it("rejects a count that is not auto or a whole number from 1", async () => {
		const run = await runCli(["start", "--shards", "0"], { cwd: dir, env: {} });
		expect(run.code).toBe(1);
		expect(run.stderr).toMatch(/--shards <count>' argument '0' is invalid\. use auto or a whole number from 1 to 4096/);
	});
});

describe("DISCORD_SHARDS and the shard helpers", () => {
	it("reads auto or a count into the Discord settings, and names a bad value with its fix", () => {
		const base = { DISCORD_TOKEN: "abc.def.ghi", LEARNHARNESS_MODEL: "demo" };
		const auto = parseConfig({ ...base, DISCORD_SHARDS: "auto" });
		const four = parseConfig({ ...base, DISCORD_SHARDS: "4" });
		expect(auto.ok && auto.config.discord?.shards).toBe("auto");
		expect(four.ok && four.config.discord?.shards).toBe(4);
		const bad = parseConfig({ ...base, DISCORD_SHARDS: "many" });
		expect(bad.ok).toBe(false);
		if (!bad.ok) expect(bad.problems.map((p) => p.variable)).toEqual(["DISCORD_SHARDS"]);
		const unset = parseConfig(base);
		expect(unset.ok && unset.config.discord?.shards).toBeUndefined();
	});

	it("knows which stores several processes can share, and the shard ids discord.js hands a child", () => {
		expect(storeIsShared("redis://127.0.0.1:6379")).toBe(true);
		expect(storeIsShared("postgres://u@h/db")).toBe(true);
		expect(storeIsShared("sqlite://./data/learnharness.sqlite")).toBe(false);
		expect(storeIsShared("memory://")).toBe(false);
		expect(shardIdsOfThisProcess({ SHARDS: "1" })).toEqual([1]);
		expect(shardIdsOfThisProcess({ SHARDS: "[0,2]" })).toEqual([0, 2]);
		expect(shardIdsOfThisProcess({})).toEqual([]);
	});

	it("gives Slack to shard 0's process only, and the health port to none of them", () => {
		const parsed = parseConfig({
			DISCORD_TOKEN: "abc.def.ghi",
			SLACK_BOT_TOKEN: "xoxb-1",
			SLACK_SIGNING_SECRET: "s",
			LEARNHARNESS_HEALTH_PORT: "8080",
			LEARNHARNESS_MODEL: "demo",
		});
		if (!parsed.ok) throw new Error("config");
		const zero = shardChildConfig(parsed.config, [0]);
		const one = shardChildConfig(parsed.config, [1]);
		expect(zero.slack?.botToken).toBe("xoxb-1");
		expect(one.slack).toBeUndefined();
		expect([zero.healthPort, one.healthPort]).toEqual([undefined, undefined]);
		expect(one.discord?.token).toBe("abc.def.ghi");
	});
});
