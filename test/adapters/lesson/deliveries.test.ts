/**
 * Delivery claims: a duplicate in this process is known without I/O; otherwise the store is
 * asked (setIfAbsent) and its answer wins, whatever the store (one a single process owns keeps
 * `seen:` keys in memory: test/agent/store/state-store.test.ts); a store that does not answer
 * in time fails open. A claim is provisional until confirmed: another process's unconfirmed
 * claim answers "busy" (not acknowledged, so the platform redelivers), and one left by a dead
 * process expires.
 */

import { describe, expect, it } from "vitest";
import { createDeliveryClaims, PENDING_TTL_MS } from "../../../src/adapters/lesson/deliveries.ts";
import { createMemoryStateStore, type StateStore } from "../../../src/agent/index.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";

/** A state store that records its calls; the setIfAbsent answer is chosen by the test. */
function recordingStore(answer: () => Promise<boolean>) {
	const calls: string[] = [];
	const base = createMemoryStateStore();
	const store: StateStore = {
		...base,
		setIfAbsent: (key, value, ttlMs) => {
			calls.push(`setIfAbsent ${key}`);
			return answer().then((first) => (first ? base.setIfAbsent(key, value, ttlMs) : false));
		},
		delete: (key) => {
			calls.push(`delete ${key}`);
			return base.delete(key);
		},
	};
	return { store, calls };
}

describe("delivery claims", () => {
	it("knows a duplicate in this process at once: the store is asked once per delivery", async () => {
		const { store, calls } = recordingStore(async () => true);
		const claims = createDeliveryClaims(store, silentLogger, "test");
		expect(await claims.claim("discord:interaction:1", 60_000)).toBe("first");
		expect(await claims.claim("discord:interaction:1", 60_000)).toBe("seen");
		// Another controller on the same store shares what this process has seen.
		expect(await createDeliveryClaims(store, silentLogger, "other").claim("discord:interaction:1", 60_000)).toBe(
			"seen",
		);
		await claims.confirm("discord:interaction:1", 60_000);
		expect(calls).toEqual(["setIfAbsent seen:discord:interaction:1"]);
		await claims.release("discord:interaction:1");
		expect(calls).toContain("delete seen:discord:interaction:1");
		expect(await claims.claim("discord:interaction:1", 60_000)).toBe("first");
	});

	it("asks the store, and another process's claim wins", async () => {
		const { store, calls } = recordingStore(async () => false);
		await store.set("seen:slack:trigger:abc", "done");
		const claims = createDeliveryClaims(store, silentLogger, "test");
		expect(await claims.claim("slack:trigger:abc", 60_000)).toBe("seen");
		expect(calls).toEqual(["setIfAbsent seen:slack:trigger:abc"]);
		await claims.release("slack:trigger:abc");
		expect(calls).toContain("delete seen:slack:trigger:abc");
	});

	it("fails open when the store does not answer in time", async () => {
		const { store } = recordingStore(() => new Promise<boolean>(() => undefined));
		const claims = createDeliveryClaims(store, silentLogger, "test", 20);
		expect(await claims.claim("slack:event:E1", 60_000)).toBe("first");
	});

	it("holds an unconfirmed claim of another process as busy, then as seen once it is confirmed", async () => {
		const store = createMemoryStateStore();
		// Two processes: each has its own memory of what it claimed; the store is shared.
		const one = createDeliveryClaims(store, silentLogger, "one");
		const two = createDeliveryClaims({ ...store }, silentLogger, "two");
		expect(await one.claim("slack:event:E2", 60_000)).toBe("first");
		expect(await store.get("seen:slack:event:E2")).toBe("pending");
		expect(await two.claim("slack:event:E2", 60_000, 120)).toBe("busy");
		// Confirmed while the other waits: a duplicate.
		const waiting = two.claim("slack:event:E2", 60_000, 2_000);
		await one.confirm("slack:event:E2", 60_000);
		expect(await waiting).toBe("seen");
		expect(await store.get("seen:slack:event:E2")).toBe("done");
	});

	it("claims a delivery of a platform that never redelivers as handled at once, with one write", async () => {
		const { store, calls } = recordingStore(async () => true);
		const one = createDeliveryClaims(store, silentLogger, "one");
		const two = createDeliveryClaims({ ...store }, silentLogger, "two");
		expect(await one.claimFinal("discord:interaction:9", 60_000)).toBe("first");
		expect(await store.get("seen:discord:interaction:9")).toBe("done");
		expect(calls).toEqual(["setIfAbsent seen:discord:interaction:9"]);
		expect(await one.claimFinal("discord:interaction:9", 60_000)).toBe("seen"); // this process: no I/O
		expect(calls).toHaveLength(1);
		// Another process's copy is dropped at once (no waiting for a confirm that never comes).
		const lost = createDeliveryClaims(recordingStore(async () => false).store, silentLogger, "three");
		expect(await lost.claimFinal("discord:interaction:9", 60_000)).toBe("seen");
		expect(await two.claimFinal("discord:interaction:10", 60_000)).toBe("first");
		// A store that does not answer in time: handled (fail open), as with claim().
		const slow = createDeliveryClaims(
			recordingStore(() => new Promise<boolean>(() => undefined)).store,
			silentLogger,
			"slow",
			20,
		);
		expect(await slow.claimFinal("discord:interaction:11", 60_000)).toBe("first");
	});

	it("lets a claim left unconfirmed by a dead process expire, so the redelivery is handled", async () => {
		const base = createMemoryStateStore();
		let ttlOfPending: number | undefined;
		const store: StateStore = {
			...base,
			// The pending claim's TTL, shortened here to 50 ms so the test does not wait PENDING_TTL_MS.
			setIfAbsent: (key, value, ttlMs) => {
				if (value === "pending") ttlOfPending = ttlMs;
				return base.setIfAbsent(key, value, value === "pending" ? 50 : ttlMs);
			},
		};
		const dead = createDeliveryClaims(store, silentLogger, "dead");
		expect(await dead.claim("slack:trigger:T9", 60_000)).toBe("first");
		expect(ttlOfPending).toBe(PENDING_TTL_MS);
		const other = createDeliveryClaims({ ...store }, silentLogger, "other");
		expect(await other.claim("slack:trigger:T9", 60_000, 1_000)).toBe("first");
	});
});
