/**
 * How a session record is laid out in a shared store: a small metadata value (everything but
 * the transcript) plus one entry per message, so a save writes the metadata and the messages
 * that changed (a turn appends one or two), not the whole lesson. Also reads the old layout
 * (the whole record as one keyv value) so stores written before still load.
 */

import { LRUCache } from "lru-cache";
import type { LessonMessage, SessionRecord } from "./types.ts";

/** The record without its transcript and version: what the metadata entry holds. */
export type RecordMeta = Omit<SessionRecord, "messages" | "version">;

/** JSON of the record's metadata (no messages, no version: the store keeps the version itself). */
export function metaJson(record: SessionRecord): string {
	const { messages: _messages, version: _version, ...meta } = record;
	return JSON.stringify(meta);
}

/** A record from its stored parts; undefined when the metadata is not a session record. */
export function assembleRecord(meta: unknown, messages: unknown[], version: number): SessionRecord | undefined {
	if (typeof meta !== "object" || meta === null || (meta as RecordMeta).format !== 1) return undefined;
	if (typeof (meta as RecordMeta).sessionId !== "string") return undefined;
	const kept = messages.filter((m): m is LessonMessage => typeof m === "object" && m !== null && "role" in m);
	return { ...(meta as RecordMeta), messages: kept, version };
}

/**
 * A record stored in the old layout (the keyv session store before leases: one value holding the
 * whole record, wrapped by keyv as `{"value": record, "expires"?: ms}`), or undefined.
 */
export function legacyRecord(stored: unknown): SessionRecord | undefined {
	const wrapped = typeof stored === "string" ? safeParse(stored) : stored;
	const value =
		typeof wrapped === "object" && wrapped !== null && "value" in wrapped
			? (wrapped as { value: unknown }).value
			: wrapped;
	if (typeof value !== "object" || value === null) return undefined;
	const record = value as SessionRecord;
	if (record.format !== 1 || !Array.isArray(record.messages) || typeof record.sessionId !== "string") return undefined;
	// Version 0: the first save in the new layout must find no new-layout record (compare-and-set from "absent").
	return { ...record, version: 0 };
}

/** The string ids of a stored index value in the old layout (`{"value": [ids]}`), else none. */
export function legacyIds(stored: unknown): string[] {
	const wrapped = typeof stored === "string" ? safeParse(stored) : stored;
	const value =
		typeof wrapped === "object" && wrapped !== null && "value" in wrapped
			? (wrapped as { value: unknown }).value
			: wrapped;
	return Array.isArray(value) ? value.filter((x): x is string => typeof x === "string") : [];
}

function safeParse(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/** What a save writes: the message entries that changed (index, JSON) and the transcript's length. */
export interface MessageChanges {
	writes: Array<[number, string]>;
	length: number;
}

/**
 * Remembers, per session, which message objects the store holds at which index (as of the version
 * this store last read or wrote), so a save writes only new or replaced messages. Relies on the
 * engine's rule that a stored message is replaced, never mutated. A session it does not know (or
 * knows at another version) is written whole: correct, only slower.
 */
export function messageTracker(max = 10_000) {
	const known = new LRUCache<string, { version: number; messages: LessonMessage[] }>({ max });
	const json = new WeakMap<object, string>();
	const messageJson = (message: LessonMessage): string => {
		let text = json.get(message);
		if (text === undefined) {
			text = JSON.stringify(message);
			json.set(message, text);
		}
		return text;
	};
	return {
		/** The writes that bring the stored transcript (at `record.version`) to the record's. */
		changes(record: SessionRecord): MessageChanges {
			const seen = known.get(record.sessionId);
			const base = seen && seen.version === record.version ? seen.messages : [];
			const writes: Array<[number, string]> = [];
			record.messages.forEach((message, i) => {
				if (base[i] !== message) writes.push([i, messageJson(message)]);
			});
			return { writes, length: record.messages.length };
		},
		/** Note what the store now holds for the session (after a read or a save at `version`). */
		remember(record: SessionRecord, version: number): void {
			known.set(record.sessionId, { version, messages: record.messages.slice() });
		},
		forget(sessionId: string): void {
			known.delete(sessionId);
		},
		messageJson,
	};
}

/** The message tracker's type. */
export type MessageTracker = ReturnType<typeof messageTracker>;
