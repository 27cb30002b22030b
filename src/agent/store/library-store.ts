/**
 * A community's library: documents an admin (or, where the rules allow, a member) added once, read and indexed
 * then, that any lesson there may start from (`/lesson start library:<name>`: the item's index is copied into the
 * lesson's material). Stored beside the lessons' material, on the sessions' backend, so every process serves the
 * same library.
 *
 * Keys (this module owns them, in the `learnharness:material` namespace):
 * - `library:<community>`: the list, one field per item (its name in lower case → the item as JSON text), changed
 *   field by field in one atomic operation (updateFields), so two processes adding at once lose neither;
 * - `library-item:<community>:<name in lower case>`: the item's index (material-store.ts's format), claimed with
 *   setIfAbsent, so two adds of one name cannot both win;
 * - `libraries`: the communities that have a library (field → "1"), which the retention sweep walks.
 * Nothing expires by itself: an item goes when it is removed, when the member who added it is forgotten
 * (forget-me), or when it is older than the community's retention (the sweep).
 */

import type { MaterialIndex } from "../../material/index.ts";
import { stateKeys } from "./keys.ts";
import { parseMaterialIndex } from "./material-store.ts";
import type { StateStore } from "./state-store.ts";

/** Most documents a community's library holds. */
export const LIBRARY_MAX_ITEMS = 50;
/** Longest name of a library item. */
export const LIBRARY_NAME_MAX = 80;

/** One document of a library, as its list shows it. */
export interface LibraryItem {
	/** Its name as given (unique in the library regardless of case). */
	name: string;
	/** Its pages (a text file: its parts). */
	pages: number;
	/** `part`: a text file's parts stand for pages. */
	unit?: "part";
	/** Who added it. */
	addedBy: { id: string; name: string };
	/** When (ISO). */
	addedAt: string;
}

/** Why an add was refused. */
export type LibraryAddRefusal = "exists" | "full";

/** The libraries. Every method may reject when the store fails. */
export interface LibraryStore {
	/** A community's items, by name. */
	list(community: string): Promise<LibraryItem[]>;
	/** Add an item with its index; refused when the name is taken (any case) or the library is full. */
	add(
		community: string,
		item: LibraryItem,
		index: MaterialIndex,
	): Promise<{ ok: true } | { ok: false; code: LibraryAddRefusal }>;
	/** An item and its index, by name (any case); undefined when the library has none of that name. */
	get(community: string, name: string): Promise<{ item: LibraryItem; index: MaterialIndex } | undefined>;
	/** Remove an item (its list entry and its index); the item removed, or undefined when there was none. */
	remove(community: string, name: string): Promise<LibraryItem | undefined>;
	/** Remove every item `memberId` added in `community` (forget-me); how many went. */
	forgetMember(community: string, memberId: string): Promise<number>;
	/** Remove the items added before `cutoff` (the retention sweep); how many went. */
	expire(community: string, cutoff: Date): Promise<number>;
	/** The communities that have a library. */
	communities(): Promise<string[]>;
}

/** A library name as its key and uniqueness see it: spacing collapsed, lower case. */
export const libraryKeyOf = (name: string): string => name.normalize("NFKC").replace(/\s+/g, " ").trim().toLowerCase();

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A list field's value as an item, or undefined (parse, don't cast: the store is shared). */
function parseItem(text: unknown): LibraryItem | undefined {
	let v: unknown;
	try {
		v = typeof text === "string" ? JSON.parse(text) : undefined;
	} catch {
		return undefined;
	}
	if (!isRecord(v) || typeof v.name !== "string" || typeof v.pages !== "number" || typeof v.addedAt !== "string")
		return undefined;
	const by = v.addedBy;
	if (!isRecord(by) || typeof by.id !== "string" || typeof by.name !== "string") return undefined;
	return {
		name: v.name,
		pages: v.pages,
		...(v.unit === "part" ? { unit: "part" as const } : {}),
		addedBy: { id: by.id, name: by.name },
		addedAt: v.addedAt,
	};
}

/** The library store over a state store (the material namespace). */
export function createLibraryStore(state: StateStore): LibraryStore {
	const entries = async (community: string): Promise<Array<[string, LibraryItem]>> => {
		const stored = await state.get(stateKeys.library(community));
		if (!isRecord(stored)) return [];
		return Object.entries(stored).flatMap(([key, text]) => {
			const item = parseItem(text);
			return item ? [[key, item] as [string, LibraryItem]] : [];
		});
	};
	const drop = async (community: string, key: string): Promise<void> => {
		const left = await state.updateFields(stateKeys.library(community), { drop: [key] });
		await state.delete(stateKeys.libraryItem(community, key));
		if (Object.keys(left).length === 0) {
			await state.delete(stateKeys.library(community));
			await state.updateFields(stateKeys.libraries(), { drop: [community] });
		}
	};
	const removeWhere = async (community: string, gone: (item: LibraryItem) => boolean): Promise<number> => {
		let count = 0;
		for (const [key, item] of await entries(community))
			if (gone(item)) {
				await drop(community, key);
				count++;
			}
		return count;
	};
	return {
		async list(community) {
			return (await entries(community)).map(([, item]) => item).sort((a, b) => a.name.localeCompare(b.name));
		},
		async add(community, item, index) {
			const key = libraryKeyOf(item.name);
			const listed = await entries(community);
			if (listed.some(([k]) => k === key)) return { ok: false, code: "exists" };
			if (listed.length >= LIBRARY_MAX_ITEMS) return { ok: false, code: "full" };
			// The index first, claimed: of two adds of one name only one stores it.
			if (!(await state.setIfAbsent(stateKeys.libraryItem(community, key), index)))
				return { ok: false, code: "exists" };
			try {
				await state.updateFields(stateKeys.libraries(), { set: { [community]: "1" } });
				const now = await state.updateFields(stateKeys.library(community), { set: { [key]: JSON.stringify(item) } });
				// Two adds of different names at once may both pass the count above: the one that overfilled gives way.
				if (Object.keys(now).length > LIBRARY_MAX_ITEMS) {
					await drop(community, key);
					return { ok: false, code: "full" };
				}
			} catch (error) {
				await state.delete(stateKeys.libraryItem(community, key)).catch(() => false);
				throw error;
			}
			return { ok: true };
		},
		async get(community, name) {
			const key = libraryKeyOf(name);
			const item = (await entries(community)).find(([k]) => k === key)?.[1];
			if (!item) return undefined;
			const index = parseMaterialIndex(await state.get(stateKeys.libraryItem(community, key)));
			return index ? { item, index } : undefined;
		},
		async remove(community, name) {
			const key = libraryKeyOf(name);
			const item = (await entries(community)).find(([k]) => k === key)?.[1];
			if (!item) return undefined;
			await drop(community, key);
			return item;
		},
		forgetMember: (community, memberId) => removeWhere(community, (item) => item.addedBy.id === memberId),
		expire: (community, cutoff) =>
			removeWhere(community, (item) => {
				const at = Date.parse(item.addedAt);
				return Number.isFinite(at) && at < cutoff.getTime();
			}),
		async communities() {
			const stored = await state.get(stateKeys.libraries());
			return isRecord(stored) ? Object.keys(stored) : [];
		},
	};
}
