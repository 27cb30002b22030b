/**
 * Forget-me while the learner's lesson runs, on each store (SQLite file, a private redis-server,
 * a private PostgreSQL database): the model call of the first turn is held open while the learner
 * asks to be forgotten; the turn then finishes and its usage is charged, and the learner types in
 * the thread again. Afterwards no key, row or byte of the store holds the learner's id or name:
 * Redis is scanned whole (every key and value), PostgreSQL's tables are dumped whole, and the
 * SQLite files (.sqlite, -wal, -shm) are searched byte by byte while the store is still open.
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@redis/client";
import { MockLanguageModelV3 } from "ai/test";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createLessonController } from "../../../src/adapters/lesson/controller.ts";
import { createBudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import type { PlatformPort } from "../../../src/adapters/lesson/port.ts";
import { createLearning, openStateStore } from "../../../src/agent/index.ts";
import { createSessionStore } from "../../../src/agent/store/session-store.ts";
import { createTutor } from "../../../src/agent/tutor.ts";
import type { TurnUsage } from "../../../src/core/contracts/budget.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { replyStream } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { tempDir } from "../../agent/helpers.ts";
import {
	type PrivateStore,
	privatePostgres,
	privateRedis,
	redisServerInstalled,
} from "../../fixtures/private-stores.ts";
import { listening } from "../../fixtures/redis-server.ts";
import { recordingActor, recordingPort } from "./recording-port.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());
const postgresUp = await listening(5432);

const ada = { id: "u-ada-1815", name: "Ada Lovelace" };
const place = { community: "G1", channelId: "C1" };
/** What must be nowhere afterwards (the id, the name, the surname alone; any case). */
const trace = /u-ada-1815|lovelace/i;

/** Every key and value of a private redis-server, as text. */
async function redisDump(url: string): Promise<string[]> {
	const client = createClient({ url });
	await client.connect();
	try {
		const out: string[] = [];
		for await (const batch of client.scanIterator({ MATCH: "*", COUNT: 500 }))
			for (const key of batch) {
				const type = await client.type(key);
				const value =
					type === "string"
						? await client.get(key)
						: type === "hash"
							? await client.hGetAll(key)
							: type === "list"
								? await client.lRange(key, 0, -1)
								: type === "set"
									? await client.sMembers(key)
									: type === "zset"
										? await client.zRange(key, 0, -1)
										: `(${type})`;
				out.push(`${key} ${JSON.stringify(value)}`);
			}
		return out;
	} finally {
		await client.quit();
	}
}

/** Every row of every table of a private PostgreSQL database, as text. */
async function pgDump(url: string): Promise<string[]> {
	const client = new pg.Client({ connectionString: url });
	await client.connect();
	try {
		const out: string[] = [];
		const { rows: tables } = await client.query<{ tablename: string }>(
			"SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
		);
		for (const { tablename } of tables) {
			const { rows } = await client.query(`SELECT * FROM "${tablename}"`);
			for (const row of rows) out.push(`${tablename} ${JSON.stringify(row)}`);
		}
		return out;
	} finally {
		await client.end();
	}
}

/** The SQLite files' raw bytes, as latin1 text (a UTF-8 needle of ASCII reads the same), per file. */
function sqliteFiles(path: string): Array<[string, string]> {
	return ["", "-wal", "-shm"]
		.map((suffix) => `${path}${suffix}`)
		.filter((file) => existsSync(file))
		.map((file) => [file, readFileSync(file).toString("latin1")]);
}

/** A model whose first request waits for `release()`; each reply names the learner. */
function heldModel() {
	let release!: () => void;
	const gate = new Promise<void>((done) => {
		release = done;
	});
	let asked!: () => void;
	const firstAsked = new Promise<void>((done) => {
		asked = done;
	});
	let calls = 0;
	const model = new MockLanguageModelV3({
		doStream: async () => {
			calls++;
			asked();
			if (calls === 1) await gate;
			return { stream: replyStream({ text: "Welcome, Ada Lovelace! What do you know about fractions?" }) };
		},
	});
	return { model, release, firstAsked };
}

/** A recording port whose thread ids carry the community, as Discord's and Slack's do (`rec:<community>:<n>`). */
function communityPort(): PlatformPort<string> {
	const base = recordingPort();
	let threads = 0;
	return {
		...base,
		decodeThreadId: (threadId) => (threadId.startsWith("rec:") ? threadId.slice(4) : undefined),
		async openThread(where) {
			return { ok: true, threadId: `rec:${where.community}:t${++threads}` };
		},
	};
}

type Backend = [name: string, available: boolean, open: () => Promise<PrivateStore & { dump(): Promise<string[]> }>];

const backends: Backend[] = [
	[
		"SQLite",
		true,
		async () => {
			const file = join(dir.path, "forget.sqlite");
			return {
				url: `sqlite://${file}`,
				drop: async () => undefined,
				dump: async () => sqliteFiles(file).map(([name, bytes]) => `${name}: ${bytes}`),
			};
		},
	],
	[
		"Redis (a private redis-server)",
		redisServerInstalled,
		async () => {
			const store = await privateRedis();
			return { ...store, dump: () => redisDump(store.url) };
		},
	],
	[
		"PostgreSQL (a private database)",
		postgresUp,
		async () => {
			const store = await privatePostgres("forget");
			return { ...store, dump: () => pgDump(store.url) };
		},
	],
];

describe.each(backends)("forget-me during a running lesson on %s", (_, available, openStore) => {
	it.skipIf(!available)(
		"leaves no id or name anywhere: not the running turn's save or charge, not a message typed afterwards",
		async () => {
			const store = await openStore();
			const { model, release, firstAsked } = heldModel();
			const sessions = await createSessionStore(store.url);
			const profiles = openStateStore(store.url, "learnharness:profiles");
			const learning = createLearning({ state: profiles, sessions });
			const budgets = createBudgetRouter();
			const charged: TurnUsage[] = [];
			const tutor = createTutor({
				model,
				store: sessions,
				maxRetries: 0,
				turnGate: false,
				// The held turn outlives forget-me's wait: the deletion goes ahead while it runs.
				forgetWaitMs: 100,
				budget: {
					reserve: (estimate) => budgets.budget.reserve(estimate),
					async spent(usage, reservation) {
						await budgets.budget.spent(usage, reservation);
						charged.push(usage);
					},
				},
			});
			const controller = createLessonController({
				tutor,
				renderer: stubRenderer(undefined),
				port: communityPort(),
				logger: silentLogger,
				storeUrl: store.url,
				budgets,
				learning,
			});
			controller.attach();
			try {
				const started = await controller.start(recordingActor(ada), place, { topic: "fractions" });
				if (!started.ok) throw new Error(started.message);
				await firstAsked; // the first turn's model call is open now

				const actor = recordingActor(ada);
				const said = await controller.profile?.forget(actor, place.community);
				expect(said).toMatch(/deleted/i);

				// The held turn finishes and its step is charged (to the learner, as the turn was theirs).
				release();
				for (let i = 0; i < 400 && charged.length === 0; i++) await new Promise((done) => setTimeout(done, 10));
				expect(charged.map((u) => u.by.id)).toContain(ada.id);
				await tutor.idle();
				// The learner types in the thread again: the lesson is gone.
				const typed = await controller.typed(started.threadId, ada, "Ada Lovelace here, are you there?");
				expect(typed.ok).toBe(false);
				await tutor.idle();
				await controller.flush(2_000);
				// Usage totals stay (in the anonymous bucket): the community's spend is still counted.
				expect(Object.keys((await controller.usage(recordingActor({ id: "admin" }, true), "G1"))?.month ?? {})).toEqual(
					["anonymous"],
				);

				const dump = await store.dump();
				expect(dump.length).toBeGreaterThan(0);
				expect(dump.filter((line) => trace.test(line)).map((line) => line.slice(0, 200))).toEqual([]);
			} finally {
				release();
				await controller.stop({ waitMs: 2_000 });
				await tutor.close();
				await profiles.close();
				await store.drop();
			}
		},
	);
});
