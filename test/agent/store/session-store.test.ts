import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openKeyv, StoreUrlError, sqlitePathOf } from "../../../src/agent/store/keyv.ts";
import { createSessionStore } from "../../../src/agent/store/session-store.ts";
import type { SessionRecord } from "../../../src/agent/store/types.ts";
import { listening } from "../../fixtures/redis-server.ts";
import { dropPgTables, dropRedisKeys } from "../../fixtures/shared-stores.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";
const redisUp = await listening(6379);
const postgresUp = await listening(5432);

const tempDir = mkdtempSync(join(tmpdir(), "lh-store-"));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

function record(sessionId: string, topic = "fractions"): SessionRecord {
	return {
		format: 1,
		sessionId,
		topic,
		learner: { id: "u1", name: "Ada" },
		mode: "solo",
		startedBy: { id: "u1" },
		createdAt: "2026-01-01T00:00:00.000Z",
		updatedAt: "2026-01-01T00:00:00.000Z",
		messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }],
		usage: { inputTokens: 1, outputTokens: 2, cachedInputTokens: 0 },
		extra: { planKey: "abc" },
	};
}

/** The same contract, run against every backend. */
function storeContract(name: string, url: () => string) {
	const namespace = `lh-test-${process.pid}-${Date.now()}-${name}`;
	afterAll(async () => {
		if (name === "redis") await dropRedisKeys(namespace);
		// Table prefixes are the namespace's letters and digits (see tablePrefixOf).
		if (name === "postgres") await dropPgTables(namespace.replace(/[^a-z0-9]+/gi, "_").slice(0, 20));
	});
	it("round-trips records, lists ids through the index, deletes", async () => {
		const store = await createSessionStore(url(), undefined, { namespace });
		try {
			expect(await store.get("discord:g:t1")).toBeUndefined();
			await store.set(record("discord:g:t1"));
			await Promise.all([store.set(record("slack:T:C:1.2")), store.set(record("terminal:x"))]);
			const stored = await store.get("discord:g:t1");
			if (!stored) throw new Error("not stored");
			await store.set({ ...stored, topic: "derivatives" });
			expect((await store.get("discord:g:t1"))?.topic).toBe("derivatives");
			expect((await store.get("slack:T:C:1.2"))?.messages[0]?.parts).toEqual([{ type: "text", text: "hi" }]);
			expect((await store.list()).sort()).toEqual(["discord:g:t1", "slack:T:C:1.2", "terminal:x"]);
			expect(await store.delete("terminal:x")).toBe(true);
			expect(await store.get("terminal:x")).toBeUndefined();
			expect((await store.list()).sort()).toEqual(["discord:g:t1", "slack:T:C:1.2"]);
		} finally {
			await store.delete("discord:g:t1");
			await store.delete("slack:T:C:1.2");
			await store.close();
		}
	});
	it("saves what the record holds now (message JSON is reused only for the same message object)", async () => {
		const store = await createSessionStore(url(), undefined, { namespace: `${namespace}-j` });
		try {
			const r = record("terminal:json");
			await store.set(r);
			r.messages[0] = { id: "m1", role: "user", parts: [{ type: "text", text: "replaced" }] };
			r.messages.push({ id: "m2", role: "assistant", parts: [{ type: "text", text: 'quote " and :colon' }] });
			r.extra.k = ":starts-with-colon";
			await store.set(r);
			const back = await store.get("terminal:json");
			expect(back?.messages).toEqual(r.messages);
			expect(back?.extra.k).toBe(":starts-with-colon");
		} finally {
			await store.delete("terminal:json");
			await store.close();
		}
	});
	it("keeps an index of the sessions not ended (what a restart scans), built once for an older store", async () => {
		const ns = `${namespace}-o`;
		const store = await createSessionStore(url(), undefined, { namespace: ns });
		await store.set(record("terminal:open-1"));
		await store.set(record("terminal:open-2"));
		const ended = {
			...(await store.get("terminal:open-2"))!,
			ended: { reason: "completed" as const, at: "2026-01-01T01:00:00.000Z" },
		};
		await store.set(ended);
		expect(await store.listOpen()).toEqual(["terminal:open-1"]);
		expect((await store.list()).sort()).toEqual(["terminal:open-1", "terminal:open-2"]);
		await store.delete("terminal:open-1");
		expect(await store.listOpen()).toEqual([]);
		await store.set(record("terminal:open-3"));
		await store.close();
		if (name === "sqlite") {
			// A store written before the open index existed: derived from the records on first use.
			const keyv = openKeyv(url(), ns);
			await keyv.delete("open");
			await keyv.disconnect();
		}
		const reopened = await createSessionStore(url(), undefined, { namespace: ns });
		try {
			expect(await reopened.listOpen()).toEqual(["terminal:open-3"]);
		} finally {
			await reopened.delete("terminal:open-3");
			await reopened.delete("terminal:open-2");
			await reopened.close();
		}
	});
	it("refuses a stale copy (compare-and-set on the version) and writes nothing", async () => {
		const store = await createSessionStore(url(), undefined, { namespace: `${namespace}-v` });
		try {
			const fresh = record("terminal:cas");
			await store.set(fresh);
			expect(fresh.version).toBe(1);
			const a = (await store.get("terminal:cas"))!;
			const b = (await store.get("terminal:cas"))!;
			a.messages.push({ id: "m2", role: "assistant", parts: [{ type: "text", text: "a" }] });
			await store.set(a);
			b.messages.push({ id: "m2", role: "assistant", parts: [{ type: "text", text: "b" }] });
			await expect(store.set(b)).rejects.toMatchObject({ code: "store-conflict" });
			// A second record for an id that exists is a conflict too (two starts of one lesson).
			await expect(store.set(record("terminal:cas"))).rejects.toMatchObject({ code: "store-conflict" });
			const back = (await store.get("terminal:cas"))!;
			expect(back.version).toBe(2);
			expect(back.messages.map((m) => m.parts)).toEqual([
				[{ type: "text", text: "hi" }],
				[{ type: "text", text: "a" }],
			]);
			expect(await store.version("terminal:cas")).toBe(2);
		} finally {
			await store.delete("terminal:cas");
			await store.close();
		}
	});
	it("grants a lease to one holder at a time, with a growing fence; a stale fence is refused", async () => {
		const store = await createSessionStore(url(), undefined, { namespace: `${namespace}-l` });
		try {
			await store.set(record("terminal:lease"));
			const first = await store.acquire("terminal:lease", 200);
			expect(first).toBeDefined();
			expect(await store.acquire("terminal:lease", 200)).toBeUndefined();
			expect(await first?.renew()).toBe(true);
			await first?.release();
			const second = await store.acquire("terminal:lease", 10_000);
			expect(second?.fence).toBeGreaterThan(first?.fence ?? Infinity);
			expect(await first?.renew()).toBe(false);
			const r = (await store.get("terminal:lease"))!;
			await expect(store.set(r, { fence: first?.fence ?? 0 })).rejects.toMatchObject({ code: "store-fenced" });
			await store.set(r, { fence: second?.fence ?? 0 });
			await second?.release();
		} finally {
			await store.delete("terminal:lease");
			await store.close();
		}
	});
	it("every store has an inbox: a push is kept across a reopen, checked against the version, read, counted, dropped; a session with entries and no lease is due", async () => {
		const ns = `${namespace}-q`;
		let store = await createSessionStore(url(), undefined, { namespace: ns });
		const id = "terminal:inbox";
		try {
			expect(await store.inbox.push(id, "nobody", undefined)).toBe(0); // not stored: nothing appended
			await store.set(record(id));
			const version = await store.version(id);
			const first = await store.inbox.push(id, "one", version);
			expect(first).toBeGreaterThan(0);
			expect(await store.inbox.push(id, "stale", (version ?? 0) + 5)).toBe(0);
			const second = await store.inbox.push(id, "two");
			expect(second).toBeGreaterThan(first);
			expect(await store.inbox.due(100)).toContain(id);
			const lease = await store.acquire(id, 10_000);
			expect(await store.inbox.due(100)).not.toContain(id); // held: not due
			// Acknowledged means recorded: another store on the backend (a restart) reads both.
			if (name === "sqlite") await store.close();
			const again = name === "sqlite" ? await createSessionStore(url(), undefined, { namespace: ns }) : store;
			if (name === "sqlite") store = again;
			expect((await again.inbox.read(id, 0, 10)).map((e) => e.body)).toEqual(["one", "two"]);
			expect((await again.inbox.read(id, first, 10)).map((e) => e.body)).toEqual(["two"]);
			expect(await again.inbox.count(id, second)).toBe(1);
			await again.inbox.drop(id, first);
			expect((await again.inbox.read(id, 0, 10)).map((e) => e.seq)).toEqual([second]);
			const third = await again.inbox.push(id, "three");
			expect(third).toBeGreaterThan(second); // sequence numbers only grow, across a reopen too
			await lease?.release();
		} finally {
			await store.delete(id);
			expect(await store.inbox.count(id, 0)).toBe(0); // a deleted session keeps no entry (who sent it)
			await store.close();
		}
	});
	it("a lease given back with work left makes the session due, and one given back without does not", async () => {
		const store = await createSessionStore(url(), undefined, { namespace: `${namespace}-w` });
		const id = "terminal:work";
		try {
			await store.set(record(id));
			await (await store.acquire(id, 10_000))?.release(true);
			expect(await store.inbox.due(100)).toContain(id);
			await (await store.acquire(id, 10_000))?.release(false);
			expect(await store.inbox.due(100)).not.toContain(id);
		} finally {
			await store.delete(id);
			await store.close();
		}
	});
	it("a second store on the same backend sees the records (restart)", async () => {
		const first = await createSessionStore(url(), undefined, { namespace: `${namespace}-r` });
		await first.set(record("terminal:restart"));
		await first.close();
		const second = await createSessionStore(url(), undefined, { namespace: `${namespace}-r` });
		try {
			expect(await second.list()).toEqual(["terminal:restart"]);
			expect((await second.get("terminal:restart"))?.extra).toEqual({ planKey: "abc" });
		} finally {
			await second.delete("terminal:restart");
			await second.close();
		}
	});
}

describe("session store on SQLite", () => {
	storeContract("sqlite", () => `sqlite://${join(tempDir, "nested", "dir", "lh.sqlite")}`);
	it("creates the folder of the file", () => {
		expect(statSync(join(tempDir, "nested", "dir", "lh.sqlite")).isFile()).toBe(true);
	});
});

describe("session store in memory", () => {
	it("keeps records in one instance", async () => {
		const store = await createSessionStore("memory://");
		await store.set(record("terminal:m"));
		expect(await store.list()).toEqual(["terminal:m"]);
		await store.close();
	});
});

// Redis and PostgreSQL run on this machine's loopback; skipped only where no server listens.
describe.skipIf(!redisUp)("session store on Redis (skipped: nothing listens on 127.0.0.1:6379)", () => {
	storeContract("redis", () => REDIS_URL);
});

describe.skipIf(!postgresUp)("session store on PostgreSQL (skipped: nothing listens on 127.0.0.1:5432)", () => {
	storeContract("postgres", () => POSTGRES_URL);
});

describe("store URLs", () => {
	it("refuses an unknown scheme with a message naming the accepted ones", () => {
		expect(() => openKeyv("mongodb://x", "n")).toThrow(StoreUrlError);
		expect(() => openKeyv("mongodb://x", "n")).toThrow(/sqlite:\/\/.*redis:\/\/.*postgres:\/\//);
	});
	it("reads sqlite paths", () => {
		expect(sqlitePathOf("sqlite://./data/x.sqlite")).toBe("./data/x.sqlite");
		expect(sqlitePathOf("sqlite:///abs/x.sqlite")).toBe("/abs/x.sqlite");
		expect(() => sqlitePathOf("sqlite://")).toThrow(StoreUrlError);
	});
});
