import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openKeyv } from "../../../src/agent/store/keyv.ts";
import {
	createMemoryStateStore,
	keptInProcess,
	openStateStore,
	type StateStore,
} from "../../../src/agent/store/state-store.ts";

const dir = mkdtempSync(join(tmpdir(), "lh-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const backends: Array<[string, () => StateStore]> = [
	["memory", () => createMemoryStateStore()],
	["keyv memory://", () => openStateStore("memory://", "t")],
	["keyv sqlite", () => openStateStore(`sqlite://${join(dir, "s.sqlite")}`, "t")],
];

describe.each(backends)("state store on %s", (_, open) => {
	it("gets what was set, as JSON, and deletes it", async () => {
		const store = open();
		await store.set("a", { ids: ["1", "2"] });
		expect(await store.get("a")).toEqual({ ids: ["1", "2"] });
		expect(await store.delete("a")).toBe(true);
		expect(await store.get("a")).toBeUndefined();
		expect(await store.delete("a")).toBe(false);
		await store.close();
	});

	it("sets if absent once, even when two callers race", async () => {
		const store = open();
		const wins = await Promise.all([store.setIfAbsent("k", 1), store.setIfAbsent("k", 2), store.setIfAbsent("k", 3)]);
		expect(wins.filter(Boolean)).toHaveLength(1);
		expect(await store.get("k")).toBe(wins.indexOf(true) + 1);
		await store.delete("k");
		await store.close();
	});

	it("forgets a value after its TTL", async () => {
		const store = open();
		// Long enough that a loaded machine still reads it before it expires.
		await store.set("t", "x", 400);
		expect(await store.get("t")).toBe("x");
		await new Promise((r) => setTimeout(r, 800));
		expect(await store.get("t")).toBeUndefined();
		expect(await store.setIfAbsent("t", "y", 1000)).toBe(true);
		await store.close();
	});
});

describe('keys an embedded store keeps in its process (keys.ts `embedded: "process"`)', () => {
	it("a delivery's seen: key on SQLite lives in this process only: same contract, nothing written to the file", async () => {
		const url = `sqlite://${join(dir, "local.sqlite")}`;
		const store = openStateStore(url, "c");
		expect(keptInProcess("seen:discord:interaction:1")).toBe(true);
		expect(keptInProcess("intro:t1")).toBe(false);
		expect(await store.setIfAbsent("seen:discord:interaction:1", "pending", 60_000)).toBe(true);
		expect(await store.setIfAbsent("seen:discord:interaction:1", "pending", 60_000)).toBe(false);
		await store.set("seen:discord:interaction:1", "done", 60_000);
		expect(await store.get("seen:discord:interaction:1")).toBe("done");
		await store.set("intro:t1", { topic: "x" });
		// The file holds the intro, not the delivery.
		const file = openKeyv(url, "c");
		expect(await file.get("intro:t1")).toEqual({ topic: "x" });
		expect(await file.get("seen:discord:interaction:1")).toBeUndefined();
		expect(await store.delete("seen:discord:interaction:1")).toBe(true);
		expect(await store.setIfAbsent("seen:discord:interaction:1", "pending", 60_000)).toBe(true);
		await Promise.all([store.close(), file.disconnect()]);
	});
});
