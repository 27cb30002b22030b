/**
 * Scored items (scored-items.ts) on Redis: a collection is a hash `<key>` (id -> item JSON) and a
 * sorted set `<key>#score` (id by score), under keyv's own key scheme (`<ns>::<ns>:<collection>`).
 * Every operation is one Lua script (one round trip; hash and set change together): a selection
 * is a `ZRANGEBYSCORE` with a `LIMIT` and an `HMGET` of what it returns, a grade one `HSET` and
 * one `ZADD`.
 */

import type Keyv from "keyv";
import { isKeyvRedis } from "./drivers.ts";
import { REDIS_CONNECT_TIMEOUT_MS } from "./keyv.ts";
import { runScript, type ScriptClient } from "./redis-script.ts";
import { byScore, type ScoredItem, type ScoredItems } from "./scored-items.ts";

/** KEYS: hash, set; ARGV: id, score, value, ... Items whose id the hash holds are left alone. */
const ADD = `
for i = 1, #ARGV, 3 do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 2]) == 1 then redis.call('ZADD', KEYS[2], ARGV[i + 1], ARGV[i]) end
end
return 1
`;
/** KEYS: hash, set; ARGV: id, score, value. */
const PUT = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
`;
/** KEYS: hash, set; ARGV: id. */
const GET = `
return {redis.call('HGET', KEYS[1], ARGV[1]), redis.call('ZSCORE', KEYS[2], ARGV[1])}
`;
/** KEYS: hash, set; ARGV: bound, limit. Ids with scores up to the bound, their values, count, next, total. */
const LOWEST = `
local ids = {}
if tonumber(ARGV[2]) > 0 then ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[2]) end
local values = {}
if #ids > 0 then
  local names = {}
  for i = 1, #ids, 2 do names[#names + 1] = ids[i] end
  values = redis.call('HMGET', KEYS[1], unpack(names))
end
local count = redis.call('ZCOUNT', KEYS[2], '-inf', ARGV[1])
local after = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return {ids, values, count, after, redis.call('ZCARD', KEYS[2])}
`;
/** KEYS: hash, set. */
const ALL = `
return {redis.call('HGETALL', KEYS[1]), redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')}
`;
/** KEYS: hash, set; ARGV: ids. */
const REMOVE = `
for i = 1, #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
end
return 1
`;

const texts = (v: unknown): Array<string | null> =>
	Array.isArray(v) ? v.map((x) => (typeof x === "string" ? x : null)) : [];

/** Scored items on the keyv's Redis; undefined when it is not on Redis. */
export function redisScoredItems(keyv: Keyv): ScoredItems | undefined {
	const store: unknown = keyv.store;
	if (!isKeyvRedis(store)) return undefined;
	const ns = keyv.namespace ?? "";
	// keyv prefixes `namespace:`, and the Redis adapter its own `namespace::` (state-atomic.ts does the same).
	const hashOf = (collection: string) => (ns === "" ? collection : `${ns}::${ns}:${collection}`);
	const client = async (): Promise<ScriptClient> => {
		const c = await store.getClient();
		// Ours is always a plain client (keyv.ts creates it), never a cluster; commands need it ready (no offline queue).
		const live = c as unknown as { isReady: boolean; once(event: "ready", f: () => void): void };
		if (!live.isReady)
			await new Promise<void>((done, fail) => {
				const timer = setTimeout(() => fail(new Error("the Redis connection is not ready")), REDIS_CONNECT_TIMEOUT_MS);
				live.once("ready", () => {
					clearTimeout(timer);
					done();
				});
				if (live.isReady) {
					clearTimeout(timer);
					done();
				}
			});
		return c as unknown as ScriptClient;
	};
	const call = async (script: string, collection: string, args: string[]): Promise<unknown> => {
		const hash = hashOf(collection);
		return runScript(await client(), script, { keys: [hash, `${hash}#score`], arguments: args });
	};
	const parse = (id: string, score: unknown, value: string | null): ScoredItem | undefined =>
		value === null ? undefined : { id, score: Number(score), value: JSON.parse(value) };

	return {
		async add(collection, items) {
			if (items.length === 0) return;
			await call(
				ADD,
				collection,
				items.flatMap((i) => [i.id, String(Math.round(i.score)), JSON.stringify(i.value)]),
			);
		},
		async put(collection, item) {
			await call(PUT, collection, [item.id, String(Math.round(item.score)), JSON.stringify(item.value)]);
		},
		async get(collection, id) {
			const [value, score] = texts(await call(GET, collection, [id]));
			return parse(id, score, value ?? null);
		},
		async lowest(collection, bound, limit) {
			const reply = await call(LOWEST, collection, [String(Math.floor(bound)), String(Math.max(0, Math.floor(limit)))]);
			const [ids, values, count, after, total] = Array.isArray(reply) ? reply : [];
			const pairs = texts(ids);
			const found = texts(values);
			const items: ScoredItem[] = [];
			for (let i = 0; i < pairs.length; i += 2) {
				const item = parse(pairs[i] ?? "", pairs[i + 1], found[i / 2] ?? null);
				if (item) items.push(item);
			}
			const next = texts(after)[1];
			return {
				items,
				count: Number(count ?? 0),
				total: Number(total ?? 0),
				...(next !== null && next !== undefined ? { next: Number(next) } : {}),
			};
		},
		async all(collection) {
			const reply = await call(ALL, collection, []);
			const [hash, scores] = Array.isArray(reply) ? reply : [];
			const scoreOf = new Map<string, string | null>();
			const pairs = texts(scores);
			for (let i = 0; i < pairs.length; i += 2) scoreOf.set(pairs[i] ?? "", pairs[i + 1] ?? null);
			const fields = texts(hash);
			const out: ScoredItem[] = [];
			for (let i = 0; i < fields.length; i += 2) {
				const id = fields[i] ?? "";
				const item = parse(id, scoreOf.get(id), fields[i + 1] ?? null);
				if (item) out.push(item);
			}
			return out.sort(byScore);
		},
		async remove(collection, ids) {
			if (ids.length > 0) await call(REMOVE, collection, [...ids]);
		},
		async drop(collection) {
			const hash = hashOf(collection);
			const c = (await client()) as unknown as { del(keys: string[]): Promise<unknown> };
			await c.del([hash, `${hash}#score`]);
		},
		getMany: (keys) => keyv.getMany([...keys]),
	};
}
