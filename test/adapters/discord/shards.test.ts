/**
 * `learnharness start --shards 2` as a real process tree: a shard manager (discord.js's
 * ShardingManager) and two shard processes on one private redis-server, against the fake
 * Discord recommending two shards, with a guild on each shard. Lessons in both guilds run
 * to their recap at once; each guild's events reach only its shard's process; /readyz of
 * the manager covers both shards; SIGTERM stops the whole tree.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardOfGuild } from "../../../testkit/fakes/discord/gateway.ts";
import { type FakeDiscord, startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { bareEnv, type CliChild, REPO_ROOT, startCli } from "../../fixtures/child-process.ts";
import { type DrivenLesson, driveLesson } from "../../fixtures/discord/drive-lesson.ts";
import { LESSON_OVER } from "../../fixtures/drive-controls.ts";
import { freePort, redisServerInstalled, type TestRedis, testRedis } from "../../fixtures/redis-server.ts";
import { allOf, componentIdsOnTwoMessages, logLines, untilOutput } from "./shards-helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "lh-shards-"));
let redis: TestRedis;
let fake: FakeDiscord;
let cli: CliChild | undefined;
let healthPort = 0;
/** The general channel of a guild on each shard: [shard 0's, shard 1's]. */
const channelOnShard: string[] = [];

beforeAll(async () => {
	if (!redisServerInstalled) return;
	redis = testRedis(await freePort(), dir);
	await redis.start();
	fake = await startFakeDiscord({ shards: 2, maxConcurrency: 2 });
	const first = shardOfGuild(fake.guild.id, 2);
	const second = fake.addGuild({ name: "Second Server", shard: [1 - first, 2] });
	channelOnShard[first] = fake.ids.general;
	channelOnShard[1 - first] = second.general;
	healthPort = await freePort();
	cli = startCli(["start", "--shards", "2"], {
		cwd: REPO_ROOT,
		env: {
			...bareEnv(dir),
			DISCORD_TOKEN: fake.token,
			DISCORD_API_URL: fake.apiUrl,
			LEARNHARNESS_STORE_URL: redis.url,
			LEARNHARNESS_MODEL: "demo",
			LEARNHARNESS_HEALTH_PORT: String(healthPort),
		},
	});
	await untilOutput(cli, /learnharness is running in shard processes/, 50_000);
}, 60_000);

afterAll(async () => {
	cli?.kill();
	await fake?.close();
	if (redisServerInstalled) await redis.stop();
	rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!redisServerInstalled)("learnharness start --shards 2 against the fake Discord (redis-server)", () => {
	it("identifies one connection per shard and registers /lesson once", () => {
		expect([...fake.identifiedShards].sort()).toEqual([
			[0, 2],
			[1, 2],
		]);
		const registrations = fake.calls.filter((c) => c.method === "PUT" && /\/commands$/.test(c.path));
		expect(registrations.map((c) => c.path)).toEqual([`/applications/${fake.applicationId}/commands`]);
		const lines = logLines(cli?.output() ?? "");
		for (const shard of ["0", "1"])
			expect(
				lines.some((l) => l.shard === shard && l.msg === "discord: connected" && l.guilds === 1),
				`shard ${shard} connected with its one guild`,
			).toBe(true);
	});

	it("runs lessons in guilds on both shards to their recap at once, each quiz posted once", {
		timeout: 90_000,
	}, async () => {
		const output = () => cli?.output().slice(-4000) ?? "";
		const runs = [
			{ user: fake.users.learner, channelId: channelOnShard[0]!, topic: "binary search" },
			{ user: fake.users.other, channelId: channelOnShard[0]!, topic: "hash maps" },
			{ user: fake.users.learner, channelId: channelOnShard[1]!, topic: "recursion" },
			{ user: fake.users.other, channelId: channelOnShard[1]!, topic: "big-O notation" },
		];
		// driveLesson takes the first new thread as its own: each lesson starts once the one before has its thread.
		const driving: Array<Promise<DrivenLesson>> = [];
		for (const run of runs) {
			const threads = fake.createdThreads().length;
			driving.push(driveLesson(fake, { ...run, timeoutMs: 75_000 }));
			await fake.waitFor(() => fake.createdThreads().length > threads, "the lesson's thread", 15_000);
		}
		const lessons = await allOf(
			driving,
			(error) => new Error(`${String(error)}\n--- learnharness output ---\n${output()}`),
		);
		for (const [i, lesson] of lessons.entries()) {
			const messages = fake.channelMessages(lesson.threadId);
			expect(lesson.ended, `lesson ${i} ended\n${output()}`).toBe(true);
			expect(messages.filter((m) => LESSON_OVER.test(m.text)).length, `lesson ${i}: one recap`).toBe(1);
			expect(lesson.actions.some((id) => id.startsWith("lh:pick:"))).toBe(true);
			expect(componentIdsOnTwoMessages(messages), `lesson ${i}: no quiz posted twice`).toEqual([]);
		}
		const guildsServed = new Set(lessons.map((l) => fake.channels.get(l.threadId)?.guildId));
		expect(guildsServed.size).toBe(2);
		expect(fake.problems()).toEqual([]);
		expect(fake.calls.filter((c) => c.status >= 400).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
	});

	it("answers /readyz for both shards from the manager", async () => {
		const response = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
		const body = (await response.json()) as { status: string; checks: Record<string, string> };
		expect(body).toEqual({ status: "ready", checks: { "shard 0": "ready", "shard 1": "ready" } });
		expect(response.status).toBe(200);
	});

	it("stops the manager and both shard processes on SIGTERM", { timeout: 40_000 }, async () => {
		const pids = logLines(cli?.output() ?? "")
			.filter((l) => l.msg === "shard started" && typeof l.pid === "number")
			.map((l) => l.pid as number);
		expect(pids.length).toBe(2);
		const code = await cli?.stop("SIGTERM", 30_000);
		expect(code).toBe(0);
		for (const pid of pids) expect(() => process.kill(pid, 0), `shard process ${pid} is gone`).toThrow();
	});
});
