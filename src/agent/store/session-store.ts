/**
 * The session store for one process (SQLite, memory) on keyv: one key per session plus an
 * index key listing the ids (keyv has no portable key listing). Index updates, version checks,
 * leases and inboxes (embedded-inbox.ts) are kept in this process: one process owns such a store (a SQLite file is
 * locked by the process that opens it; see sqlite-lock.ts). createSessionStore picks the
 * shared stores (redis-sessions.ts, pg-sessions.ts) for Redis and PostgreSQL URLs.
 * Every operation either happens or rejects with a StoreError, within a deadline: a failed
 * write is never reported as saved.
 */

import { createHash } from "node:crypto";
import { dirname, resolve } from "node:path";
import type Keyv from "keyv";
import type { Logger } from "../../core/contracts/logger.ts";
import { perKey } from "../../core/per-key.ts";
import { embeddedCoordination } from "./embedded-inbox.ts";
import { reason, StoreConflictError, StoreError, withDeadline } from "./errors.ts";
import {
	compactSqlite,
	DEFAULT_STORE_URL,
	isSqliteKeyv,
	lastDriverError,
	makeFolder,
	openKeyv,
	redactUrl,
	sqlitePathOf,
} from "./keyv.ts";
import { createPgSessionStore } from "./pg-sessions.ts";
import { createRedisSessionStore } from "./redis-sessions.ts";
import { lockSqliteFile } from "./sqlite-lock.ts";
import type { SaveOptions, SessionRecord, SessionStore } from "./types.ts";

/** Longest a single store operation may take before it counts as failed (default of sessionStoreOnKeyv). */
export const STORE_OP_TIMEOUT_MS = 10_000;
/** Longest the start-up check may take: an unreachable store fails the start in seconds, not minutes. */
export const STORE_CHECK_TIMEOUT_MS = 5_000;

const INDEX_KEY = "index";
/** Ids of the sessions not ended: what resume() scans at start (not every lesson ever held). */
const OPEN_KEY = "open";
const recordKey = (sessionId: string): string => `session:${sessionId}`;

/**
 * JSON of a record, reusing each message's JSON from earlier saves: a turn
 * appends a message or two, so a save costs O(new messages) of stringify
 * plus a string join instead of re-serializing the whole transcript.
 * Relies on the engine's rule that a stored message is replaced, never mutated.
 */
function recordSerializer(): (record: SessionRecord) => string {
	const cache = new WeakMap<object, string>();
	const messageJson = (message: object): string => {
		let json = cache.get(message);
		if (json === undefined) {
			json = JSON.stringify(message);
			cache.set(message, json);
		}
		return json;
	};
	return (record) => {
		const { messages, ...meta } = record;
		const head = JSON.stringify(meta);
		return `${head.slice(0, -1)},"messages":[${messages.map(messageJson).join(",")}]}`;
	};
}

const isRecord = (value: unknown): value is SessionRecord =>
	typeof value === "object" && value !== null && (value as SessionRecord).format === 1 && "messages" in value;

/** A SessionStore on an already open Keyv (tests, custom backends); `opTimeoutMs` bounds each operation. */
export function sessionStoreOnKeyv(raw: Keyv, options: { opTimeoutMs?: number } = {}): SessionStore {
	const keyv = boundedKeyv(raw, options.opTimeoutMs ?? STORE_OP_TIMEOUT_MS);
	const recordJson = recordSerializer();
	raw.serialize = (data) =>
		isRecord(data.value)
			? `{"value":${recordJson(data.value)}${data.expires === undefined ? "" : `,"expires":${data.expires}`}}`
			: JSON.stringify(data);
	raw.deserialize = (data) => JSON.parse(data);
	let index: Set<string> | undefined;
	let chain: Promise<unknown> = Promise.resolve();
	// Serialize index read-modify-write so two new sessions never drop each other.
	const serial = <T>(work: () => Promise<T>): Promise<T> => {
		const next = chain.then(work, work);
		chain = next.catch(() => undefined);
		return next;
	};
	const strings = (stored: unknown): string[] =>
		Array.isArray(stored) ? stored.filter((x): x is string => typeof x === "string") : [];
	const loadIndex = async (): Promise<Set<string>> => {
		if (index) return index;
		index = new Set(strings(await keyv.get(INDEX_KEY)));
		return index;
	};
	/** The version each session is stored at, as this process (the store's only writer) last read or wrote it. */
	const versions = new Map<string, number>();
	const readRecord = async (sessionId: string): Promise<SessionRecord | undefined> => {
		const value: unknown = await keyv.get(recordKey(sessionId));
		if (typeof value !== "object" || value === null) return undefined;
		const record = value as SessionRecord;
		if (record.format !== 1 || !Array.isArray(record.messages)) return undefined;
		// Records saved before versions existed read as version 0.
		record.version = typeof record.version === "number" ? record.version : 0;
		versions.set(sessionId, record.version);
		return record;
	};
	/** Per-session chains: a version check and its write happen together. */
	const perSession = perKey();
	let open: Set<string> | undefined;
	/** The open-session index; a store written before it existed gets it built once from the records. */
	const loadOpen = async (): Promise<Set<string>> => {
		if (open) return open;
		const stored: unknown = await keyv.get(OPEN_KEY);
		if (Array.isArray(stored)) open = new Set(strings(stored));
		else {
			const built = new Set<string>();
			for (const id of await loadIndex()) if ((await readRecord(id))?.ended === undefined) built.add(id);
			await keyv.set(OPEN_KEY, [...built]);
			open = built;
		}
		return open;
	};

	const version = async (sessionId: string): Promise<number | undefined> =>
		versions.has(sessionId) ? versions.get(sessionId) : (await readRecord(sessionId))?.version;
	// Leases and inboxes in this process, the inboxes durable through their own keys (embedded-inbox.ts).
	const coordination = embeddedCoordination({ ...keyv, version, perSession });

	/** Ids whose first save is under way (get() looks for them on disk before the index has them). */
	const writing = new Set<string>();
	const saveRecord = async (record: SessionRecord, saveOptions: SaveOptions): Promise<void> => {
		const id = record.sessionId;
		const isOpen = record.ended === undefined;
		await perSession(id, async () => {
			if (saveOptions.fence !== undefined && saveOptions.fence < coordination.fenceOf(id))
				throw new StoreConflictError("store-fenced", `session ${id}: the lease was granted again after this writer's`);
			const stored = versions.has(id) ? versions.get(id) : (await readRecord(id))?.version;
			const expected = record.version ?? 0;
			if ((stored ?? 0) !== expected)
				throw new StoreConflictError(
					"store-conflict",
					`session ${id} was saved by another writer (stored version ${stored}, this copy ${expected})`,
				);
			const next = expected + 1;
			await keyv.set(recordKey(id), { ...record, version: next });
			record.version = next;
			versions.set(id, next);
		});
		await serial(async () => {
			const ids = await loadIndex();
			if (!ids.has(id)) {
				ids.add(id);
				await keyv.set(INDEX_KEY, [...ids]);
			}
			const opened = await loadOpen();
			if (opened.has(id) === isOpen) return;
			if (isOpen) opened.add(id);
			else opened.delete(id);
			await keyv.set(OPEN_KEY, [...opened]);
		});
	};

	return {
		inbox: coordination.inbox,
		async get(sessionId) {
			// This process is the store's only writer: an id its index lacks is not stored (no disk read for a
			// chat thread that holds no lesson). A first save under way is looked for on disk.
			const ids = index ?? (await serial(loadIndex));
			if (!ids.has(sessionId) && !writing.has(sessionId)) return undefined;
			return readRecord(sessionId);
		},
		async set(record, saveOptions = {}) {
			const id = record.sessionId;
			writing.add(id);
			try {
				await saveRecord(record, saveOptions);
			} finally {
				writing.delete(id);
			}
		},
		version,
		acquire: coordination.acquire,
		async delete(sessionId) {
			const deleted = await perSession(sessionId, async () => {
				versions.delete(sessionId);
				await coordination.forget(sessionId);
				return keyv.delete(recordKey(sessionId));
			});
			await serial(async () => {
				const ids = await loadIndex();
				if (ids.delete(sessionId)) await keyv.set(INDEX_KEY, [...ids]);
				const opened = await loadOpen();
				if (opened.delete(sessionId)) await keyv.set(OPEN_KEY, [...opened]);
			});
			return deleted;
		},
		async list() {
			return serial(async () => [...(await loadIndex())]);
		},
		async listOpen() {
			return serial(async () => [...(await loadOpen())]);
		},
		...(isSqliteKeyv(raw)
			? {
					async compact() {
						// After the index writes queued before it (they may still hold the deleted ids).
						await serial(async () => {
							await compactSqlite(raw);
						});
					},
				}
			: {}),
		async close() {
			await chain;
			await raw.disconnect();
		},
	};
}

/** The Keyv operations the session store uses, each bounded in time and failing loudly. */
interface BoundedKeyv {
	get(key: string): Promise<unknown>;
	set(key: string, value: unknown): Promise<void>;
	delete(key: string): Promise<boolean>;
}

function boundedKeyv(keyv: Keyv, ms: number): BoundedKeyv {
	return {
		get: (key) => withDeadline(`reading ${key}`, ms, () => keyv.get(key)),
		async set(key, value) {
			const ok = await withDeadline(`writing ${key}`, ms, () => keyv.set(key, value));
			// A keyv adapter that swallows an error returns false: that write did not happen.
			if (ok === false) {
				const cause = lastDriverError(keyv);
				throw new StoreError("store-unavailable", `writing ${key} failed${cause ? `: ${reason(cause)}` : ""}`, {
					cause,
				});
			}
		},
		delete: (key) => withDeadline(`deleting ${key}`, ms, () => keyv.delete(key)),
	};
}

/** PostgreSQL table prefix of a namespace: `learnharness` for the default, else its letters and digits plus a hash. */
function tablePrefixOf(namespace: string): string {
	if (namespace === "learnharness:sessions") return "learnharness";
	const hash = createHash("sha256").update(namespace).digest("hex").slice(0, 8);
	return `${namespace.replace(/[^a-z0-9]+/gi, "_").slice(0, 24)}_${hash}`.toLowerCase().replace(/^[^a-z_]/, "_");
}

/**
 * The session store on the backend the URL names (default: the SQLite file
 * `./data/learnharness.sqlite`): Redis and PostgreSQL get the shared stores (leases, versioned
 * saves, a key or row per message), SQLite and memory the single-process one (a SQLite file is
 * locked to this process). Checks once that the store reads and writes, within a few seconds,
 * so a bad URL, an unreachable server, a file that is not a database or a SQLite file another
 * process holds fails the start with a StoreError naming the store and the cause.
 */
export async function createSessionStore(
	url: string = DEFAULT_STORE_URL,
	logger?: Logger,
	options: { namespace?: string; opTimeoutMs?: number; checkTimeoutMs?: number; tablePrefix?: string } = {},
): Promise<SessionStore> {
	const namespace = options.namespace ?? "learnharness:sessions";
	if (url.startsWith("redis://") || url.startsWith("rediss://") || url.startsWith("postgres")) {
		let lastError: unknown;
		const onError = (error: unknown) => {
			lastError = error;
		};
		const shared = url.startsWith("postgres")
			? createPgSessionStore(url, {
					...options,
					namespace,
					tablePrefix: options.tablePrefix ?? tablePrefixOf(namespace),
					...(logger ? { logger } : {}),
					onError,
				})
			: createRedisSessionStore(url, { ...options, namespace, ...(logger ? { logger } : {}), onError });
		try {
			await withDeadline("the start-up check", options.checkTimeoutMs ?? STORE_CHECK_TIMEOUT_MS, async () => {
				await shared.listOpen();
				// A read alone passes on a read-only or half-broken store: take and give back a lease (a write).
				await (await shared.acquire("health", 1_000))?.release();
			});
		} catch (error) {
			await Promise.race([shared.close().catch(() => undefined), new Promise((done) => setTimeout(done, 1_000))]);
			throw new StoreError(
				"store-unavailable",
				`The store at ${redactUrl(url)} cannot be used: ${reason(lastError ?? (error as { cause?: unknown }).cause ?? error)}`,
				{ cause: error },
			);
		}
		return shared;
	}
	// Lock before opening: a second process is refused before it touches the file.
	const sqlitePath = url.startsWith("sqlite://") ? sqlitePathOf(url) : undefined;
	if (sqlitePath !== undefined && sqlitePath !== ":memory:") makeFolder(dirname(resolve(sqlitePath)));
	const unlock = sqlitePath === undefined ? () => {} : lockSqliteFile(sqlitePath);
	let keyv: Keyv;
	try {
		keyv = openKeyv(url, namespace, logger);
	} catch (error) {
		unlock();
		throw error;
	}
	const inner = sessionStoreOnKeyv(keyv, options);
	const store: SessionStore = {
		...inner,
		async close() {
			try {
				await inner.close();
			} finally {
				unlock();
			}
		},
	};
	try {
		await withDeadline("the start-up check", options.checkTimeoutMs ?? STORE_CHECK_TIMEOUT_MS, async () => {
			await store.list();
			// A read alone passes on a read-only or half-broken store: write the probe key too.
			await keyv.set("health", new Date().toISOString());
		});
	} catch (error) {
		unlock();
		const cause = lastDriverError(keyv) ?? error;
		// Stop the driver's reconnect loop, or the process would keep running after the failure.
		await Promise.race([keyv.disconnect().catch(() => undefined), new Promise((done) => setTimeout(done, 1_000))]);
		throw new StoreError("store-unavailable", `The store at ${redactUrl(url)} cannot be used: ${reason(cause)}`, {
			cause: error,
		});
	}
	return store;
}
