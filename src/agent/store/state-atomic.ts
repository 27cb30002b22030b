/**
 * Atomic set-if-absent and increment under a keyv namespace, straight on the backend's own
 * client, in keyv's value format (`{"value": v, "expires": ms}` under keyv's key), so keyv's
 * get() reads what they write: a Lua script on Redis, one `INSERT ... ON CONFLICT` statement
 * on PostgreSQL and on SQLite. Several processes sharing the store cannot both win a
 * setIfAbsent, nor lose each other's increments.
 */

import type KeyvPostgres from "@keyv/postgres";
import KeyvSqlite from "@keyv/sqlite";
import type Keyv from "keyv";
import { isKeyvPostgres, isKeyvRedis } from "./drivers.ts";
import { REDIS_CONNECT_TIMEOUT_MS } from "./keyv.ts";
import { runScript, type ScriptClient } from "./redis-script.ts";

/** A change to an object's fields (StateStore.updateFields): numbers added, strings set, fields dropped. */
export interface FieldChange {
	add?: Record<string, number>;
	set?: Record<string, string>;
	drop?: string[];
}

/** The atomic operations of the state store. */
export interface AtomicOps {
	setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean>;
	increment(key: string, by: number, ttlMs?: number): Promise<number>;
	updateFields(key: string, change: FieldChange, ttlMs?: number): Promise<Record<string, unknown>>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `old` (an object, else `{}`) with `change` applied: what every backend's updateFields computes. */
export function mergeFields(old: unknown, change: FieldChange): Record<string, unknown> {
	const next: Record<string, unknown> = isObject(old) ? { ...old } : {};
	for (const [field, by] of Object.entries(change.add ?? {})) {
		const was = next[field];
		const sum = (typeof was === "number" && Number.isFinite(was) ? was : 0) + Math.round(by);
		if (sum === 0) delete next[field];
		else next[field] = sum;
	}
	for (const [field, value] of Object.entries(change.set ?? {})) next[field] = value;
	for (const field of change.drop ?? []) delete next[field];
	return next;
}

/** The change's parts as JSON texts (integers added; the backends read them as JSON objects and a list). */
function changeTexts(change: FieldChange): { add: string; set: string; drop: string } {
	const add: Record<string, number> = {};
	for (const [field, by] of Object.entries(change.add ?? {})) if (Number.isFinite(by)) add[field] = Math.round(by);
	return { add: JSON.stringify(add), set: JSON.stringify(change.set ?? {}), drop: JSON.stringify(change.drop ?? []) };
}

/** The stored value of an updateFields reply (the object as JSON text). */
function objectOf(text: unknown): Record<string, unknown> {
	const parsed: unknown = typeof text === "string" ? JSON.parse(text) : text;
	return isObject(parsed) ? parsed : {};
}

/** Absent, or expired (keyv leaves an expired value in place until it is read). */
const REDIS_SET_IF_ABSENT = `
local old = redis.call('GET', KEYS[1])
if old then
  local ok, data = pcall(cjson.decode, old)
  if not ok or type(data) ~= 'table' or type(data.expires) ~= 'number' or data.expires > tonumber(ARGV[3]) then return 0 end
end
if ARGV[2] == '' then redis.call('SET', KEYS[1], ARGV[1]) else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1
`;
/** Integers only (counters, token sums): cjson would print large floats in exponent form. */
const REDIS_INCREMENT = `
local n = 0
local old = redis.call('GET', KEYS[1])
if old then
  local ok, data = pcall(cjson.decode, old)
  if ok and type(data) == 'table' and type(data.value) == 'number'
    and (type(data.expires) ~= 'number' or data.expires > tonumber(ARGV[3])) then n = data.value end
end
n = n + tonumber(ARGV[1])
local text = string.format('%d', n)
if ARGV[2] == '' then redis.call('SET', KEYS[1], '{"value":' .. text .. '}')
else redis.call('SET', KEYS[1], '{"value":' .. text .. ',"expires":' .. ARGV[4] .. '}', 'PX', ARGV[2]) end
return text
`;

/**
 * Fields of an object value: added (dropped at 0), set, dropped. cjson prints integers exactly up to
 * 14 digits (token sums stay far below). An empty table prints as `{}` (cjson's default).
 */
const REDIS_UPDATE_FIELDS = `
local obj = {}
local old = redis.call('GET', KEYS[1])
if old then
  local ok, data = pcall(cjson.decode, old)
  if ok and type(data) == 'table' and type(data.value) == 'table'
    and (type(data.expires) ~= 'number' or data.expires > tonumber(ARGV[3])) then obj = data.value end
end
for k, v in pairs(cjson.decode(ARGV[1])) do
  local n = obj[k]
  if type(n) ~= 'number' then n = 0 end
  n = n + v
  if n == 0 then obj[k] = nil else obj[k] = n end
end
for k, v in pairs(cjson.decode(ARGV[5])) do obj[k] = v end
for _, k in ipairs(cjson.decode(ARGV[6])) do obj[k] = nil end
local text = cjson.encode(obj)
if ARGV[2] == '' then redis.call('SET', KEYS[1], '{"value":' .. text .. '}')
else redis.call('SET', KEYS[1], '{"value":' .. text .. ',"expires":' .. ARGV[4] .. '}', 'PX', ARGV[2]) end
return text
`;

/** keyv's stored text of a value. */
const wrapped = (value: unknown, ttlMs: number | undefined, now: number): string =>
	JSON.stringify(ttlMs !== undefined && ttlMs > 0 ? { value, expires: now + ttlMs } : { value });

/** True for a backend several processes share (Redis, PostgreSQL); SQLite and memory belong to one process. */
export function isSharedBackend(keyv: Keyv): boolean {
	return isKeyvRedis(keyv.store) || isKeyvPostgres(keyv.store);
}

/** The atomic operations on the keyv's backend, or undefined for a backend without them (memory: serialize in-process). */
export function atomicOps(keyv: Keyv): AtomicOps | undefined {
	const store: unknown = keyv.store;
	const ns = keyv.namespace ?? "";
	// keyv prefixes `namespace:`, and the adapter its own `namespace` + separator (Redis only).
	const keyvKey = (key: string) => (ns === "" ? key : `${ns}:${key}`);
	if (isKeyvRedis(store)) {
		const redisKey = (key: string) => (ns === "" ? key : `${ns}::${keyvKey(key)}`);
		// getClient() returns once a connection is under way; commands need it ready (no offline queue).
		const ready = async () => {
			const client = await store.getClient();
			// Ours is always a plain client (keyv.ts creates it), never a cluster.
			const isReady = () => (client as unknown as { isReady: boolean }).isReady;
			if (isReady()) return client;
			await new Promise<void>((done, fail) => {
				const timer = setTimeout(() => fail(new Error("the Redis connection is not ready")), REDIS_CONNECT_TIMEOUT_MS);
				client.once("ready", () => {
					clearTimeout(timer);
					done();
				});
				if (isReady()) {
					clearTimeout(timer);
					done();
				}
			});
			return client;
		};
		const ttl = (ttlMs?: number) => (ttlMs !== undefined && ttlMs > 0 ? String(Math.round(ttlMs)) : "");
		return {
			async setIfAbsent(key, value, ttlMs) {
				const client = await ready();
				const now = Date.now();
				const reply = await runScript(client as unknown as ScriptClient, REDIS_SET_IF_ABSENT, {
					keys: [redisKey(key)],
					arguments: [wrapped(value, ttlMs, now), ttl(ttlMs), String(now)],
				});
				return reply === 1;
			},
			async increment(key, by, ttlMs) {
				const client = await ready();
				const now = Date.now();
				const reply = await runScript(client as unknown as ScriptClient, REDIS_INCREMENT, {
					keys: [redisKey(key)],
					arguments: [String(Math.round(by)), ttl(ttlMs), String(now), String(now + (ttlMs ?? 0))],
				});
				return Number(reply);
			},
			async updateFields(key, change, ttlMs) {
				const client = await ready();
				const now = Date.now();
				const texts = changeTexts(change);
				const reply = await runScript(client as unknown as ScriptClient, REDIS_UPDATE_FIELDS, {
					keys: [redisKey(key)],
					arguments: [texts.add, ttl(ttlMs), String(now), String(now + (ttlMs ?? 0)), texts.set, texts.drop],
				});
				return objectOf(reply);
			},
		};
	}
	if (isKeyvPostgres(store) || store instanceof KeyvSqlite) {
		const pgStyle = isKeyvPostgres(store);
		const opts = (store as unknown as { opts: { table: string; schema?: string } }).opts;
		const table = pgStyle ? `${opts.schema ?? "public"}.${opts.table}` : opts.table;
		// Postgres: $n placeholders and a jsonb cast; SQLite: ?n placeholders and json_extract.
		const p = (n: number) => (pgStyle ? `$${n}` : `?${n}`);
		const expires = (col: string) =>
			pgStyle ? `(${col}::jsonb->>'expires')::bigint` : `json_extract(${col}, '$.expires')`;
		const num = (col: string) =>
			pgStyle
				? `CASE WHEN jsonb_typeof(${col}::jsonb->'value') = 'number' THEN (${col}::jsonb->>'value')::bigint ELSE 0 END`
				: `CASE WHEN json_type(${col}, '$.value') IN ('integer', 'real') THEN json_extract(${col}, '$.value') ELSE 0 END`;
		const live = (col: string) =>
			`(${expires(col)} IS NULL OR ${expires(col)} > ${pgStyle ? `${p(3)}::bigint` : p(3)})`;
		const query = (sql: string, values: unknown[]): Promise<unknown[]> =>
			pgStyle
				? (store as KeyvPostgres).query(sql, values)
				: (store as unknown as { query: (sql: string, ...v: unknown[]) => Promise<unknown[]> }).query(sql, ...values);
		return {
			async setIfAbsent(key, value, ttlMs) {
				const now = Date.now();
				const rows = await query(
					`INSERT INTO ${table} (key, value) VALUES (${p(1)}, ${p(2)})
					 ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE NOT ${live(`${table}.value`)}
					 RETURNING key`,
					[keyvKey(key), wrapped(value, ttlMs, now), now],
				);
				return rows.length === 1;
			},
			async increment(key, by, ttlMs) {
				const now = Date.now();
				const exp = ttlMs !== undefined && ttlMs > 0 ? now + ttlMs : undefined;
				const make = (sum: string) =>
					pgStyle
						? `json_build_object('value', ${sum}${exp === undefined ? "" : `, 'expires', ${p(4)}::bigint`})::text`
						: `json_object('value', ${sum}${exp === undefined ? "" : `, 'expires', ${p(4)}`})`;
				const rows = (await query(
					`INSERT INTO ${table} (key, value) VALUES (${p(1)}, ${make(pgStyle ? `${p(2)}::bigint` : p(2))})
					 ON CONFLICT (key) DO UPDATE SET value = ${make(
							`(CASE WHEN ${live(`${table}.value`)} THEN ${num(`${table}.value`)} ELSE 0 END) + ${pgStyle ? `${p(2)}::bigint` : p(2)}`,
						)}
					 RETURNING value`,
					exp === undefined ? [keyvKey(key), Math.round(by), now] : [keyvKey(key), Math.round(by), now, exp],
				)) as Array<{ value: string }>;
				const stored = JSON.parse(rows[0]?.value ?? "{}") as { value?: unknown };
				return typeof stored.value === "number" ? stored.value : Number(stored.value);
			},
			async updateFields(key, change, ttlMs) {
				const now = Date.now();
				const exp = ttlMs !== undefined && ttlMs > 0 ? now + ttlMs : undefined;
				const texts = changeTexts(change);
				const sql = pgStyle ? pgUpdateFields(table) : sqliteUpdateFields(table);
				const values = [keyvKey(key), texts.add, now, exp ?? null, texts.set, texts.drop];
				const rows = (await query(sql, values)) as Array<{ value: string }>;
				const stored = JSON.parse(rows[0]?.value ?? "{}") as { value?: unknown };
				return objectOf(stored.value);
			},
		};
	}
	return undefined;
}

/**
 * updateFields on PostgreSQL, one statement: $1 key, $2 added numbers, $3 now, $4 expiry, $5 set
 * strings, $6 dropped fields (JSON). A live object value is the base, else `{}`.
 */
function pgUpdateFields(table: string): string {
	const live = `((${table}.value::jsonb->>'expires') IS NULL OR (${table}.value::jsonb->>'expires')::bigint > $3::bigint)`;
	const base = `(CASE WHEN ${live} AND jsonb_typeof(${table}.value::jsonb->'value') = 'object' THEN ${table}.value::jsonb->'value' ELSE '{}'::jsonb END)`;
	const merged = (b: string) => `((SELECT COALESCE(jsonb_object_agg(k, v), '{}'::jsonb) FROM (
		SELECT o.key AS k, o.value AS v FROM jsonb_each(${b}) o WHERE NOT ($2::jsonb ? o.key)
		UNION ALL
		SELECT a.key, to_jsonb(COALESCE(CASE WHEN jsonb_typeof(${b}->a.key) = 'number' THEN (${b}->>a.key)::numeric END, 0) + a.value::numeric)
		FROM jsonb_each_text($2::jsonb) a
	) f WHERE v <> '0'::jsonb) || $5::jsonb) - ARRAY(SELECT jsonb_array_elements_text($6::jsonb))`;
	const wrap = (obj: string) =>
		`(jsonb_build_object('value', ${obj}) || CASE WHEN $4::bigint IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('expires', $4::bigint) END)::text`;
	return `INSERT INTO ${table} (key, value) VALUES ($1, ${wrap(merged("'{}'::jsonb"))})
		ON CONFLICT (key) DO UPDATE SET value = ${wrap(merged(base))}
		RETURNING value`;
}

/** updateFields on SQLite, one statement: ?1 key, ?2 added numbers, ?3 now, ?4 expiry, ?5 set strings, ?6 dropped fields. */
function sqliteUpdateFields(table: string): string {
	const live = `(json_extract(${table}.value, '$.expires') IS NULL OR json_extract(${table}.value, '$.expires') > ?3)`;
	const base = `(CASE WHEN ${live} AND json_type(${table}.value, '$.value') = 'object' THEN json_extract(${table}.value, '$.value') ELSE '{}' END)`;
	// json_patch drops a field patched with null: a sum of 0, or a dropped field.
	const merged = (b: string) => `json_patch(json_patch(json_patch(${b}, (SELECT json_group_object(a.key,
		CASE WHEN COALESCE((SELECT o.value FROM json_each(${b}) o WHERE o.key = a.key AND o.type IN ('integer', 'real')), 0) + a.value = 0 THEN NULL
		ELSE COALESCE((SELECT o.value FROM json_each(${b}) o WHERE o.key = a.key AND o.type IN ('integer', 'real')), 0) + a.value END)
		FROM json_each(?2) a)), ?5), (SELECT json_group_object(d.value, NULL) FROM json_each(?6) d))`;
	// A null expiry adds nothing (json_patch drops null fields).
	const wrap = (obj: string) => `json_patch(json_object('value', json(${obj})), json_object('expires', ?4))`;
	return `INSERT INTO ${table} (key, value) VALUES (?1, ${wrap(merged("'{}'"))})
		ON CONFLICT (key) DO UPDATE SET value = ${wrap(merged(base))}
		RETURNING value`;
}
