/**
 * Scored items: collections of JSON items, each with a score (a review item's due time), selected
 * by score through the backend's own index instead of reading the whole collection, and changed
 * one item at a time; plus several state values read at once (the admin report). The learner
 * profile keeps its review items here (agent/profile/profile-store.ts).
 *
 *   SQLite, PostgreSQL  a table `<keyv table>_items (collection, id, score, value)`, primary key
 *                       (collection, id), an index on (collection, score) (scored-items-sql.ts);
 *   Redis               a hash `<key>` (id -> item) and a sorted set `<key>#score` (id by score),
 *                       changed together in Lua scripts (scored-items-redis.ts);
 *   memory              the collection as one state value (`onState`): tests and the playground's memory store.
 *
 * A collection's name is a state key (keys.ts declares its prefix); on a keyv backend it is
 * namespaced like keyv's own keys, so namespaces never mix. state-store.ts opens them beside the
 * state store, on its connection (`openStateWithItems`). Every method may reject when the backend fails.
 */

/** What `scoredItemsOnState` needs of a state store (state-store.ts's StateStore has it). */
export interface StateValues {
	get(key: string): Promise<unknown>;
	set(key: string, value: unknown): Promise<void>;
	delete(key: string): Promise<boolean>;
}

/** One item of a collection. */
export interface ScoredItem {
	id: string;
	/** What the index orders by (a time in ms); a finite number. */
	score: number;
	/** Plain JSON. */
	value: unknown;
}

/** The lowest-scored items up to a bound, and what the index knows besides. */
export interface LowestItems {
	/** Items with score <= the bound, lowest first (at most the limit). */
	items: ScoredItem[];
	/** Items with score <= the bound in all. */
	count: number;
	/** The lowest score above the bound, if any. */
	next?: number;
	/** Items in the collection. */
	total: number;
}

/** Collections of scored items, and several state values at once. */
export interface ScoredItems {
	/** Store each item whose id the collection does not hold yet (items already there are left as they are). */
	add(collection: string, items: readonly ScoredItem[]): Promise<void>;
	/** Store one item, replacing the one with its id. */
	put(collection: string, item: ScoredItem): Promise<void>;
	/** One item by id. */
	get(collection: string, id: string): Promise<ScoredItem | undefined>;
	/** Up to `limit` items with score <= `bound`, lowest first (ties by id), with their count, the next score and the total. */
	lowest(collection: string, bound: number, limit: number): Promise<LowestItems>;
	/** Every item, lowest score first (ties by id). */
	all(collection: string): Promise<ScoredItem[]>;
	/** Remove the items with these ids. */
	remove(collection: string, ids: readonly string[]): Promise<void>;
	/** Remove the whole collection. */
	drop(collection: string): Promise<void>;
	/** The state values under `keys`, in order (undefined where absent): one read (SQL `IN`/`ANY`, Redis `MGET`). */
	getMany(keys: readonly string[]): Promise<unknown[]>;
}

/** Lowest score first, ties by id: the one order every backend returns. */
export const byScore = (a: ScoredItem, b: ScoredItem): number =>
	a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A stored collection value of `onState`: `{ [id]: { s: score, v: value } }`; anything else counts as empty. */
function entriesOf(stored: unknown): Map<string, ScoredItem> {
	const out = new Map<string, ScoredItem>();
	if (!isObject(stored)) return out;
	for (const [id, entry] of Object.entries(stored))
		if (isObject(entry) && typeof entry.s === "number" && Number.isFinite(entry.s))
			out.set(id, { id, score: entry.s, value: entry.v });
	return out;
}

/**
 * Scored items kept as one state value per collection: every change rewrites the collection and
 * a selection reads it whole. For stores one process keeps in memory (tests, the playground's
 * `memory://`), where that costs no I/O; the keyv backends have an index (`onKeyv`).
 */
export function scoredItemsOnState(state: StateValues): ScoredItems {
	const read = async (collection: string) => entriesOf(await state.get(collection));
	const write = async (collection: string, items: Map<string, ScoredItem>) => {
		if (items.size === 0) {
			await state.delete(collection);
			return;
		}
		const stored: Record<string, { s: number; v: unknown }> = {};
		for (const item of items.values()) stored[item.id] = { s: item.score, v: item.value };
		await state.set(collection, stored);
	};
	return {
		async add(collection, items) {
			const stored = await read(collection);
			const before = stored.size;
			for (const item of items) if (!stored.has(item.id)) stored.set(item.id, item);
			if (stored.size !== before) await write(collection, stored);
		},
		async put(collection, item) {
			const stored = await read(collection);
			stored.set(item.id, item);
			await write(collection, stored);
		},
		get: async (collection, id) => (await read(collection)).get(id),
		async lowest(collection, bound, limit) {
			const all = [...(await read(collection)).values()].sort(byScore);
			const due = all.filter((i) => i.score <= bound);
			const next = all.find((i) => i.score > bound)?.score;
			return {
				items: due.slice(0, Math.max(0, limit)),
				count: due.length,
				total: all.length,
				...(next !== undefined ? { next } : {}),
			};
		},
		all: async (collection) => [...(await read(collection)).values()].sort(byScore),
		async remove(collection, ids) {
			const stored = await read(collection);
			let changed = false;
			for (const id of ids) changed = stored.delete(id) || changed;
			if (changed) await write(collection, stored);
		},
		async drop(collection) {
			await state.delete(collection);
		},
		getMany: (keys) => Promise.all(keys.map((key) => state.get(key))),
	};
}
