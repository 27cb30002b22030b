/**
 * PostgreSQL ends the state store's idle connections (a restart, a failover, `pg_terminate_backend`: code
 * 57P01). keyv's own pool had no `error` listener, so that reached the process as an uncaught exception (CI
 * saw it once as an unhandled error when a test dropped its database `WITH (FORCE)`). Now the store hears it
 * as a store error, the next operation opens a new connection, and the pool ends with the last store on it.
 */

import pg from "pg";
import { describe, expect, it } from "vitest";
import { openPostgresPools } from "../../../src/agent/store/keyv-postgres.ts";
import { openStateStore } from "../../../src/agent/store/state-store.ts";
import type { Logger } from "../../../src/core/contracts/logger.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { privatePostgres } from "../../fixtures/private-stores.ts";
import { listening } from "../../fixtures/redis-server.ts";
import { POSTGRES_URL } from "../../fixtures/shared-stores.ts";

const postgresUp = await listening(5432);

/** A logger that keeps what was logged at debug (the store reports connection errors there). */
function debugLog(): { logger: Logger; lines: Array<{ msg: string; code?: string }> } {
	const lines: Array<{ msg: string; code?: string }> = [];
	const logger: Logger = {
		...silentLogger,
		debug: (fields: unknown, msg?: string) => {
			const err = (fields as { err?: { code?: string } } | undefined)?.err;
			lines.push({ msg: msg ?? "", code: err?.code });
		},
		child: () => logger,
	};
	return { logger, lines };
}

/** End every other connection to `database` from the admin connection; how many were ended. */
async function terminateBackends(database: string): Promise<number> {
	const admin = new pg.Client({ connectionString: POSTGRES_URL });
	await admin.connect();
	try {
		const { rows } = await admin.query<{ ended: boolean }>(
			"SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
			[database],
		);
		return rows.filter((r) => r.ended).length;
	} finally {
		await admin.end();
	}
}

describe("the PostgreSQL state store when the server ends its connections", () => {
	it.skipIf(!postgresUp)(
		"hears 57P01 as a store error, carries on, and ends its pool with the last store",
		async () => {
			const db = await privatePostgres("pgrestart");
			const database = new URL(db.url).pathname.slice(1);
			const before = openPostgresPools();
			const { logger, lines } = debugLog();
			const a = openStateStore(db.url, "a", logger);
			const b = openStateStore(db.url, "b", logger);
			try {
				await a.set("k", { n: 1 });
				await b.set("k", { n: 2 });
				// Both namespaces share one pool for the URL.
				expect(openPostgresPools()).toBe(before + 1);
				expect(await terminateBackends(database)).toBeGreaterThan(0);
				// The idle clients' errors arrive asynchronously: looked for up to 2,000 times (50 s on a stalled machine).
				for (let i = 0; i < 2_000 && !lines.some((l) => l.code === "57P01"); i++)
					await new Promise((done) => setTimeout(done, 25));
				expect(lines.some((l) => l.msg === "store error" && l.code === "57P01")).toBe(true);
				// The next operations open new connections and see what was saved.
				expect(await a.get("k")).toEqual({ n: 1 });
				expect(await b.get("k")).toEqual({ n: 2 });
				await a.close();
				// Still open for b: a's close must not end b's pool (keyv's own ended it for every store).
				expect(await b.get("k")).toEqual({ n: 2 });
			} finally {
				await a.close().catch(() => undefined);
				await b.close();
				await db.drop();
			}
			expect(openPostgresPools()).toBe(before);
		},
	);
});
