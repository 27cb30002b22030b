/**
 * The session store on keyv: one key per session plus an index key listing
 * the ids (keyv has no portable key listing). Index updates are serialized
 * in-process; one process owns a store (keyv has no compare-and-set).
 * Every operation either happens or rejects with a StoreError, within a
 * deadline: a failed write is never reported as saved.
 */

import type Keyv from "keyv";
import type { Logger } from "../../core/contracts/logger.ts";
import { reason, StoreError, withDeadline } from "./errors.ts";
import { DEFAULT_STORE_URL, lastDriverError, openKeyv, redactUrl } from "./keyv.ts";
import type { SessionRecord, SessionStore } from "./types.ts";

/** Longest a single store operation may take before it counts as failed (default of sessionStoreOnKeyv). */
export const STORE_OP_TIMEOUT_MS = 10_000;
/** Longest the start-up check may take: an unreachable store fails the start in seconds, not minutes. */
export const STORE_CHECK_TIMEOUT_MS = 5_000;

const INDEX_KEY = "index";
/** Ids of the sessions not ended: what resume() scans at start (not every lesson ever held). */
const OPEN_KEY = "open";
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

/** A SessionStore on an already open Keyv (tests, custom backends); `opTimeoutMs` bounds each operation. */
export function sessionStoreOnKeyv(raw: Keyv, options: { opTimeoutMs?: number } = {}): SessionStore {
	const keyv = boundedKeyv(raw, options.opTimeoutMs ?? STORE_OP_TIMEOUT_MS);
	const recordJson = recordSerializer();
	raw.serialize = (data) =>
		isRecord(data.value)
			? `{"value":${recordJson(data.value)}${data.expires === undefined ? "" : `,"expires":${data.expires}`}}`
			: JSON.stringify(data);
	raw.deserialize = (data) => JSON.parse(data);
	let index: Set<string> | undefined;
	let chain: Promise<unknown> = Promise.resolve();
	// Serialize index read-modify-write so two new sessions never drop each other.
	const serial = <T>(work: () => Promise<T>): Promise<T> => {
		const next = chain.then(work, work);
		chain = next.catch(() => undefined);
		return next;
	};
	const strings = (stored: unknown): string[] =>
		Array.isArray(stored) ? stored.filter((x): x is string => typeof x === "string") : [];
	const loadIndex = async (): Promise<Set<string>> => {
		if (index) return index;
		index = new Set(strings(await keyv.get(INDEX_KEY)));
		return index;
	};
	const readRecord = async (sessionId: string): Promise<SessionRecord | undefined> => {
		const value: unknown = await keyv.get(recordKey(sessionId));
		if (typeof value !== "object" || value === null) return undefined;
		const record = value as SessionRecord;
		return record.format === 1 && Array.isArray(record.messages) ? record : undefined;
	};
	let open: Set<string> | undefined;
	/** The open-session index; a store written before it existed gets it built once from the records. */
	const loadOpen = async (): Promise<Set<string>> => {
		if (open) return open;
		const stored: unknown = await keyv.get(OPEN_KEY);
		if (Array.isArray(stored)) open = new Set(strings(stored));
		else {
			const built = new Set<string>();
			for (const id of await loadIndex()) if ((await readRecord(id))?.ended === undefined) built.add(id);
			await keyv.set(OPEN_KEY, [...built]);
			open = built;
		}
		return open;
	};

	return {
		get: readRecord,
		async set(record) {
			const id = record.sessionId;
			const isOpen = record.ended === undefined;
			await keyv.set(recordKey(id), record);
			await serial(async () => {
				const ids = await loadIndex();
				if (!ids.has(id)) {
					ids.add(id);
					await keyv.set(INDEX_KEY, [...ids]);
				}
				const opened = await loadOpen();
				if (opened.has(id) === isOpen) return;
				if (isOpen) opened.add(id);
				else opened.delete(id);
				await keyv.set(OPEN_KEY, [...opened]);
			});
		},
		async delete(sessionId) {
			const deleted = await keyv.delete(recordKey(sessionId));
			await serial(async () => {
				const ids = await loadIndex();
				if (ids.delete(sessionId)) await keyv.set(INDEX_KEY, [...ids]);
				const opened = await loadOpen();
				if (opened.delete(sessionId)) await keyv.set(OPEN_KEY, [...opened]);
			});
			return deleted;
		},
		async list() {
			return serial(async () => [...(await loadIndex())]);
		},
		async listOpen() {
			return serial(async () => [...(await loadOpen())]);
		},
		async close() {
			await chain;
			await raw.disconnect();
		},
	};
}

/** The Keyv operations the session store uses, each bounded in time and failing loudly. */
interface BoundedKeyv {
	get(key: string): Promise<unknown>;
	set(key: string, value: unknown): Promise<void>;
	delete(key: string): Promise<boolean>;
}

function boundedKeyv(keyv: Keyv, ms: number): BoundedKeyv {
	return {
		get: (key) => withDeadline(`reading ${key}`, ms, () => keyv.get(key)),
		async set(key, value) {
			const ok = await withDeadline(`writing ${key}`, ms, () => keyv.set(key, value));
			// A keyv adapter that swallows an error returns false: that write did not happen.
			if (ok === false) {
				const cause = lastDriverError(keyv);
				throw new StoreError("store-unavailable", `writing ${key} failed${cause ? `: ${reason(cause)}` : ""}`, {
					cause,
				});
			}
		},
		delete: (key) => withDeadline(`deleting ${key}`, ms, () => keyv.delete(key)),
	};
}

/**
 * The session store on the backend the URL names (default: the SQLite file
 * `./data/learnharness.sqlite`). Checks once that the store reads and writes, within
 * a few seconds, so a bad URL, an unreachable server or a file that is not a database
 * fails the start with a StoreError naming the store and the cause.
 */
export async function createSessionStore(
	url: string = DEFAULT_STORE_URL,
	logger?: Logger,
	options: { namespace?: string; opTimeoutMs?: number; checkTimeoutMs?: number } = {},
): Promise<SessionStore> {
	const keyv = openKeyv(url, options.namespace ?? "learnharness:sessions", logger);
	const store = sessionStoreOnKeyv(keyv, options);
	try {
		await withDeadline("the start-up check", options.checkTimeoutMs ?? STORE_CHECK_TIMEOUT_MS, async () => {
			await store.list();
			// A read alone passes on a read-only or half-broken store: write the probe key too.
			await keyv.set("health", new Date().toISOString());
		});
	} catch (error) {
		const cause = lastDriverError(keyv) ?? error;
		// Stop the driver's reconnect loop, or the process would keep running after the failure.
		await Promise.race([keyv.disconnect().catch(() => undefined), new Promise((done) => setTimeout(done, 1_000))]);
		throw new StoreError("store-unavailable", `The store at ${redactUrl(url)} cannot be used: ${reason(cause)}`, {
			cause: error,
		});
	}
	return store;
}
