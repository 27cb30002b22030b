/**
 * Each lesson's material index (a learner's PDF, read and cut into passages by src/material), stored
 * beside the sessions so every process on the backend serves the same one.
 *
 * Keys (this module owns them in its namespace, `learnharness:material` on the sessions' backend):
 * - `material:<sessionId>`: the index as JSON (passages with their pages, the outline, the
 *   warnings), expiring with the retention; deleted with the lesson (forgetLesson).
 */

import { LRUCache } from "lru-cache";
import { type MaterialIndex, type OpenIndex, openIndex } from "../../material/index.ts";
import { stateKeys } from "./keys.ts";
import type { StateStore } from "./state-store.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Lessons' material. Every method may reject when the store fails. */
export interface MaterialStore {
	/** Store a lesson's index (replacing one it had). */
	put(sessionId: string, index: MaterialIndex): Promise<void>;
	/** A lesson's index, ready to search; undefined when it has none (or what is stored is not an index). */
	get(sessionId: string): Promise<OpenIndex | undefined>;
	/** Delete a lesson's index; true when one was there. */
	forgetLesson(sessionId: string): Promise<boolean>;
}

/** Options of createMaterialStore. */
export interface MaterialStoreOptions {
	/** How long an index is kept without a deletion (the retention; default 365 days). */
	ttlMs?: number;
	/** Opened indexes kept in memory (default 64 lessons). */
	cacheLessons?: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A stored value as an index, or undefined (parse, don't cast: the store is shared). */
export function parseMaterialIndex(value: unknown): MaterialIndex | undefined {
	if (!isRecord(value) || value.format !== 1 || typeof value.name !== "string") return undefined;
	if (typeof value.pageCount !== "number" || !Array.isArray(value.passages) || !Array.isArray(value.outline))
		return undefined;
	const passages: MaterialIndex["passages"] = [];
	for (const p of value.passages) {
		if (!isRecord(p) || typeof p.page !== "number" || typeof p.text !== "string") return undefined;
		passages.push({ page: p.page, text: p.text, ...(typeof p.heading === "string" ? { heading: p.heading } : {}) });
	}
	const outline: MaterialIndex["outline"] = [];
	for (const h of value.outline) {
		if (!isRecord(h) || typeof h.title !== "string" || typeof h.page !== "number") return undefined;
		outline.push({ title: h.title, page: h.page, level: h.level === 1 ? 1 : 2 });
	}
	const warnings: MaterialIndex["warnings"] = [];
	for (const w of Array.isArray(value.warnings) ? value.warnings : [])
		if (
			isRecord(w) &&
			typeof w.message === "string" &&
			(w.code === "scripts-ignored" || w.code === "instructions-quoted" || w.code === "chars-cut")
		)
			warnings.push({
				code: w.code,
				message: w.message,
				...(Array.isArray(w.pages) ? { pages: w.pages.filter((n): n is number => typeof n === "number") } : {}),
			});
	return {
		format: 1,
		name: value.name,
		pageCount: value.pageCount,
		outline,
		passages,
		warnings,
		...(value.unit === "part" ? { unit: "part" as const } : {}),
	};
}

/** The material store over a state store (its own namespace). */
export function createMaterialStore(state: StateStore, options: MaterialStoreOptions = {}): MaterialStore {
	const ttlMs = options.ttlMs ?? 365 * DAY_MS;
	const cache = new LRUCache<string, OpenIndex>({ max: options.cacheLessons ?? 64 });
	return {
		async put(sessionId, index) {
			await state.set(stateKeys.material(sessionId), index, ttlMs);
			cache.set(sessionId, openIndex(index));
		},
		async get(sessionId) {
			const hit = cache.get(sessionId);
			if (hit) return hit;
			const index = parseMaterialIndex(await state.get(stateKeys.material(sessionId)));
			if (!index) return undefined;
			const opened = openIndex(index);
			cache.set(sessionId, opened);
			return opened;
		},
		async forgetLesson(sessionId) {
			cache.delete(sessionId);
			return state.delete(stateKeys.material(sessionId));
		},
	};
}
