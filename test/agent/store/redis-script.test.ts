/** Scripts by SHA on a private redis-server: run by EVALSHA, loaded again after the server forgot them. */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient } from "../../../src/agent/store/keyv.ts";
import { runScript, type ScriptClient, scriptSha } from "../../../src/agent/store/redis-script.ts";
import { freePort, redisServerInstalled, type TestRedis, testRedis } from "../../fixtures/redis-server.ts";

const SCRIPT = "redis.call('INCRBY', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])";

describe.skipIf(!redisServerInstalled)("redis scripts by SHA", () => {
	let redis: TestRedis;
	let dir: string;
	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), "lh-redis-script-"));
		redis = testRedis(await freePort(), dir);
		await redis.start();
	});
	afterAll(async () => {
		await redis?.stop();
		rmSync(dir, { recursive: true, force: true });
	});

	it("runs a script by its SHA once the server has it, and loads it again after a flush", async () => {
		const client = createRedisClient(redis.url, () => {});
		await client.connect();
		try {
			const run = () => runScript(client as unknown as ScriptClient, SCRIPT, { keys: ["n"], arguments: ["2"] });
			expect(await run()).toBe("2"); // NOSCRIPT, then EVAL (which caches it)
			expect(await client.scriptExists(scriptSha(SCRIPT))).toEqual([1]);
			expect(await run()).toBe("4");
			await client.scriptFlush();
			expect(await run()).toBe("6");
			await expect(
				runScript(client as unknown as ScriptClient, "return redis.call('NOPE')", { keys: [], arguments: [] }),
			).rejects.toThrow();
		} finally {
			client.destroy();
		}
	});
});
