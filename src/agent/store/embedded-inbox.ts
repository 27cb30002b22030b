/**
 * Leases and inboxes of the embedded store (SQLite, memory: one process per store), so it keeps
 * the same contract as the shared ones (redis-sessions.ts, pg-sessions.ts) and the engine never
 * asks which store it has. Leases live in memory (this process is the store's only user: the
 * SQLite file is locked to it). An inbox is in memory too, and durable: a push resolves once the
 * write that carries it landed (the session's inbox key, `inbox:<id>`, holding the entries not
 * applied and the last sequence number), so "recorded before acknowledged" holds across a kill.
 * A drop is applied in memory only: the record's `inbox` number (saved with the entries' effect)
 * already says they ran, and the next push writes the trimmed list; an applied entry a kill left
 * on disk is above no reader's `after`, so it is never applied twice. `due` knows the inboxes this
 * process has read or written: after a restart the engine looks at every open session anyway.
 */

import { randomUUID } from "node:crypto";
import type { InboxEntry, SessionInbox, SessionLease } from "./types.ts";

/** The key of a session's inbox beside its record. */
export const inboxKey = (sessionId: string): string => `inbox:${sessionId}`;

/** What the embedded inbox needs from its store. */
export interface EmbeddedDeps {
	get(key: string): Promise<unknown>;
	set(key: string, value: unknown): Promise<void>;
	delete(key: string): Promise<boolean>;
	/** The session's stored version (undefined: not stored). */
	version(sessionId: string): Promise<number | undefined>;
	/** Run `work` in the session's chain (with its record saves): a version check and its write happen together. */
	perSession<T>(sessionId: string, work: () => Promise<T>): Promise<T>;
}

/** The embedded store's leases and inboxes. */
export interface EmbeddedCoordination {
	acquire(sessionId: string, ttlMs: number): Promise<SessionLease | undefined>;
	/** The highest fence granted for the session (saves below it are refused). */
	fenceOf(sessionId: string): number;
	inbox: SessionInbox;
	/** The session was deleted: its inbox and its key go too. */
	forget(sessionId: string): Promise<void>;
}

interface Box {
	seq: number;
	entries: InboxEntry[];
}

const isEntry = (value: unknown): value is InboxEntry =>
	typeof value === "object" &&
	value !== null &&
	Number.isSafeInteger((value as InboxEntry).seq) &&
	typeof (value as InboxEntry).body === "string";

/** Parse a stored inbox key (our JSON, read back from disk: parse, don't cast). */
function parseBox(stored: unknown): Box {
	if (typeof stored !== "object" || stored === null) return { seq: 0, entries: [] };
	const { seq, entries } = stored as { seq?: unknown; entries?: unknown };
	const list = Array.isArray(entries) ? entries.filter(isEntry) : [];
	const top = list.reduce((max, entry) => Math.max(max, entry.seq), 0);
	return { seq: Math.max(Number.isSafeInteger(seq) ? (seq as number) : 0, top), entries: list };
}

/** Leases and inboxes in memory, each inbox durable through its own key. */
export function embeddedCoordination(deps: EmbeddedDeps): EmbeddedCoordination {
	const leases = new Map<string, { token: string; expires: number }>();
	const fences = new Map<string, number>();
	/** Sessions whose holder gave the lease back with work left (a cut-off turn, a grading): due. */
	const workLeft = new Set<string>();
	const boxes = new Map<string, Box>();
	const loading = new Map<string, Promise<Box>>();

	const boxOf = (sessionId: string): Promise<Box> => {
		const box = boxes.get(sessionId);
		if (box) return Promise.resolve(box);
		let pending = loading.get(sessionId);
		if (!pending) {
			pending = deps.get(inboxKey(sessionId)).then((stored) => {
				const loaded = boxes.get(sessionId) ?? parseBox(stored);
				boxes.set(sessionId, loaded);
				return loaded;
			});
			const done = () => loading.delete(sessionId);
			pending.then(done, done);
			loading.set(sessionId, pending);
		}
		return pending;
	};
	const held = (sessionId: string): boolean => (leases.get(sessionId)?.expires ?? 0) > Date.now();

	const inbox: SessionInbox = {
		push: (sessionId, body, ifVersion) =>
			deps.perSession(sessionId, async () => {
				// Not for a session not stored (deleted: an entry would keep who sent it) or one that moved.
				const version = await deps.version(sessionId);
				if (version === undefined || (ifVersion !== undefined && version !== ifVersion)) return 0;
				const box = await boxOf(sessionId);
				const entry = { seq: box.seq + 1, body };
				const entries = [...box.entries, entry];
				// On disk first: the entry exists for readers once it is recorded (a failed write leaves nothing).
				await deps.set(inboxKey(sessionId), { seq: entry.seq, entries });
				box.seq = entry.seq;
				box.entries = entries;
				return entry.seq;
			}),
		async read(sessionId, after, limit) {
			const box = await boxOf(sessionId);
			return box.entries.filter((entry) => entry.seq > after).slice(0, Math.max(0, limit));
		},
		async count(sessionId, from) {
			const box = await boxOf(sessionId);
			return box.entries.reduce((n, entry) => (entry.seq >= from ? n + 1 : n), 0);
		},
		async drop(sessionId, upTo) {
			const box = boxes.get(sessionId);
			if (box) box.entries = box.entries.filter((entry) => entry.seq > upTo);
		},
		async due(limit) {
			const due: string[] = [];
			for (const [sessionId, box] of boxes)
				if (due.length < limit && box.entries.length > 0 && !held(sessionId)) due.push(sessionId);
			for (const sessionId of workLeft)
				if (due.length < limit && !held(sessionId) && !due.includes(sessionId)) due.push(sessionId);
			return due;
		},
	};

	return {
		async acquire(sessionId, ttlMs) {
			if (held(sessionId)) return undefined;
			const token = randomUUID();
			const fence = (fences.get(sessionId) ?? 0) + 1;
			fences.set(sessionId, fence);
			leases.set(sessionId, { token, expires: Date.now() + ttlMs });
			const mine = () => leases.get(sessionId)?.token === token;
			// The stored version with the grant (known in memory once read): the taker re-reads only when it moved.
			const version = await deps.version(sessionId);
			return {
				sessionId,
				fence,
				...(version === undefined ? {} : { version }),
				async renew() {
					if (!mine()) return false;
					leases.set(sessionId, { token, expires: Date.now() + ttlMs });
					return true;
				},
				async release(work = false) {
					if (!mine()) return;
					leases.delete(sessionId);
					if (work) workLeft.add(sessionId);
					else workLeft.delete(sessionId);
				},
			};
		},
		fenceOf: (sessionId) => fences.get(sessionId) ?? 0,
		inbox,
		async forget(sessionId) {
			boxes.delete(sessionId);
			workLeft.delete(sessionId);
			await deps.delete(inboxKey(sessionId));
		},
	};
}
