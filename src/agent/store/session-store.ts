/**
 * The session store on keyv: one key per session plus an index key listing
 * the ids (keyv has no portable key listing). Index updates are serialized
 * in-process; one process owns a store (keyv has no compare-and-set).
 */

import type Keyv from "keyv";
import type { Logger } from "../../core/contracts/logger.ts";
import { DEFAULT_STORE_URL, openKeyv } from "./keyv.ts";
import type { SessionRecord, SessionStore } from "./types.ts";

const INDEX_KEY = "index";
const recordKey = (sessionId: string): string => `session:${sessionId}`;

/**
 * JSON of a record, reusing each message's JSON from earlier saves: a turn
 * appends a message or two, so a save costs O(new messages) of stringify
 * plus a string join instead of re-serializing the whole transcript.
 * Relies on the engine's rule that a stored message is replaced, never mutated.
 */
function recordSerializer(): (record: SessionRecord) => string {
	const cache = new WeakMap<object, string>();
	const messageJson = (message: object): string => {
		let json = cache.get(message);
		if (json === undefined) {
			json = JSON.stringify(message);
			cache.set(message, json);
		}
		return json;
	};
	return (record) => {
		const { messages, ...meta } = record;
		const head = JSON.stringify(meta);
		return `${head.slice(0, -1)},"messages":[${messages.map(messageJson).join(",")}]}`;
	};
}

const isRecord = (value: unknown): value is SessionRecord =>
	typeof value === "object" && value !== null && (value as SessionRecord).format === 1 && "messages" in value;

/** A SessionStore on an already open Keyv (tests, custom backends). */
export function sessionStoreOnKeyv(keyv: Keyv): SessionStore {
	const recordJson = recordSerializer();
	keyv.serialize = (data) =>
		isRecord(data.value)
			? `{"value":${recordJson(data.value)}${data.expires === undefined ? "" : `,"expires":${data.expires}`}}`
			: JSON.stringify(data);
	keyv.deserialize = (data) => JSON.parse(data);
	let index: Set<string> | undefined;
	let chain: Promise<unknown> = Promise.resolve();
	// Serialize index read-modify-write so two new sessions never drop each other.
	const serial = <T>(work: () => Promise<T>): Promise<T> => {
		const next = chain.then(work, work);
		chain = next.catch(() => undefined);
		return next;
	};
	const loadIndex = async (): Promise<Set<string>> => {
		if (index) return index;
		const stored: unknown = await keyv.get(INDEX_KEY);
		index = new Set(Array.isArray(stored) ? stored.filter((x): x is string => typeof x === "string") : []);
		return index;
	};

	return {
		async get(sessionId) {
			const value: unknown = await keyv.get(recordKey(sessionId));
			if (typeof value !== "object" || value === null) return undefined;
			const record = value as SessionRecord;
			return record.format === 1 && Array.isArray(record.messages) ? record : undefined;
		},
		async set(record) {
			await keyv.set(recordKey(record.sessionId), record);
			await serial(async () => {
				const ids = await loadIndex();
				if (ids.has(record.sessionId)) return;
				ids.add(record.sessionId);
				await keyv.set(INDEX_KEY, [...ids]);
			});
		},
		async delete(sessionId) {
			const deleted = await keyv.delete(recordKey(sessionId));
			await serial(async () => {
				const ids = await loadIndex();
				if (!ids.delete(sessionId)) return;
				await keyv.set(INDEX_KEY, [...ids]);
			});
			return deleted;
		},
		async list() {
			return serial(async () => [...(await loadIndex())]);
		},
		async close() {
			await chain;
			await keyv.disconnect();
		},
	};
}

/**
 * The session store on the backend the URL names (default: the SQLite file
 * `./data/learnharness.sqlite`). Checks the connection once so a bad URL fails at start.
 */
export async function createSessionStore(
	url: string = DEFAULT_STORE_URL,
	logger?: Logger,
	options: { namespace?: string } = {},
): Promise<SessionStore> {
	const keyv = openKeyv(url, options.namespace ?? "learnharness:sessions", logger);
	const store = sessionStoreOnKeyv(keyv);
	await store.list();
	return store;
}
