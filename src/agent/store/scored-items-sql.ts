/**
 * Scored items (scored-items.ts) on SQLite and PostgreSQL: a table beside keyv's,
 * `<keyv table>_items (collection, id, score, value)` with primary key (collection, id) and an
 * index on (collection, score), so a selection by score reads only what it returns (plus the
 * index's counts) and a change writes one row. Created on first use (on PostgreSQL under an
 * advisory lock: processes starting together on an empty database create it one after the other).
 */

import type KeyvPostgres from "@keyv/postgres";
import KeyvSqlite from "@keyv/sqlite";
import type Keyv from "keyv";
import { isKeyvPostgres } from "./drivers.ts";
import { byScore, type LowestItems, type ScoredItem, type ScoredItems } from "./scored-items.ts";

/** Rows per INSERT statement (SQLite's older builds allow 999 parameters; 4 a row). */
const ROWS_PER_INSERT = 200;

interface Row {
	id: string;
	score: number | string;
	value: string;
}

const itemOf = (row: Row): ScoredItem => ({ id: row.id, score: Number(row.score), value: JSON.parse(row.value) });

/** Scored items on the keyv's SQL backend; undefined when it is not SQLite or PostgreSQL. */
export function sqlScoredItems(keyv: Keyv): ScoredItems | undefined {
	const store: unknown = keyv.store;
	if (!(isKeyvPostgres(store) || store instanceof KeyvSqlite)) return undefined;
	const pg = isKeyvPostgres(store);
	const opts = (store as unknown as { opts: { table: string; schema?: string } }).opts;
	const base = `${opts.table}_items`;
	const table = pg ? `${opts.schema ?? "public"}.${base}` : base;
	const ns = keyv.namespace ?? "";
	const named = (collection: string) => (ns === "" ? collection : `${ns}:${collection}`);
	const run = (sql: string, values: unknown[]): Promise<unknown[]> =>
		pg
			? (store as KeyvPostgres).query(sql, values)
			: (store as unknown as { query: (sql: string, ...v: unknown[]) => Promise<unknown[]> }).query(sql, ...values);
	// $n on PostgreSQL, ?n on SQLite.
	const p = (n: number) => (pg ? `$${n}` : `?${n}`);

	let created: Promise<void> | undefined;
	const ready = (): Promise<void> => {
		created ??= (async () => {
			const columns = `collection TEXT NOT NULL, id TEXT NOT NULL, score BIGINT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (collection, id)`;
			const index = `CREATE INDEX IF NOT EXISTS ${base}_score ON ${table} (collection, score)`;
			if (pg)
				await run(
					`DO $$ BEGIN PERFORM pg_advisory_xact_lock(hashtext('${table}')); CREATE TABLE IF NOT EXISTS ${table} (${columns}); ${index}; END $$`,
					[],
				);
			else {
				await run(`CREATE TABLE IF NOT EXISTS ${table} (${columns})`, []);
				await run(index, []);
			}
		})().catch((error: unknown) => {
			created = undefined; // the next call tries again
			throw error;
		});
		return created;
	};
	const query = async (sql: string, values: unknown[]) => {
		await ready();
		return run(sql, values);
	};

	const insert = async (collection: string, items: readonly ScoredItem[], replace: boolean) => {
		const conflict = replace ? "DO UPDATE SET score = excluded.score, value = excluded.value" : "DO NOTHING";
		for (let start = 0; start < items.length; start += ROWS_PER_INSERT) {
			const chunk = items.slice(start, start + ROWS_PER_INSERT);
			const values: unknown[] = [named(collection)];
			const rows = chunk.map((item) => {
				values.push(item.id, Math.round(item.score), JSON.stringify(item.value));
				const n = values.length;
				return `(${p(1)}, ${p(n - 2)}, ${p(n - 1)}, ${p(n)})`;
			});
			await query(
				`INSERT INTO ${table} (collection, id, score, value) VALUES ${rows.join(", ")} ON CONFLICT (collection, id) ${conflict}`,
				values,
			);
		}
	};

	return {
		add: (collection, items) => insert(collection, items, false),
		put: (collection, item) => insert(collection, [item], true),
		async get(collection, id) {
			const rows = (await query(`SELECT id, score, value FROM ${table} WHERE collection = ${p(1)} AND id = ${p(2)}`, [
				named(collection),
				id,
			])) as Row[];
			return rows[0] ? itemOf(rows[0]) : undefined;
		},
		async lowest(collection, bound, limit): Promise<LowestItems> {
			const c = named(collection);
			const at = Math.floor(bound);
			const items =
				limit > 0
					? ((await query(
							`SELECT id, score, value FROM ${table} WHERE collection = ${p(1)} AND score <= ${p(2)} ORDER BY score, id LIMIT ${p(3)}`,
							[c, at, Math.floor(limit)],
						)) as Row[])
					: [];
			const [counts] = (await query(
				`SELECT (SELECT COUNT(*) FROM ${table} WHERE collection = ${p(1)} AND score <= ${p(2)}) AS due,
				        (SELECT MIN(score) FROM ${table} WHERE collection = ${p(1)} AND score > ${p(2)}) AS next,
				        (SELECT COUNT(*) FROM ${table} WHERE collection = ${p(1)}) AS total`,
				[c, at],
			)) as Array<{ due: number | string; next: number | string | null; total: number | string }>;
			const next = counts?.next;
			return {
				items: items.map(itemOf),
				count: Number(counts?.due ?? 0),
				total: Number(counts?.total ?? 0),
				...(next !== null && next !== undefined ? { next: Number(next) } : {}),
			};
		},
		async all(collection) {
			const rows = (await query(`SELECT id, score, value FROM ${table} WHERE collection = ${p(1)}`, [
				named(collection),
			])) as Row[];
			return rows.map(itemOf).sort(byScore);
		},
		async remove(collection, ids) {
			if (ids.length === 0) return;
			await query(
				pg
					? `DELETE FROM ${table} WHERE collection = $1 AND id = ANY($2)`
					: `DELETE FROM ${table} WHERE collection = ?1 AND id IN (SELECT value FROM json_each(?2))`,
				[named(collection), pg ? [...ids] : JSON.stringify(ids)],
			);
		},
		async drop(collection) {
			await query(`DELETE FROM ${table} WHERE collection = ${p(1)}`, [named(collection)]);
		},
		getMany: (keys) => keyv.getMany([...keys]),
	};
}
