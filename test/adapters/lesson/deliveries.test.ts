/**
 * Delivery claims: a duplicate in this process is known without I/O; a store that other
 * processes share is asked (setIfAbsent) and its answer wins; a store of one process
 * (SQLite, memory) is never written; a store that does not answer in time fails open.
 */

import { describe, expect, it } from "vitest";
import { createDeliveryClaims } from "../../../src/adapters/lesson/deliveries.ts";
import { createMemoryStateStore, type StateStore } from "../../../src/agent/index.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";

/** A state store that records its calls; `shared` and the setIfAbsent answer are chosen by the test. */
function recordingStore(shared: boolean, answer: () => Promise<boolean>) {
	const calls: string[] = [];
	const base = createMemoryStateStore();
	const store: StateStore = {
		...base,
		...(shared ? { shared: true } : {}),
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
	it("knows a duplicate in this process at once, and writes nothing to a one-process store", async () => {
		const { store, calls } = recordingStore(false, async () => true);
		const claims = createDeliveryClaims(store, silentLogger, "test");
		expect(await claims.claim("discord:interaction:1", 60_000)).toBe(true);
		expect(await claims.claim("discord:interaction:1", 60_000)).toBe(false);
		// Another controller on the same store shares what this process has seen.
		expect(await createDeliveryClaims(store, silentLogger, "other").claim("discord:interaction:1", 60_000)).toBe(false);
		expect(calls).toEqual([]);
		await claims.release("discord:interaction:1");
		expect(await claims.claim("discord:interaction:1", 60_000)).toBe(true);
	});

	it("asks a shared store, and another process's claim wins", async () => {
		const { store, calls } = recordingStore(true, async () => false);
		const claims = createDeliveryClaims(store, silentLogger, "test");
		expect(await claims.claim("slack:trigger:abc", 60_000)).toBe(false);
		expect(calls).toEqual(["setIfAbsent seen:slack:trigger:abc"]);
		await claims.release("slack:trigger:abc");
		expect(calls).toContain("delete seen:slack:trigger:abc");
	});

	it("fails open when the shared store does not answer in time", async () => {
		const { store } = recordingStore(true, () => new Promise<boolean>(() => undefined));
		const claims = createDeliveryClaims(store, silentLogger, "test", 20);
		expect(await claims.claim("slack:event:E1", 60_000)).toBe(true);
	});
});
