/**
 * One place that turns a store URL into a Keyv instance, so the session store
 * and the adapters' small state pick the same backend from one setting
 * (`LEARNHARNESS_STORE_URL`).
 */

import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type KeyvRedis from "@keyv/redis";
import KeyvSqlite from "@keyv/sqlite";
import Keyv from "keyv";
import type { Logger } from "../../core/contracts/logger.ts";
import { keyvRedisClass, redisClientModule } from "./drivers.ts";
import { listenedPostgres } from "./keyv-postgres.ts";
import { StoreUrlError, sqlitePathOf } from "./store-url.ts";

/** How long a Redis connection attempt may take before the operation fails (a start fails fast, not after minutes). */
export const REDIS_CONNECT_TIMEOUT_MS = 3_000;

/** The last error a store's connection reported (a refused socket, a wrong password), with when. */
const connectionErrors = new WeakMap<Keyv, { error: unknown; at: number }>();
/** The last error a store operation reported. */
const operationErrors = new WeakMap<Keyv, unknown>();
/** The SQLite connection of a Keyv opened by openKeyv on a `sqlite://` URL. */
const sqliteOf = new WeakMap<Keyv, KeyvSqlite>();

/**
 * The most telling recent error of a Keyv opened by openKeyv: its connection's own error
 * (ECONNREFUSED, WRONGPASS) when one came in the last half minute, else the last operation
 * error (which for Redis is often only "not connected").
 */
export function lastDriverError(keyv: Keyv): unknown {
	const connection = connectionErrors.get(keyv);
	if (connection && Date.now() - connection.at < 30_000) return connection.error;
	return operationErrors.get(keyv);
}

/**
 * Create a folder and its missing parents one level at a time. Not `recursive: true`:
 * Node's recursive mkdir never returns under /proc (it retries ENOENT forever, blocking
 * the event loop), while a plain mkdir fails there. Throws a plain Error naming the
 * folder and why (a file in the way, no permission).
 */
export function makeFolder(dir: string): void {
	const missing: string[] = [];
	for (let d = resolve(dir); missing.length <= 64; d = dirname(d)) {
		const kind = kindOf(d);
		if (kind === "folder") break;
		if (kind === "other") throw new Error(`${d} is not a folder`);
		missing.unshift(d);
		if (dirname(d) === d) break;
	}
	for (const d of missing) {
		try {
			mkdirSync(d);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code !== "EEXIST") throw new Error(`cannot create the folder ${d} (${code ?? String(error)})`);
		}
	}
}

function kindOf(path: string): "folder" | "other" | "missing" {
	try {
		return statSync(path).isDirectory() ? "folder" : "other";
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
		throw error;
	}
}

// The store URL's text (default, redaction, SQLite path) lives in store-url.ts, which loads no driver: the
// configuration reads it at start-up.
export { DEFAULT_STORE_URL, redactUrl, StoreUrlError, sqlitePathOf } from "./store-url.ts";

/**
 * A Keyv on the backend the URL names, one instance per namespace (keyv keeps
 * the namespace per instance; sharing one across namespaces mixes keys).
 * `sqlite://` (default; the folder is created), `redis://`/`rediss://`,
 * `postgres://`/`postgresql://`, and `memory://` (a Map; tests, benchmarks).
 * Every operation throws on a store error (keyv's default is to return
 * `undefined`/`false` and carry on, which would post what was never saved).
 */
export function openKeyv(url: string, namespace: string, logger?: Logger): Keyv {
	let keyv: Keyv;
	if (url.startsWith("sqlite://")) {
		const path = sqlitePathOf(url);
		if (path !== ":memory:") makeFolder(dirname(resolve(path)));
		// busyTimeout: several instances (one per namespace) share the file.
		const sqlite = new KeyvSqlite({ uri: `sqlite://${path}`, busyTimeout: 10_000 });
		// WAL + synchronous=NORMAL: a write no longer waits for an fsync (a turn saves twice), and an
		// app crash still loses nothing committed (only an OS crash may lose the last writes).
		// A failing pragma means a file that is not a database (the start-up check says so in words) or a
		// store closed meanwhile: details at debug, never a warning of their own.
		const pragma = (sql: string) =>
			sqlite.query(sql).catch((error: unknown) => logger?.debug({ err: error, sql }, "sqlite pragma failed"));
		// secure_delete: a deleted row's bytes are overwritten with zeros (forget-me must leave no copy in a free page).
		void pragma("PRAGMA journal_mode=WAL")
			.then(() => pragma("PRAGMA synchronous=NORMAL"))
			.then(() => pragma("PRAGMA secure_delete=ON"));
		keyv = new Keyv({ store: sqlite, namespace });
		sqliteOf.set(keyv, sqlite);
	} else if (url.startsWith("redis://") || url.startsWith("rediss://")) {
		keyv = new Keyv({
			store: redisStore(url, (error) => connectionErrors.set(keyv, { error, at: Date.now() })),
			namespace,
		});
	} else if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
		keyv = new Keyv({ store: listenedPostgres(url), namespace });
	} else if (url === "memory://" || url.startsWith("memory://")) {
		keyv = new Keyv({ namespace });
	} else {
		throw new StoreUrlError(
			`Unknown store URL ${JSON.stringify(url)}: use sqlite://./data/learnharness.sqlite, redis://host:6379 or postgres://user@host/db`,
		);
	}
	keyv.throwOnErrors = true;
	// Plain JSON: keyv's default serializer walks every value in JavaScript (about 10x slower than
	// JSON.stringify on a transcript), and what we store is plain JSON anyway (no Buffers).
	keyv.serialize = (data) => JSON.stringify(data);
	keyv.deserialize = (data) => JSON.parse(data);
	// Keyv emits connection errors as events; an unhandled 'error' event would crash the process.
	// Operations throw as well (throwOnErrors), so the log line is at debug: the caller reports what it means.
	keyv.on("error", (error: unknown) => {
		operationErrors.set(keyv, error);
		logger?.debug({ err: error, namespace }, "store error");
	});
	return keyv;
}

/** True when `keyv` was opened by openKeyv on a SQLite file (compactSqlite applies to it). */
export const isSqliteKeyv = (keyv: Keyv): boolean => sqliteOf.has(keyv);

/** What compactSqlite did: whether it vacuumed, and the free pages it found first. */
export interface SqliteCompaction {
	vacuumed: boolean;
	freePages: number;
}

/** Checkpoint attempts while other connections still read the WAL (each waits up to the busy timeout). */
const CHECKPOINT_TRIES = 5;

/**
 * Make deleted rows unreadable in the SQLite file's pages (forget-me): checkpoint the WAL into the
 * database and truncate it (old frames hold old copies of rows; a checkpoint that does not truncate
 * only rewinds the WAL), then VACUUM when free pages remain (pages freed before secure_delete was on
 * keep what they held) and checkpoint again. The whole file is rewritten by a VACUUM: its cost grows
 * with the file (see docs/operations.md). Undefined for a Keyv not on SQLite.
 */
export async function compactSqlite(keyv: Keyv): Promise<SqliteCompaction | undefined> {
	const sqlite = sqliteOf.get(keyv);
	if (!sqlite) return undefined;
	const checkpoint = async () => {
		for (let i = 0; i < CHECKPOINT_TRIES; i++) {
			const rows = (await sqlite.query("PRAGMA wal_checkpoint(TRUNCATE)")) as Array<{ busy?: number }>;
			if (!rows[0]?.busy) return;
		}
		throw new Error("the SQLite WAL could not be checkpointed: other connections kept reading it");
	};
	await checkpoint();
	const [free] = (await sqlite.query("PRAGMA freelist_count")) as Array<{ freelist_count?: number }>;
	const freePages = Number(free?.freelist_count ?? 0);
	if (freePages === 0) return { vacuumed: false, freePages };
	await sqlite.query("VACUUM");
	await checkpoint();
	return { vacuumed: true, freePages };
}

/**
 * Redis with failure made visible: commands issued while disconnected fail at once
 * (no offline queue that would hold a click for the whole outage), a connection attempt
 * is bounded, and the client reconnects by itself with capped backoff, so a lesson
 * resumes when Redis is back.
 */
function redisStore(url: string, onError: (error: unknown) => void): KeyvRedis<unknown> {
	const client = createRedisClient(url, onError);
	const store = new (keyvRedisClass())(client as never, {
		throwOnErrors: true,
		throwOnConnectError: true,
		connectionTimeout: REDIS_CONNECT_TIMEOUT_MS,
	});
	// KeyvRedis connects on the first operation and hands the client to every later one as soon as its socket
	// is open, before the connection is ready: with no offline queue, all but the first of a process's first
	// burst failed ("The client is offline"; 19 of 20 reads at once). Until the first connection is ready, an
	// operation waits for it (bounded by the connect timeout); after that a lost connection fails at once.
	const getClient = store.getClient.bind(store);
	let everReady = false;
	// One wait shared by the burst (one listener, not one per operation).
	let firstReady: Promise<void> | undefined;
	store.getClient = async () => {
		const connected = await getClient();
		if (!everReady && !client.isReady) {
			firstReady ??= readyWithin(client, REDIS_CONNECT_TIMEOUT_MS).finally(() => {
				firstReady = undefined;
			});
			await firstReady;
		}
		everReady ||= client.isReady;
		return connected;
	};
	return store;
}

/** Resolves once `client` is ready, or after `ms` (the operation then fails as it would have). */
function readyWithin(client: ReturnType<typeof createRedisClient>, ms: number): Promise<void> {
	if (client.isReady) return Promise.resolve();
	return new Promise((done) => {
		const finish = () => {
			clearTimeout(timer);
			client.off("ready", finish);
			done();
		};
		const timer = setTimeout(finish, ms);
		client.on("ready", finish);
	});
}

/**
 * A node-redis client (not connected yet) with failure made visible: commands issued while
 * disconnected fail at once, a first connection attempt is bounded and fails at once, and a
 * lost connection is retried with capped backoff. `onError` hears every connection error.
 */
export function createRedisClient(url: string, onError: (error: unknown) => void) {
	// Until the first connection succeeds, a failed attempt (refused, unknown host, wrong password or db)
	// fails at once: a start or `doctor` says so in milliseconds, and the next operation tries again.
	// Once connected, a lost connection is retried with capped backoff.
	let connectedOnce = false;
	const client = redisClientModule().createClient({
		url,
		disableOfflineQueue: true,
		socket: {
			connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
			reconnectStrategy: (attempts: number, cause: Error) =>
				connectedOnce ? Math.min(100 * 2 ** attempts, 2_000) : cause,
		},
	});
	client.on("ready", () => {
		connectedOnce = true;
	});
	// node-redis reports every failed reconnect as an 'error' event; unhandled, it would crash the process.
	client.on("error", onError);
	return client;
}
