/**
 * The community library's store on every state backend (SQLite, Redis, PostgreSQL when they run here), two
 * connections standing for two processes: names unique whatever their case (also when two add one name at
 * once), the cap of LIBRARY_MAX_ITEMS items, remove deleting the list entry and the index, forget-me removing a
 * member's items, the retention sweep removing old ones, and the communities it walks.
 */

import { describe, expect, it } from "vitest";
import { stateKeys } from "../../../src/agent/store/keys.ts";
import { createLibraryStore, LIBRARY_MAX_ITEMS, type LibraryItem } from "../../../src/agent/store/library-store.ts";
import { openStateStore } from "../../../src/agent/store/state-store.ts";
import { buildIndex, extractText, type MaterialIndex } from "../../../src/material/index.ts";
import { stateBackends } from "../../fixtures/shared-backends.ts";

const { ns, backends } = await stateBackends("library");

const indexOf = (name: string): MaterialIndex => {
	const doc = extractText(new TextEncoder().encode(`# ${name}\n\nThe words of ${name} for the test.`), {
		name: `${name}.md`,
	});
	if (!doc.ok) throw new Error(doc.message);
	return { ...buildIndex(doc), name };
};
const itemOf = (name: string, by = "u1", at = "2026-01-01T00:00:00.000Z"): LibraryItem => ({
	name,
	pages: 1,
	unit: "part",
	addedBy: { id: by, name: by },
	addedAt: at,
});

describe.each(backends)("the library store on %s", (name, up, url) => {
	let run = 0;
	// Each test its own community: the backends are shared across the file's tests.
	const community = () => `${name.slice(0, 2)}-${Date.now()}-${run++}`;
	const open = () => {
		const a = openStateStore(url(), ns);
		const b = openStateStore(url(), ns);
		return { a, b, one: createLibraryStore(a), two: createLibraryStore(b) };
	};

	it.skipIf(!up)(
		"adds, lists by name, finds any case, and refuses a taken name (once even when two add it at once)",
		async () => {
			const { a, b, one, two } = open();
			const c = community();
			try {
				expect(await one.add(c, itemOf("Zoology"), indexOf("Zoology"))).toEqual({ ok: true });
				expect(await two.add(c, itemOf("algebra"), indexOf("algebra"))).toEqual({ ok: true });
				expect((await two.list(c)).map((i) => i.name)).toEqual(["algebra", "Zoology"]);
				const found = await two.get(c, "ZOOLOGY");
				expect(found?.item.name).toBe("Zoology");
				expect(found?.index.name).toBe("Zoology");
				expect(found?.index.unit).toBe("part");
				expect(await one.add(c, itemOf("zoology"), indexOf("zoology"))).toEqual({ ok: false, code: "exists" });
				const both = await Promise.all([
					one.add(c, itemOf("Chemistry", "u1"), indexOf("Chemistry")),
					two.add(c, itemOf("chemistry", "u2"), indexOf("chemistry")),
				]);
				expect(both.filter((r) => r.ok)).toHaveLength(1);
				expect((await one.list(c)).filter((i) => i.name.toLowerCase() === "chemistry")).toHaveLength(1);
				expect(await one.communities()).toContain(c);
			} finally {
				await a.close();
				await b.close();
			}
		},
	);

	it.skipIf(!up)(`holds at most ${LIBRARY_MAX_ITEMS} items`, async () => {
		const { a, b, one, two } = open();
		const c = community();
		try {
			for (let i = 0; i < LIBRARY_MAX_ITEMS; i++)
				expect((await (i % 2 ? one : two).add(c, itemOf(`doc ${i}`), indexOf(`doc ${i}`))).ok).toBe(true);
			expect(await one.add(c, itemOf("one more"), indexOf("one more"))).toEqual({ ok: false, code: "full" });
			expect(await one.get(c, "one more")).toBeUndefined();
			expect(await a.get(stateKeys.libraryItem(c, "one more"))).toBeUndefined();
			expect(await two.list(c)).toHaveLength(LIBRARY_MAX_ITEMS);
		} finally {
			await a.close();
			await b.close();
		}
	});

	it.skipIf(!up)("remove, forget-me and the retention sweep delete the list entry and the index", async () => {
		const { a, b, one, two } = open();
		const c = community();
		try {
			await one.add(c, itemOf("Old", "u1", "2025-01-01T00:00:00.000Z"), indexOf("Old"));
			await one.add(c, itemOf("Mine", "u2", "2026-06-01T00:00:00.000Z"), indexOf("Mine"));
			await one.add(c, itemOf("Kept", "u1", "2026-06-01T00:00:00.000Z"), indexOf("Kept"));
			await one.add(c, itemOf("Gone", "u1", "2026-06-01T00:00:00.000Z"), indexOf("Gone"));
			expect((await two.remove(c, "GONE"))?.name).toBe("Gone");
			expect(await two.remove(c, "gone")).toBeUndefined();
			expect(await b.get(stateKeys.libraryItem(c, "gone"))).toBeUndefined();
			expect(await two.forgetMember(c, "u2")).toBe(1);
			expect(await b.get(stateKeys.libraryItem(c, "mine"))).toBeUndefined();
			expect(await two.expire(c, new Date("2026-01-01T00:00:00.000Z"))).toBe(1);
			expect(await b.get(stateKeys.libraryItem(c, "old"))).toBeUndefined();
			expect((await one.list(c)).map((i) => i.name)).toEqual(["Kept"]);
			// The last item gone: the community leaves the list the sweep walks.
			await one.remove(c, "kept");
			expect(await a.get(stateKeys.library(c))).toBeUndefined();
			expect(await two.communities()).not.toContain(c);
		} finally {
			await a.close();
			await b.close();
		}
	});

	it.skipIf(!up)("reads a damaged list entry or index as absent, never as an item", async () => {
		const { a, b, two } = open();
		const c = community();
		try {
			await a.updateFields(stateKeys.library(c), { set: { broken: "{not json", odd: JSON.stringify({ name: 1 }) } });
			expect(await two.list(c)).toEqual([]);
			await a.updateFields(stateKeys.library(c), { set: { real: JSON.stringify(itemOf("Real")) } });
			await a.set(stateKeys.libraryItem(c, "real"), { format: 9 });
			expect((await two.list(c)).map((i) => i.name)).toEqual(["Real"]);
			expect(await two.get(c, "real")).toBeUndefined();
		} finally {
			await a.close();
			await b.close();
		}
	});
});
