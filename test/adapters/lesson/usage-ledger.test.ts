/**
 * The usage ledger: tokens per community, member and model per UTC day and month, charges
 * that several processes sharing Redis or PostgreSQL cannot lose, records of the earlier
 * one-JSON-value format still read, and forget-me moving a member's tokens to the
 * anonymous bucket with no id or name left in the store.
 */

import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
	ANONYMOUS_MEMBER,
	memberTokens,
	periodTokens,
	UsageLedger,
} from "../../../src/adapters/lesson/usage-ledger.ts";
import { createMemoryStateStore, openStateStore, type StateStore } from "../../../src/agent/index.ts";
import type { TurnUsage } from "../../../src/core/contracts/budget.ts";
import { counted } from "../../../testkit/counted.ts";
import { listening } from "../../fixtures/redis-server.ts";
import { dropRedisKeys, POSTGRES_URL, REDIS_URL, runPrefix } from "../../fixtures/shared-stores.ts";

const at = new Date("2025-03-01T10:00:00Z");
const usage = (id: string, input: number, output: number, cached = 0, model = "m1", name?: string): TurnUsage => ({
	sessionId: "s",
	by: { id, ...(name ? { name } : {}) },
	agent: "teacher",
	model,
	inputTokens: input,
	outputTokens: output,
	cachedInputTokens: cached,
});

/** A memory store that remembers every key written, so a test can search all it holds (a leftover search). */
function recordingStore(): { store: StateStore; dump: () => Promise<string> } {
	const store = createMemoryStateStore();
	const seen = new Set<string>();
	const saw = (key: string) => {
		seen.add(key);
	};
	const wrap: StateStore = {
		get: (k) => store.get(k),
		set: (k, v, t) => {
			saw(k);
			return store.set(k, v, t);
		},
		setIfAbsent: (k, v, t) => {
			saw(k);
			return store.setIfAbsent(k, v, t);
		},
		increment: (k, b, t) => {
			saw(k);
			return store.increment(k, b, t);
		},
		updateFields: (k, c, t) => {
			saw(k);
			return store.updateFields(k, c, t);
		},
		delete: (k) => store.delete(k),
		close: () => store.close(),
	};
	const dump = async () => {
		const rows: string[] = [];
		for (const k of seen) {
			const v = await store.get(k);
			if (v !== undefined) rows.push(`${k} ${JSON.stringify(v)}`);
		}
		return rows.join("\n");
	};
	return { store: wrap, dump };
}

describe("UsageLedger on one process's store", () => {
	it("a charge is one store write once its member was checked, whatever the number of members", async () => {
		const store = createMemoryStateStore();
		const { proxy: counting, calls } = counted(store);
		const ledger = new UsageLedger(counting);
		for (let i = 0; i < 20; i++) await ledger.charge("g", usage(`member-${i}`, 100, 10, 0, "m1", `M ${i}`), at);
		calls.length = 0;
		await ledger.charge("g", usage("u1", 10, 1, 2, "m1", "Zelda"), at);
		expect(calls).toEqual(["get", "updateFields"]); // the tombstone, then the charge
		for (let i = 0; i < 5; i++) {
			expect(await ledger.spend.reserve("g", "u1", 20, 10, { community: 0, member: 0 }, at)).toEqual({
				ok: true,
				day: "2025-03-01",
				tokens: 20,
			});
			calls.length = 0;
			await ledger.charge("g", usage("u1", 10, 1, 2, "m1", "Zelda"), at, { tokens: 20, where: "2025-03-01" });
			expect(calls).toEqual(["updateFields"]); // tokens, name and the reservation's true-up at once
		}
		expect(memberTokens((await ledger.day("g", at)).u1)).toBe(66);
		expect(await ledger.spend.today("g", "u1", at)).toEqual({ community: 20 * 110 + 66, member: 66 });
	});

	it("sums per member and model, per day and month, with the last known name", async () => {
		const ledger = new UsageLedger(createMemoryStateStore());
		await ledger.charge("g", usage("u1", 100, 10, 40, "m1", "Ada"), at);
		await ledger.charge("g", usage("u1", 50, 5, 0, "m2", "Ada L."), at);
		await ledger.charge("g", usage("u2", 7, 3), at);
		await ledger.charge("g", usage("u1", 1, 1), new Date("2025-03-02T00:00:01Z"));
		await ledger.charge("other", usage("u1", 1000, 1000), at);
		const day = await ledger.day("g", at);
		expect(day).toEqual({
			u1: {
				name: "Ada L.",
				models: { m1: { input: 100, output: 10, cached: 40 }, m2: { input: 50, output: 5, cached: 0 } },
			},
			u2: { models: { m1: { input: 7, output: 3, cached: 0 } } },
		});
		expect(periodTokens(day)).toBe(175);
		expect(memberTokens((await ledger.day("g", new Date("2025-03-02T05:00:00Z"))).u1)).toBe(2);
		expect(periodTokens(await ledger.month("g", at))).toBe(177);
		expect(await ledger.day("nobody", at)).toEqual({});
	});

	it("counts charges made without awaiting them before a read in the same process", async () => {
		const ledger = new UsageLedger(createMemoryStateStore());
		for (let i = 0; i < 20; i++) void ledger.charge("g", usage(`u${i % 3}`, 2, 1), at);
		expect(periodTokens(await ledger.day("g", at))).toBe(60);
	});

	it("reads a record of the earlier one-value format, summed with new charges", async () => {
		const store = createMemoryStateStore();
		await store.set("usage:g:2025-03-01", {
			u1: { name: "Ada", models: { m1: { input: 10, output: 2, cached: 1 } } },
			broken: { models: null },
			u3: { models: { m1: { input: "x", output: -4 } } },
		});
		const ledger = new UsageLedger(store);
		await ledger.charge("g", usage("u1", 5, 1, 1), at);
		await ledger.charge("g", usage("u2", 3, 3), at);
		expect(await ledger.day("g", at)).toEqual({
			u1: { name: "Ada", models: { m1: { input: 15, output: 3, cached: 2 } } },
			u2: { models: { m1: { input: 3, output: 3, cached: 0 } } },
			u3: { models: { m1: { input: 0, output: 0, cached: 0 } } },
		});
	});

	it("forget-me: the member's tokens go to the anonymous bucket, no id or name stays, totals kept", async () => {
		const { store, dump } = recordingStore();
		await store.set("usage:g:2025-03", { u1: { name: "Zelda", models: { m1: { input: 1, output: 1, cached: 0 } } } });
		// Earlier versions' records still alive on 2025-03-01: last month's (kept 40 days) and the day before
		// yesterday's (kept 2 days after its last write, late on 2025-02-27).
		for (const period of ["2025-02", "2025-02-27"])
			await store.set(`usage:g:${period}`, {
				u1: { name: "Zelda", models: { m1: { input: 1, output: 0, cached: 0 } } },
			});
		const ledger = new UsageLedger(store);
		await ledger.charge("g", usage("u1", 100, 10, 0, "m1", "Zelda"), at);
		await ledger.charge("g", usage("u1", 20, 2, 0, "m2", "Zelda"), at);
		await ledger.charge("g", usage("u2", 5, 5, 0, "m1", "Bo"), at);
		const before = periodTokens(await ledger.month("g", at));
		expect(await dump()).toMatch(/u1|Zelda/);
		await ledger.anonymise("g", "u1", at);
		const month = await ledger.month("g", at);
		expect(periodTokens(month)).toBe(before);
		expect(Object.keys(month).sort()).toEqual([ANONYMOUS_MEMBER, "u2"]);
		expect(month[ANONYMOUS_MEMBER]).toEqual({
			models: { m1: { input: 101, output: 11, cached: 0 }, m2: { input: 20, output: 2, cached: 0 } },
		});
		expect(month.u2?.name).toBe("Bo");
		expect(periodTokens(await ledger.day("g", at))).toBe(142);
		expect(await dump()).not.toMatch(/u1|Zelda/);
		// Charged again after forget-me: counted under their id again, the anonymous bucket kept.
		await ledger.charge("g", usage("u1", 1, 0), at);
		const after = await ledger.day("g", at);
		expect(memberTokens(after.u1)).toBe(1);
		expect(memberTokens(after[ANONYMOUS_MEMBER])).toBe(132);
	});
});

const redisUp = await listening(6379);
const postgresUp = await listening(5432);
const ns = runPrefix("ledger");

afterAll(async () => {
	if (redisUp) await dropRedisKeys(ns);
	if (postgresUp) {
		const client = new pg.Client({ connectionString: POSTGRES_URL });
		await client.connect();
		await client.query("DELETE FROM keyv WHERE key LIKE $1", [`${ns}%`]);
		await client.end();
	}
});

// Two state stores on one backend stand for two processes: each has its own connection and ledger.
describe.each([
	["Redis (127.0.0.1:6379)", redisUp, REDIS_URL],
	["PostgreSQL (127.0.0.1:5432)", postgresUp, POSTGRES_URL],
])("UsageLedger shared by two processes on %s", (name, up, url) => {
	it.skipIf(!up)(
		"200 charges each, at once, on one community: exact totals; forget-me on both",
		async () => {
			const stores = [openStateStore(url, ns), openStateStore(url, ns)];
			const community = `g-${name.slice(0, 2)}`;
			try {
				// A fresh Redis client takes commands once connected (no offline queue); increment waits for that.
				await Promise.all(stores.map((s) => s.increment(`${community}:warm`, 1, 60_000)));
				const [a, b] = stores.map((s) => new UsageLedger(s as StateStore)) as [UsageLedger, UsageLedger];
				const members = ["u1", "u2", "u3"];
				await Promise.all(
					Array.from({ length: 400 }, (_, i) =>
						(i % 2 ? a : b).charge(
							community,
							usage(members[i % 3] as string, 10, 3, 1, i % 5 === 0 ? "m2" : "m1", `name-${i % 3}`),
							at,
						),
					),
				);
				for (const ledger of [a, b]) {
					const day = await ledger.day(community, at);
					expect(periodTokens(day)).toBe(400 * 13);
					const cached = Object.values(day).flatMap((m) => Object.values(m.models).map((t) => t.cached));
					expect(cached.reduce((s, c) => s + c, 0)).toBe(400);
					expect(memberTokens(day.u1)).toBe(134 * 13);
					expect(periodTokens(await ledger.month(community, at))).toBe(400 * 13);
				}
				// Forget-me in one process while the other keeps charging someone else.
				await Promise.all([
					a.anonymise(community, "u1", at),
					...Array.from({ length: 20 }, () => b.charge(community, usage("u2", 1, 1), at)),
				]);
				const month = await b.month(community, at);
				expect(periodTokens(month)).toBe(400 * 13 + 40);
				expect(Object.keys(month)).not.toContain("u1");
				expect(memberTokens(month[ANONYMOUS_MEMBER])).toBe(134 * 13);
			} finally {
				await Promise.all(stores.map((s) => s.close()));
			}
		},
		60_000,
	);
});
