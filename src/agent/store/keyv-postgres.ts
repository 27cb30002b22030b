/**
 * The keyv PostgreSQL store on a pool this process owns and listens to.
 *
 * `@keyv/postgres` keeps one module-level `pg.Pool` per URL that it never exposes, so nothing can listen
 * to it: when PostgreSQL ends an idle client's connection (a restart, a failover, an admin's
 * `pg_terminate_backend`, code 57P01), the pool emits `error` with no listener and Node turns it into an
 * uncaught exception. Here the namespaces of one URL share one pool (as keyv's did), its errors reach
 * every store on it as a store error (keyv re-emits it; `openKeyv` logs it and keeps it for `doctor`),
 * and the pool ends when the last store on it disconnects (keyv's ended it for all at the first).
 */

import type KeyvPostgres from "@keyv/postgres";
import type { KeyvPostgresOptions } from "@keyv/postgres";
import type pg from "pg";
import { keyvPostgresClass, pgModule } from "./drivers.ts";

interface SharedPool {
	pool: pg.Pool;
	stores: Set<KeyvPostgres>;
}

const pools = new Map<string, SharedPool>();

function poolFor(uri: string, store: KeyvPostgres): pg.Pool {
	let shared = pools.get(uri);
	if (!shared) {
		const pool = new (pgModule().Pool)({ connectionString: uri });
		const stores = new Set<KeyvPostgres>();
		// An idle client's connection ended by the server: the pool drops that client and opens a new one on
		// the next query; every store on the pool hears it as a store error, and nothing crashes.
		pool.on("error", (error) => {
			// (keyv always listens to its store; an emit with no listener would throw here, in the pool's emit.)
			for (const each of stores) if (each.listenerCount("error") > 0) each.emit("error", error);
		});
		shared = { pool, stores };
		pools.set(uri, shared);
	}
	shared.stores.add(store);
	return shared.pool;
}

/** keyv's PostgreSQL store class, loaded on first use (drivers.ts), with connect/disconnect on the shared pools. */
let listened: (new (options: KeyvPostgresOptions) => KeyvPostgres) | undefined;

/** keyv's PostgreSQL store on `uri`, querying through a shared pool with an `error` listener (see the file's comment). */
export function listenedPostgres(uri: string): KeyvPostgres {
	listened ??= class ListenedPostgres extends keyvPostgresClass() {
		// Called by KeyvPostgres's constructor: the instance's own fields are not set yet, only `opts`.
		override async connect() {
			const pool = poolFor(this.opts.uri ?? "", this);
			return async (sql: string, values?: unknown) => (await pool.query(sql, values as unknown[])).rows;
		}

		override async disconnect() {
			const key = this.opts.uri ?? "";
			const shared = pools.get(key);
			if (!shared?.stores.delete(this) || shared.stores.size > 0) return;
			pools.delete(key);
			await shared.pool.end();
		}
	};
	return new listened({ uri });
}

/** The pools open now, by URL (tests: what a disconnect left behind). */
export const openPostgresPools = (): number => pools.size;
