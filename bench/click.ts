/**
 * One click, counted (`npm run bench:click`): a Discord check-quiz click on the fakes, from the
 * click to the next card posted and the tutor idle, on the embedded SQLite store and on Redis,
 * with cost caps off and with caps on and 20 members charged today. design.md's target: "a click
 * makes <= 4 store calls on the embedded store and <= 12 Redis round trips, whatever the
 * community's size or settings".
 *
 * What is counted, per click (the median of BENCH_CLICKS clicks after a first one that warms caches):
 * - `store_calls`: calls into the session store and the state stores (every method, saves included)
 *   on SQLite, but for the keys the embedded store keeps in this process's memory (keys.ts
 *   `embedded: "process"`: a delivery's `seen:` key reaches no store); on Redis, the client's writes
 *   to the server seen by a TCP proxy in between (one write per round trip: a pipeline or a script is one);
 * - `saves`: session saves (the session store's `set`);
 * - `rest_calls`: the bot's REST calls to the fake Discord;
 * - `ack_ms_p50`: from the fake's dispatch of the click to the bot's first callback.
 *
 * Loopback only; bounded (each click waits at most 20 s). The last line is one JSON object.
 */

import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@redis/client";
import { createDiscordAdapter } from "../src/adapters/discord/index.ts";
import { createBudgetRouter } from "../src/adapters/lesson/lesson-budget.ts";
import { UsageLedger } from "../src/adapters/lesson/usage-ledger.ts";
import { openStateStore } from "../src/agent/index.ts";
import { createSessionStore } from "../src/agent/store/session-store.ts";
import { keptInProcess } from "../src/agent/store/state-store.ts";
import { createTutor } from "../src/agent/tutor.ts";
import { silentLogger } from "../src/core/contracts/logger.ts";
import { counted } from "../testkit/counted.ts";
import { type FakeDiscord, type FakeMessage, messageControls, startFakeDiscord } from "../testkit/fakes/discord.ts";
import { type ScriptedReply, scriptedModel } from "../testkit/model-stream.ts";
import { stubRenderer } from "../testkit/stub-renderer.ts";

const CLICKS = Number(process.env.BENCH_CLICKS ?? 5);
const REDIS = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const WAIT_MS = 20_000;

/** A TCP proxy to Redis that counts the client's writes (round trips). */
async function redisProxy(target: URL): Promise<{ url: string; writes: () => number; close: () => Promise<void> }> {
	let writes = 0;
	const sockets = new Set<Socket>();
	const server: Server = createServer((client) => {
		const upstream = connect(Number(target.port || 6379), target.hostname);
		for (const s of [client, upstream]) {
			sockets.add(s);
			s.on("error", () => undefined);
			s.on("close", () => sockets.delete(s));
		}
		client.on("data", (chunk) => {
			writes++;
			upstream.write(chunk);
		});
		upstream.on("data", (chunk) => client.write(chunk));
		client.on("close", () => upstream.destroy());
		upstream.on("close", () => client.destroy());
	});
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	const port = (server.address() as { port: number }).port;
	return {
		url: `redis://127.0.0.1:${port}${target.pathname}`,
		writes: () => writes,
		close: async () => {
			for (const s of sockets) s.destroy();
			await new Promise<void>((done) => server.close(() => done()));
		},
	};
}

const quiz = (id: string) => ({
	name: "quiz",
	id,
	input: { type: "check", question: `Question ${id}?`, options: ["yes", "no"], correctAnswer: "yes" },
});

/** One custom id per component of a message. */
const customIds = (m: FakeMessage | undefined): string[] =>
	(m ? messageControls(m) : []).map((c) => String(c.custom_id ?? ""));

const median = (xs: number[]): number => {
	const s = [...xs].sort((a, b) => a - b);
	return s.length === 0 ? Number.NaN : (s[Math.floor((s.length - 1) / 2)] ?? Number.NaN);
};

interface ClickCounts {
	store: number;
	saves: number;
	rest: number;
	ackMs: number;
	byMethod: Record<string, number>;
}

/** Runs one configuration: a lesson whose check quizzes are clicked CLICKS + 1 times. */
async function run(backend: "sqlite" | "redis", caps: boolean): Promise<ClickCounts> {
	console.error(`running ${backend}, caps ${caps ? "on" : "off"}`);
	const fake: FakeDiscord = await startFakeDiscord();
	const dir = mkdtempSync(join(tmpdir(), "lh-bench-click-"));
	const prefix = `bench-click-${randomUUID().slice(0, 8)}`;
	const proxy = backend === "redis" ? await redisProxy(new URL(REDIS)) : undefined;
	const urlOf = (file: string) => (proxy ? proxy.url : `sqlite://${join(dir, file)}`);
	const script: ScriptedReply[] = Array.from({ length: CLICKS + 3 }, (_, i) => ({
		text: i === 0 ? "Hi!" : "Right.",
		calls: [quiz(`q${i}`)],
	}));
	const model = scriptedModel(script);
	const sessions = counted(
		await createSessionStore(urlOf("lh.sqlite"), silentLogger, { namespace: `${prefix}:sessions` }),
	);
	const budgets = createBudgetRouter();
	const tutor = createTutor({ model, store: sessions.proxy, maxRetries: 0, budget: budgets.budget });
	const states = counted(
		openStateStore(urlOf("discord.sqlite"), `${prefix}:discord`),
		(_method, [key]) => !proxy && typeof key === "string" && keptInProcess(key),
	);
	const state = states.proxy;
	const adapter = createDiscordAdapter({
		tutor,
		renderer: stubRenderer(Buffer.from("")),
		logger: silentLogger,
		state,
		budgets,
		config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 },
	});
	const samples: ClickCounts[] = [];
	try {
		tutor.subscribe(() => undefined);
		await tutor.resume();
		await adapter.start();
		if (caps) {
			fake.slash({
				user: fake.users.admin,
				channelId: fake.ids.general,
				subcommand: "config",
				options: { member_tokens_per_day: 1_000_000, server_tokens_per_day: 10_000_000 },
			});
			// Redis: the state store's client connects on first use, and fails a command sent before (no offline queue).
			for (let i = 0; i < 100; i++) {
				if (
					await state.get("bench-probe").then(
						() => true,
						() => false,
					)
				)
					break;
				await new Promise((done) => setTimeout(done, 100));
			}
			const ledger = new UsageLedger(state);
			for (let i = 0; i < 20; i++)
				await ledger.charge(fake.guild.id, {
					sessionId: `discord:${fake.guild.id}:other-${i}`,
					by: { id: `member-${i}`, name: `Member ${i}` },
					agent: "teacher",
					model: "mock-model-id",
					inputTokens: 100,
					outputTokens: 10,
					cachedInputTokens: 0,
				});
			await fake.waitFor(() => fake.calls.some((c) => /callback/.test(c.path)) || undefined, "config saved", WAIT_MS);
		}
		fake.slash({ user: fake.users.learner, channelId: fake.ids.general, subcommand: "start", options: { topic: "t" } });
		const threadId = (await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread", WAIT_MS)).id;
		const sessionId = `discord:${fake.guild.id}:${threadId}`;
		for (let i = 0; i <= CLICKS; i++) {
			const control = `lh:pick:q${i}:0`;
			const card = await fake.waitFor(
				() => fake.channelMessages(threadId).find((m) => customIds(m).includes(control)),
				control,
				WAIT_MS,
			);
			await tutor.idle(sessionId);
			await adapter.flush(WAIT_MS);
			const before = { session: sessions.calls.length, state: states.calls.length, rest: fake.calls.length };
			const writes = proxy?.writes() ?? 0;
			const click = fake.click({ user: fake.users.learner, messageId: card.id, customId: control });
			const next = `lh:pick:q${i + 1}:0`;
			await fake.waitFor(
				() => fake.channelMessages(threadId).find((m) => customIds(m).includes(next)),
				`the card after ${control}`,
				WAIT_MS,
			);
			await tutor.idle(sessionId);
			await adapter.flush(WAIT_MS);
			const made = [
				...sessions.calls.slice(before.session).map((m) => `session.${m}`),
				...states.calls.slice(before.state).map((m) => `state.${m}`),
			];
			const byMethod: Record<string, number> = {};
			for (const m of made) byMethod[m] = (byMethod[m] ?? 0) + 1;
			const sample: ClickCounts = {
				store: proxy ? proxy.writes() - writes : made.length,
				saves: byMethod["session.set"] ?? 0,
				rest: fake.calls.length - before.rest,
				ackMs: (click.ackedAt ?? Number.NaN) - click.createdAt,
				byMethod,
			};
			if (i > 0) samples.push(sample); // the first click warms caches (rules, slots)
		}
	} finally {
		await adapter.stop().catch(() => undefined);
		await tutor.close().catch(() => undefined);
		await state.close().catch(() => undefined);
		await proxy?.close();
		await fake.close();
		rmSync(dir, { recursive: true, force: true });
		if (backend === "redis") await dropKeys(prefix);
	}
	const mid = samples[Math.floor((samples.length - 1) / 2)];
	return {
		store: median(samples.map((s) => s.store)),
		saves: median(samples.map((s) => s.saves)),
		rest: median(samples.map((s) => s.rest)),
		ackMs: median(samples.map((s) => s.ackMs)),
		byMethod: mid?.byMethod ?? {},
	};
}

/** Deletes what one run wrote to Redis. */
async function dropKeys(prefix: string): Promise<void> {
	const client = createClient({ url: REDIS });
	await client.connect();
	try {
		const keys: string[] = [];
		for await (const batch of client.scanIterator({ MATCH: `*${prefix}*`, COUNT: 500 })) keys.push(...batch);
		if (keys.length > 0) await client.del(keys);
	} finally {
		await client.quit();
	}
}

/** A rejection nobody handled is logged, not fatal (as in the app). */
process.on("unhandledRejection", (error) => {
	console.error("unhandled rejection:", error instanceof Error ? error.message : error);
});

const results = {
	sqlite: await run("sqlite", false),
	redis: await run("redis", false),
	sqlite_caps20: await run("sqlite", true),
	redis_caps20: await run("redis", true),
};
console.log(
	"configuration    store calls  saves  REST calls  ack p50 ms  store calls by method (SQLite) / client writes (Redis)",
);
for (const [name, r] of Object.entries(results))
	console.log(
		`${name.padEnd(16)} ${String(r.store).padStart(11)}  ${String(r.saves).padStart(5)}  ${String(r.rest).padStart(10)}  ${r.ackMs.toFixed(1).padStart(10)}  ${JSON.stringify(r.byMethod)}`,
	);
console.log(
	`targets: SQLite <= 4 store calls, Redis <= 12 round trips, caps on = caps off (ratio sqlite ${(results.sqlite_caps20.store / results.sqlite.store).toFixed(2)}, redis ${(results.redis_caps20.store / results.redis.store).toFixed(2)})`,
);
console.log(
	JSON.stringify({
		bench: "click",
		store_calls: {
			sqlite: results.sqlite.store,
			redis: results.redis.store,
			sqlite_caps20: results.sqlite_caps20.store,
			redis_caps20: results.redis_caps20.store,
		},
		saves: { sqlite: results.sqlite.saves, redis: results.redis.saves },
		rest_calls: results.sqlite.rest,
		ack_ms_p50: results.sqlite.ackMs,
	}),
);
