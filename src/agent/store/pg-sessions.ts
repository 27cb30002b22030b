/**
 * The session store on PostgreSQL, for several processes sharing one database: a row per
 * session (version, metadata, open or not: the index is the table), a row per message (a turn
 * inserts one or two rows, it does not rewrite the transcript), and a lease row per session
 * taken with `INSERT ... ON CONFLICT ... WHERE expires_at < now()`, whose fencing number grows
 * with every grant. A save is one transaction: compare-and-set on the version, fence check,
 * then the changed messages, and the inbox entries the record marks applied go in the same
 * transaction. Each session has an inbox (a row per event, numbered per session
 * through a counter row) any process appends to; the lease row's `work` flag with an expired
 * lease makes the session due for another taker.
 */

import { randomUUID } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { Logger } from "../../core/contracts/logger.ts";
import { pgModule } from "./drivers.ts";
import { StoreConflictError, withDeadline } from "./errors.ts";
import { type BookLease, leaseBook } from "./lease-book.ts";
import { assembleRecord, legacyIds, legacyRecord, messageTracker, metaJson } from "./record-layout.ts";
import type { SessionInbox, SessionRecord, SessionStore } from "./types.ts";

/** readSnapshot's answer for a session without a row. */
const ABSENT: unique symbol = Symbol("absent");

/** Options of the PostgreSQL session store. */
export interface PgSessionStoreOptions {
	/** Table name prefix (letters, digits, underscores; default `learnharness`): tables `<prefix>_sessions`, `_messages`, `_leases`. */
	tablePrefix?: string;
	/** The keyv namespace of the old layout, read when a session has no row yet (default `learnharness:sessions`). */
	namespace?: string;
	/** Longest one operation may take (default 10 s). */
	opTimeoutMs?: number;
	logger?: Logger;
	/** Hears pool errors (a dropped idle connection). */
	onError?: (error: unknown) => void;
}

/**
 * What two processes creating the tables at once can fail with: unique_violation (the catalog), duplicate_object
 * ("type … already exists"), duplicate_table, deadlock_detected.
 */
const SCHEMA_RACE_CODES = new Set(["23505", "42710", "42P07", "40P01"]);

/** The session store on the PostgreSQL database `url` names. Creates its tables on first use. */
export function createPgSessionStore(url: string, options: PgSessionStoreOptions = {}): SessionStore {
	const prefix = options.tablePrefix ?? "learnharness";
	if (!/^[a-z_][a-z0-9_]{0,40}$/i.test(prefix)) throw new Error(`bad table prefix ${JSON.stringify(prefix)}`);
	const ns = options.namespace ?? "learnharness:sessions";
	const ms = options.opTimeoutMs ?? 10_000;
	const t = {
		sessions: `${prefix}_sessions`,
		messages: `${prefix}_messages`,
		leases: `${prefix}_leases`,
		inbox: `${prefix}_inbox`,
		inboxSeq: `${prefix}_inbox_seq`,
	};
	// A burst (many lessons starting at once) queues for a connection up to the operation's own timeout, rather than
	// failing after 5 s while the pool's 10 connections are busy.
	const pool = new (pgModule().Pool)({ connectionString: url, max: 10, connectionTimeoutMillis: ms });
	// An idle client's error (the server restarted) is emitted on the pool; unhandled it would crash.
	pool.on("error", (error) => {
		options.onError?.(error);
		options.logger?.debug({ err: error }, "postgres session store error");
	});
	/**
	 * Run the DDL in a transaction holding an advisory lock on the table prefix: processes starting together
	 * on an empty database create the tables one after the other (`IF NOT EXISTS` alone races in PostgreSQL).
	 */
	const createTables = async (ddl: string): Promise<void> => {
		const client = await pool.connect();
		try {
			await client.query("BEGIN");
			await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`learnharness:schema:${t.sessions}`]);
			await client.query(ddl);
			await client.query("COMMIT");
		} catch (error) {
			await client.query("ROLLBACK").catch(() => undefined);
			throw error;
		} finally {
			client.release();
		}
	};
	let schema: Promise<void> | undefined;
	const ensureSchema = (): Promise<void> => {
		schema ??= (async () => {
			const ddl = `
				CREATE TABLE IF NOT EXISTS ${t.sessions} (id TEXT PRIMARY KEY, version BIGINT NOT NULL, meta TEXT NOT NULL, open BOOLEAN NOT NULL);
				CREATE INDEX IF NOT EXISTS ${t.sessions}_open ON ${t.sessions} (open) WHERE open;
				CREATE TABLE IF NOT EXISTS ${t.messages} (session_id TEXT NOT NULL, idx INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (session_id, idx));
				CREATE TABLE IF NOT EXISTS ${t.leases} (session_id TEXT PRIMARY KEY, token TEXT NOT NULL, fence BIGINT NOT NULL, expires_at TIMESTAMPTZ NOT NULL);
				ALTER TABLE ${t.leases} ADD COLUMN IF NOT EXISTS work BOOLEAN NOT NULL DEFAULT false;
				CREATE INDEX IF NOT EXISTS ${t.leases}_work ON ${t.leases} (expires_at) WHERE work;
				CREATE TABLE IF NOT EXISTS ${t.inbox} (session_id TEXT NOT NULL, seq BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (session_id, seq));
				CREATE TABLE IF NOT EXISTS ${t.inboxSeq} (session_id TEXT PRIMARY KEY, seq BIGINT NOT NULL);`;
			// DDL takes table locks even when there is nothing to create (ALTER TABLE takes an exclusive one): a
			// process starting next to running ones would wait on their transactions, or deadlock with them. When the
			// newest part of the schema is there, so is the rest: read the catalog only.
			const { rows } = await pool.query<{ ready: boolean }>(
				`SELECT to_regclass($1) IS NOT NULL AND EXISTS (SELECT 1 FROM information_schema.columns
				   WHERE table_schema = current_schema() AND table_name = lower($2) AND column_name = 'work') AS ready`,
				[t.inboxSeq, t.leases],
			);
			if (rows[0]?.ready) return;
			for (let attempt = 0; ; attempt++) {
				try {
					await createTables(ddl);
					return;
				} catch (error) {
					// Creators are serialized (createTables), but a process of an earlier version takes no lock: two
					// creating at once lose with a duplicate (the catalog's unique index, or "type already exists") or a
					// deadlock between their DDL; the tables exist now, or the next attempt creates what is missing.
					const code = (error as { code?: string }).code;
					if (!SCHEMA_RACE_CODES.has(code ?? "") || attempt > 2) throw error;
				}
			}
		})().catch((error: unknown) => {
			schema = undefined;
			throw error;
		});
		return schema;
	};
	const op = <T>(what: string, work: () => Promise<T>): Promise<T> =>
		withDeadline(what, ms, async () => {
			await ensureSchema();
			return work();
		});
	/** A value of the old keyv table, or undefined (also when that table does not exist). */
	const legacy = async (key: string): Promise<string | undefined> => {
		try {
			const { rows } = await pool.query<{ value: string }>("SELECT value FROM keyv WHERE key = $1", [`${ns}:${key}`]);
			return rows[0]?.value;
		} catch (error) {
			if ((error as { code?: string }).code === "42P01") return undefined; // no keyv table: nothing old
			throw error;
		}
	};
	/** Delete a value of the old keyv table; true when one was there. */
	const deleteLegacy = async (key: string): Promise<boolean> => {
		try {
			const { rowCount } = await pool.query("DELETE FROM keyv WHERE key = $1", [`${ns}:${key}`]);
			return (rowCount ?? 0) > 0;
		} catch (error) {
			if ((error as { code?: string }).code === "42P01") return false; // no keyv table: nothing old
			throw error;
		}
	};
	const tracker = messageTracker();
	/** Leases this store granted, and whether they are still held (lease-book.ts; no version is read with a grant here). */
	const book = leaseBook();
	/** Per session, the inbox entries a save through this store dropped (up to this number; recent sessions). */
	const dropped = new LRUCache<string, number>({ max: 10_000 });
	let migrated = false;
	/** Sessions of the old layout that have no row yet: listed (and loaded through the migration on read). */
	const legacyOnly = async (openOnly: boolean): Promise<string[]> => {
		if (migrated) return [];
		const all = legacyIds(await legacy("index"));
		const opened = openOnly ? await legacy("open") : undefined;
		const wanted = opened === undefined ? all : legacyIds(opened);
		if (wanted.length === 0) {
			migrated = all.length === 0;
			return [];
		}
		const { rows } = await pool.query<{ id: string }>(`SELECT id FROM ${t.sessions} WHERE id = ANY($1)`, [wanted]);
		const have = new Set(rows.map((r) => r.id));
		return wanted.filter((id) => !have.has(id));
	};

	const lease = (sessionId: string, token: string, fence: number, ttlMs: number): BookLease => ({
		sessionId,
		fence,
		renew: () =>
			op("renewing a lease", async () => {
				const { rowCount } = await pool.query(
					`UPDATE ${t.leases} SET expires_at = now() + $3 * interval '1 millisecond' WHERE session_id = $1 AND token = $2`,
					[sessionId, token, ttlMs],
				);
				return rowCount === 1;
			}),
		// True when it was still ours (a failure to answer counts as ours: nothing says another took it).
		release: (left = false) =>
			op("releasing a lease", () =>
				// The row stays (its fence keeps growing); only its holder and expiry go. Work left, or entries in
				// the inbox: the session is due for another taker at once.
				pool.query(
					`UPDATE ${t.leases} SET token = '', expires_at = '-infinity',
					 work = $3 OR EXISTS (SELECT 1 FROM ${t.inbox} WHERE session_id = $1)
					 WHERE session_id = $1 AND token = $2`,
					[sessionId, token, left],
				),
			).then(
				(result) => result.rowCount === 1,
				(error: unknown) => {
					options.logger?.debug({ err: error, sessionId }, "releasing a lease failed");
					return true;
				},
			),
	});

	const inbox: SessionInbox = {
		push: (sessionId, body, ifVersion) =>
			op(`queueing an event of ${sessionId}`, async () => {
				// One statement: the counter row's lock orders concurrent appends, so sequence order is commit order.
				// With a version: nothing is written unless the session's row was at it when the statement began.
				// Without: unless the session has a row (a deleted one, forget-me or retention, gets no entry that
				// would keep who sent it), or `$4`: a record of the key-value layout not migrated yet.
				const append = (legacyOnly: boolean) =>
					pool.query<{ seq: string }>(
						`WITH s AS (
						   INSERT INTO ${t.inboxSeq} AS q (session_id, seq)
						   SELECT $1, 1 WHERE EXISTS (SELECT 1 FROM ${t.sessions} WHERE id = $1 AND ($3::bigint IS NULL OR version = $3::bigint))
						     OR ($4::boolean AND $3::bigint IS NULL)
						   ON CONFLICT (session_id) DO UPDATE SET seq = q.seq + 1 RETURNING seq),
						 i AS (INSERT INTO ${t.inbox} (session_id, seq, body) SELECT $1, seq, $2 FROM s RETURNING seq),
						 w AS (INSERT INTO ${t.leases} AS l (session_id, token, fence, expires_at, work)
						   SELECT $1, '', 0, '-infinity', true FROM s ON CONFLICT (session_id) DO UPDATE SET work = true)
						 SELECT seq FROM i`,
						[sessionId, body, ifVersion ?? null, legacyOnly],
					);
				let { rows } = await append(false);
				// Refused without a version: perhaps a session only the old layout holds (a second round trip, rare).
				if (rows.length === 0 && ifVersion === undefined && (await legacy(`session:${sessionId}`)) !== undefined)
					({ rows } = await append(true));
				return rows.length === 0 ? 0 : Number(rows[0]?.seq);
			}),
		read: (sessionId, after, limit) =>
			op(`reading the inbox of ${sessionId}`, async () => {
				const { rows } = await pool.query<{ seq: string; body: string }>(
					`SELECT seq, body FROM ${t.inbox} WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
					[sessionId, after, limit],
				);
				return rows.map((r) => ({ seq: Number(r.seq), body: r.body }));
			}),
		count: (sessionId, from) =>
			op(`counting the inbox of ${sessionId}`, async () => {
				const { rows } = await pool.query<{ n: string }>(
					`SELECT count(*) AS n FROM ${t.inbox} WHERE session_id = $1 AND seq >= $2`,
					[sessionId, from],
				);
				return Number(rows[0]?.n ?? 0);
			}),
		drop: (sessionId, upTo) => {
			// The save that marked them applied dropped them already: no round trip.
			if ((dropped.get(sessionId) ?? 0) >= upTo) return Promise.resolve();
			return op(`dropping applied events of ${sessionId}`, async () => {
				await pool.query(`DELETE FROM ${t.inbox} WHERE session_id = $1 AND seq <= $2`, [sessionId, upTo]);
			});
		},
		due: (limit) =>
			op("listing sessions due", async () => {
				const { rows } = await pool.query<{ session_id: string }>(
					`SELECT session_id FROM ${t.leases} WHERE work AND expires_at < now() LIMIT $1`,
					[limit],
				);
				return rows.map((r) => r.session_id);
			}),
	};

	/** A session's row and messages in one snapshot; ABSENT when it has no row. */
	async function readSnapshot(sessionId: string): Promise<SessionRecord | undefined | typeof ABSENT> {
		const client = await pool.connect();
		try {
			await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
			const head = await client.query<{ version: string; meta: string }>(
				`SELECT version, meta FROM ${t.sessions} WHERE id = $1`,
				[sessionId],
			);
			const row = head.rows[0];
			if (!row) {
				await client.query("COMMIT");
				return ABSENT;
			}
			const body = await client.query<{ body: string }>(
				`SELECT body FROM ${t.messages} WHERE session_id = $1 ORDER BY idx`,
				[sessionId],
			);
			await client.query("COMMIT");
			const version = Number(row.version);
			const record = assembleRecord(
				JSON.parse(row.meta),
				body.rows.map((r) => JSON.parse(r.body)),
				version,
			);
			if (record) tracker.remember(record, version);
			return record;
		} catch (error) {
			await client.query("ROLLBACK").catch(() => undefined);
			throw error;
		} finally {
			client.release();
		}
	}

	return {
		inbox,
		get: (sessionId) =>
			op(`reading session ${sessionId}`, async () => {
				const stored = await readSnapshot(sessionId);
				if (stored !== ABSENT) return stored;
				// Not in the table: perhaps a record of the key-value layout, read once the snapshot's connection is
				// back in the pool (holding one while waiting for another let 10 lessons starting at once take the
				// whole pool and wait on each other until the pool's timeout).
				tracker.forget(sessionId);
				return legacyRecord(await legacy(`session:${sessionId}`));
			}),
		async set(record, saveOptions = {}) {
			const id = record.sessionId;
			const { writes, length } = tracker.changes(record);
			const expected = record.version ?? 0;
			const applied = Number.isSafeInteger(record.inbox) && (record.inbox ?? 0) > 0 ? (record.inbox as number) : 0;
			const version = await op(`writing session ${id}`, async () => {
				const client = await pool.connect();
				try {
					await client.query("BEGIN");
					if (saveOptions.fence !== undefined) {
						// FOR SHARE: a lease grant waits for this save, and this save sees any grant before it.
						const { rows } = await client.query<{ fence: string }>(
							`SELECT fence FROM ${t.leases} WHERE session_id = $1 FOR SHARE`,
							[id],
						);
						const current = Number(rows[0]?.fence ?? 0);
						if (saveOptions.fence < current)
							throw new StoreConflictError(
								"store-fenced",
								`session ${id}: the lease was granted again (fence ${current}) after this writer's (${saveOptions.fence})`,
							);
					}
					const meta = metaJson(record);
					const open = record.ended === undefined;
					const { rows } =
						expected === 0
							? await client.query<{ version: string }>(
									`INSERT INTO ${t.sessions} (id, version, meta, open) VALUES ($1, 1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING version`,
									[id, meta, open],
								)
							: await client.query<{ version: string }>(
									`UPDATE ${t.sessions} SET version = version + 1, meta = $2, open = $3 WHERE id = $1 AND version = $4 RETURNING version`,
									[id, meta, open, expected],
								);
					if (rows.length === 0) {
						tracker.forget(id);
						throw new StoreConflictError(
							"store-conflict",
							`session ${id} was saved by another writer (this copy is version ${expected})`,
						);
					}
					if (writes.length > 0)
						await client.query(
							`INSERT INTO ${t.messages} (session_id, idx, body) SELECT $1, * FROM unnest($2::int[], $3::text[])
							 ON CONFLICT (session_id, idx) DO UPDATE SET body = excluded.body`,
							[id, writes.map(([i]) => i), writes.map(([, json]) => json)],
						);
					await client.query(`DELETE FROM ${t.messages} WHERE session_id = $1 AND idx >= $2`, [id, length]);
					// Applied inbox entries go with the save that records their effect.
					if (applied > 0)
						await client.query(`DELETE FROM ${t.inbox} WHERE session_id = $1 AND seq <= $2`, [id, applied]);
					await client.query("COMMIT");
					return Number(rows[0]?.version);
				} catch (error) {
					await client.query("ROLLBACK").catch(() => undefined);
					throw error;
				} finally {
					client.release();
				}
			});
			record.version = version;
			tracker.remember(record, version);
			if (applied > 0) dropped.set(id, applied);
		},
		version: (sessionId) =>
			op(`reading the version of ${sessionId}`, async () => {
				const { rows } = await pool.query<{ version: string }>(`SELECT version FROM ${t.sessions} WHERE id = $1`, [
					sessionId,
				]);
				if (rows[0]) return Number(rows[0].version);
				return (await legacy(`session:${sessionId}`)) === undefined ? undefined : 0;
			}),
		async acquire(sessionId, ttlMs) {
			const token = randomUUID();
			const asked = performance.now();
			const { rows } = await op("taking a lease", () =>
				pool.query<{ fence: string }>(
					`INSERT INTO ${t.leases} AS l (session_id, token, fence, expires_at, work)
					 VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond', true)
					 ON CONFLICT (session_id) DO UPDATE SET token = excluded.token, fence = l.fence + 1, expires_at = excluded.expires_at, work = true
					 WHERE l.expires_at < now()
					 RETURNING fence`,
					[sessionId, token, Math.max(1, Math.round(ttlMs))],
				),
			);
			const fence = Number(rows[0]?.fence ?? 0);
			return fence > 0 ? book.granted(lease(sessionId, token, fence, ttlMs), ttlMs, asked) : undefined;
		},
		holding: (sessionId, at) => book.holding(sessionId, at),
		delete: (sessionId) =>
			op(`deleting session ${sessionId}`, async () => {
				tracker.forget(sessionId);
				dropped.delete(sessionId);
				await pool.query(`DELETE FROM ${t.messages} WHERE session_id = $1`, [sessionId]);
				await pool.query(`DELETE FROM ${t.inbox} WHERE session_id = $1`, [sessionId]);
				await pool.query(`UPDATE ${t.leases} SET work = false WHERE session_id = $1`, [sessionId]);
				const { rowCount } = await pool.query(`DELETE FROM ${t.sessions} WHERE id = $1`, [sessionId]);
				// The key-value layout's copy (a session never saved since the migration) goes too.
				const old = await deleteLegacy(`session:${sessionId}`);
				return (rowCount ?? 0) > 0 || old;
			}),
		list: () =>
			op("listing sessions", async () => {
				const { rows } = await pool.query<{ id: string }>(`SELECT id FROM ${t.sessions}`);
				return [...rows.map((r) => r.id), ...(await legacyOnly(false))];
			}),
		listOpen: () =>
			op("listing open sessions", async () => {
				const { rows } = await pool.query<{ id: string }>(`SELECT id FROM ${t.sessions} WHERE open`);
				return [...rows.map((r) => r.id), ...(await legacyOnly(true))];
			}),
		async close() {
			await pool.end().catch(() => undefined);
		},
	};
}
