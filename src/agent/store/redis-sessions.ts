/**
 * The session store on Redis, for several processes sharing one store: a hash per session
 * (version and metadata), a list per session (one entry per message: a turn appends, it does
 * not rewrite the transcript), the index and the open sessions as sets, and leases
 * (`SET NX PX` with a random token; renew and release in one Lua script each, only when the
 * token matches) with a fencing number per grant. Every save is one Lua script: it checks
 * the version (compare-and-set) and the fence, then writes, atomically. Each session has an
 * inbox (a sorted set by sequence number) any process appends events to, and a `work` sorted
 * set says when a session is due for another taker (its holder's lease ran out with work left).
 */

import { randomUUID } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { Logger } from "../../core/contracts/logger.ts";
import { StoreConflictError, withDeadline } from "./errors.ts";
import { createRedisClient } from "./keyv.ts";
import { type BookLease, leaseBook } from "./lease-book.ts";
import { assembleRecord, legacyIds, legacyRecord, messageTracker, metaJson } from "./record-layout.ts";
import { runScript, type ScriptClient } from "./redis-script.ts";
import type { SessionInbox, SessionStore } from "./types.ts";

/**
 * Check the fence and the version, write the changed messages and the metadata, keep the sets, and drop the
 * inbox entries the record says were applied (ARGV[7], its `inbox` number): in the same write as their effect.
 */
const SAVE = `
if ARGV[2] ~= '' then
  local f = tonumber(redis.call('GET', KEYS[3]) or '0')
  if tonumber(ARGV[2]) < f then return {-2, f} end
end
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return {-1, v} end
local n = redis.call('LLEN', KEYS[2])
local len = tonumber(ARGV[4])
for i = 8, #ARGV, 2 do
  local idx = tonumber(ARGV[i])
  if idx < n then redis.call('LSET', KEYS[2], idx, ARGV[i + 1])
  else redis.call('RPUSH', KEYS[2], ARGV[i + 1]); n = n + 1 end
end
if len == 0 then redis.call('DEL', KEYS[2]) elseif n > len then redis.call('LTRIM', KEYS[2], 0, len - 1) end
redis.call('HSET', KEYS[1], 'v', v + 1, 'meta', ARGV[3])
redis.call('SADD', KEYS[4], ARGV[6])
if ARGV[5] == '1' then redis.call('SADD', KEYS[5], ARGV[6]) else redis.call('SREM', KEYS[5], ARGV[6]) end
redis.call('DEL', KEYS[6])
if tonumber(ARGV[7]) > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', ARGV[7]) end
return {v + 1, 0}
`;
/** Milliseconds by the server's clock (one clock for every process): `now` in the scripts below. */
const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
/**
 * Take the lease when free: the new fencing number and the session's stored version (-1: none stored; 0: a
 * record of the old layout), read in the same atomic step; {0, 0} when someone holds it. The session is marked
 * as worked on until the lease's expiry (`work` sorted set, score = when it is due for another taker).
 */
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  ${NOW}
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[3])
  local v = redis.call('HGET', KEYS[4], 'v')
  if v then v = tonumber(v) elseif redis.call('EXISTS', KEYS[5]) == 1 then v = 0 else v = -1 end
  return {redis.call('INCR', KEYS[2]), v}
end
return {0, 0}
`;
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  ${NOW}
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[3])
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;
/** Give the lease back; the session stays due (now) when work is left or its inbox holds entries. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  if ARGV[2] == '1' or redis.call('ZCARD', KEYS[2]) > 0 then
    ${NOW}
    redis.call('ZADD', KEYS[3], now, ARGV[3])
  else
    redis.call('ZREM', KEYS[3], ARGV[3])
  end
  return 1
end
return 0
`;
/**
 * Append an inbox entry (member "seq:body"), unless the session moved from the version given or is not stored
 * (deleted: forget-me, retention; an entry for it would keep who sent it); due now unless a holder marked it for later.
 */
const PUSH = `
if redis.call('HEXISTS', KEYS[4], 'v') == 0 and redis.call('EXISTS', KEYS[5]) == 0 then return 0 end
if ARGV[3] ~= '' and tonumber(redis.call('HGET', KEYS[4], 'v') or '0') ~= tonumber(ARGV[3]) then return 0 end
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], seq, seq .. ':' .. ARGV[1])
${NOW}
redis.call('ZADD', KEYS[3], 'NX', now, ARGV[2])
return seq
`;
const DUE = `
${NOW}
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
`;

/** Options of the Redis session store. */
export interface RedisSessionStoreOptions {
	/** Key prefix (default `learnharness:sessions`, the keyv namespace the old layout used). */
	namespace?: string;
	/** Longest one operation may take (default 10 s). */
	opTimeoutMs?: number;
	logger?: Logger;
	/** Hears connection errors (the start-up check reports the last one). */
	onError?: (error: unknown) => void;
}

/** The session store on the Redis server `url` names. Connects on first use. */
export function createRedisSessionStore(url: string, options: RedisSessionStoreOptions = {}): SessionStore {
	const ns = options.namespace ?? "learnharness:sessions";
	const ms = options.opTimeoutMs ?? 10_000;
	const client = createRedisClient(url, (error) => {
		options.onError?.(error);
		options.logger?.debug({ err: error }, "redis session store error");
	});
	let connecting: Promise<unknown> | undefined;
	const ready = async () => {
		if (client.isReady) return client;
		connecting ??= client.connect().catch((error: unknown) => {
			connecting = undefined;
			throw error;
		});
		await connecting;
		return client;
	};
	const op = <T>(what: string, work: (c: typeof client) => Promise<T>): Promise<T> =>
		withDeadline(what, ms, async () => work(await ready()));
	const script = (c: typeof client, text: string, options: { keys: string[]; arguments: string[] }) =>
		runScript(c as unknown as ScriptClient, text, options);
	const keys = (id: string) => ({
		hash: `${ns}:s:${id}`,
		list: `${ns}:m:${id}`,
		fence: `${ns}:f:${id}`,
		lease: `${ns}:l:${id}`,
		inbox: `${ns}:q:${id}`,
		inboxSeq: `${ns}:qs:${id}`,
		// The old layout (keyv over @keyv/redis prefixes the namespace twice).
		legacy: `${ns}::${ns}:session:${id}`,
	});
	const ids = `${ns}:ids`;
	/** Sessions worked on or waiting: score = when another process may take them (lease expiry, or now). */
	const work = `${ns}:work`;
	const open = `${ns}:open`;
	const legacyIndex = `${ns}::${ns}:index`;
	const legacyOpen = `${ns}::${ns}:open`;
	const tracker = messageTracker();
	/** Leases this store granted (the version known under them, whether they are still held): lease-book.ts. */
	const book = leaseBook();
	/** Per session, the inbox entries a save through this store dropped (up to this number; recent sessions). */
	const dropped = new LRUCache<string, number>({ max: 10_000 });
	let migrated = false;

	/** Move the old layout's index values into the sets, once (idempotent when processes race). */
	const migrateIndex = async (c: typeof client) => {
		if (migrated) return;
		const [index, opened] = await Promise.all([c.get(legacyIndex), c.get(legacyOpen)]);
		const all = legacyIds(index);
		if (all.length > 0) {
			await c.sAdd(ids, all);
			// Without the old open list every old session is a candidate; resume() skips ended ones.
			const openIds = opened === null ? all : legacyIds(opened);
			if (openIds.length > 0) await c.sAdd(open, openIds);
		}
		if (index !== null || opened !== null) await c.del([legacyIndex, legacyOpen]);
		migrated = true;
	};

	const lease = (sessionId: string, token: string, fence: number, ttlMs: number): BookLease => {
		const k = keys(sessionId);
		return {
			sessionId,
			fence,
			renew: () =>
				op("renewing a lease", async (c) => {
					const ok = await script(c, RENEW, { keys: [k.lease, work], arguments: [token, String(ttlMs), sessionId] });
					return ok === 1;
				}),
			// True when it was still ours (a failure to answer counts as ours: nothing says another took it).
			release: (left = false) =>
				op("releasing a lease", (c) =>
					script(c, RELEASE, { keys: [k.lease, k.inbox, work], arguments: [token, left ? "1" : "0", sessionId] }),
				).then(
					(released) => released === 1,
					(error: unknown) => {
						options.logger?.debug({ err: error, sessionId }, "releasing a lease failed");
						return true;
					},
				),
		};
	};

	const inbox: SessionInbox = {
		push: (sessionId, body, ifVersion) =>
			op(`queueing an event of ${sessionId}`, async (c) => {
				const k = keys(sessionId);
				return Number(
					await script(c, PUSH, {
						keys: [k.inbox, k.inboxSeq, work, k.hash, k.legacy],
						arguments: [body, sessionId, ifVersion === undefined ? "" : String(ifVersion)],
					}),
				);
			}),
		read: (sessionId, after, limit) =>
			op(`reading the inbox of ${sessionId}`, async (c) => {
				const members = await c.zRangeByScore(keys(sessionId).inbox, `(${after}`, "+inf", {
					LIMIT: { offset: 0, count: limit },
				});
				return members.flatMap((member) => {
					const colon = member.indexOf(":");
					const seq = Number(member.slice(0, colon));
					return colon > 0 && Number.isSafeInteger(seq) ? [{ seq, body: member.slice(colon + 1) }] : [];
				});
			}),
		count: (sessionId, from) =>
			op(`counting the inbox of ${sessionId}`, (c) => c.zCount(keys(sessionId).inbox, from, "+inf")),
		drop: (sessionId, upTo) => {
			// The save that marked them applied dropped them already (SAVE): no round trip.
			if ((dropped.get(sessionId) ?? 0) >= upTo) return Promise.resolve();
			return op(`dropping applied events of ${sessionId}`, async (c) => {
				await c.zRemRangeByScore(keys(sessionId).inbox, "-inf", upTo);
			});
		},
		due: (limit) =>
			op("listing sessions due", async (c) => {
				const due = await script(c, DUE, { keys: [work], arguments: [String(limit)] });
				return Array.isArray(due) ? due.filter((id): id is string => typeof id === "string") : [];
			}),
	};

	return {
		inbox,
		get: (sessionId) =>
			op(`reading session ${sessionId}`, async (c) => {
				const k = keys(sessionId);
				const [hash, list] = (await c.multi().hGetAll(k.hash).lRange(k.list, 0, -1).exec()) as unknown as [
					Record<string, string>,
					string[],
				];
				if (hash?.v === undefined) {
					const old = legacyRecord(await c.get(k.legacy));
					tracker.forget(sessionId);
					return old;
				}
				const version = Number(hash.v);
				const record = assembleRecord(
					JSON.parse(hash.meta ?? "null"),
					list.map((m) => JSON.parse(m)),
					version,
				);
				if (record) tracker.remember(record, version);
				return record;
			}),
		async set(record, saveOptions = {}) {
			const id = record.sessionId;
			const k = keys(id);
			const { writes, length } = tracker.changes(record);
			const expected = record.version ?? 0;
			const applied = Number.isSafeInteger(record.inbox) && (record.inbox ?? 0) > 0 ? (record.inbox as number) : 0;
			const args = [
				String(expected),
				saveOptions.fence === undefined ? "" : String(saveOptions.fence),
				metaJson(record),
				String(length),
				record.ended === undefined ? "1" : "0",
				id,
				String(applied),
				...writes.flatMap(([i, json]) => [String(i), json]),
			];
			const reply = (await op(`writing session ${id}`, (c) =>
				script(c, SAVE, { keys: [k.hash, k.list, k.fence, ids, open, k.legacy, k.inbox], arguments: args }),
			)) as [number, number];
			const [version, current] = reply;
			if (version < 0) book.forget(id);
			if (version === -1) {
				tracker.forget(id);
				throw new StoreConflictError(
					"store-conflict",
					`session ${id} was saved by another writer (stored version ${current}, this copy ${expected})`,
				);
			}
			if (version === -2)
				throw new StoreConflictError(
					"store-fenced",
					`session ${id}: the lease was granted again (fence ${current}) after this writer's (${saveOptions.fence})`,
				);
			record.version = version;
			tracker.remember(record, version);
			book.saved(id, saveOptions.fence, version);
			if (applied > 0) dropped.set(id, applied);
		},
		version: (sessionId) => {
			const known = book.version(sessionId);
			if (known !== undefined) return Promise.resolve(known);
			return op(`reading the version of ${sessionId}`, async (c) => {
				const v = await c.hGet(keys(sessionId).hash, "v");
				if (v !== null && v !== undefined) return Number(v);
				return (await c.exists(keys(sessionId).legacy)) ? 0 : undefined;
			});
		},
		async acquire(sessionId, ttlMs) {
			const k = keys(sessionId);
			const token = randomUUID();
			const asked = performance.now();
			const reply = await op("taking a lease", (c) =>
				script(c, ACQUIRE, {
					keys: [k.lease, k.fence, work, k.hash, k.legacy],
					arguments: [token, String(Math.max(1, Math.round(ttlMs))), sessionId],
				}),
			);
			const [fence, version] = Array.isArray(reply) ? reply.map(Number) : [0, -1];
			if (!fence || fence <= 0) return undefined;
			const known = version !== undefined && Number.isSafeInteger(version) && version >= 0 ? version : undefined;
			return book.granted(lease(sessionId, token, fence, ttlMs), ttlMs, asked, known);
		},
		holding: (sessionId, at) => book.holding(sessionId, at),
		delete: (sessionId) =>
			op(`deleting session ${sessionId}`, async (c) => {
				const k = keys(sessionId);
				tracker.forget(sessionId);
				book.forget(sessionId);
				dropped.delete(sessionId);
				const [removed] = (await c
					.multi()
					.del([k.hash, k.list, k.legacy, k.inbox, k.inboxSeq])
					.zRem(work, sessionId)
					.sRem(ids, sessionId)
					.sRem(open, sessionId)
					.exec()) as unknown as [number];
				return removed > 0;
			}),
		list: () =>
			op("listing sessions", async (c) => {
				await migrateIndex(c);
				return c.sMembers(ids);
			}),
		listOpen: () =>
			op("listing open sessions", async (c) => {
				await migrateIndex(c);
				return c.sMembers(open);
			}),
		async close() {
			// A client whose server went away is closed already: destroy() throws then, and there is nothing left to close.
			if (client.isOpen)
				await client.quit().catch(() => {
					if (client.isOpen) client.destroy();
				});
		},
	};
}
