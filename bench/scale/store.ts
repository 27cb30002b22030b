/**
 * The store part of `bench:scale`, on the private redis-server: the bytes a turn writes at 20
 * and 200 messages, before (the whole record per save, the keyv layout) and after (a list entry
 * per message), read from the server's own `total_net_input_bytes`; and the lease hand-over
 * time at the store: a holder that dies without releasing (as after `kill -9`), and the time
 * until another process gets the session's lease with the default TTL.
 *
 * A turn here is what the engine writes in one: the learner's message with the turn marked
 * open (one save), then the tutor's reply with the turn closed (one save). Messages are about
 * 700 bytes of JSON, like a quiz call with its result.
 */

import { LEASE_TTL_MS } from "../../src/agent/engine/lease.ts";
import { openKeyv } from "../../src/agent/store/keyv.ts";
import { createSessionStore, sessionStoreOnKeyv } from "../../src/agent/store/session-store.ts";
import type { LessonMessage, SessionRecord, SessionStore } from "../../src/agent/store/types.ts";

let counter = 0;
function message(role: "user" | "assistant"): LessonMessage {
	counter++;
	const text = `Message ${counter}: ${"a typical tutor sentence with a question in it; ".repeat(12)}`;
	return { id: `m${counter}`, role, parts: [{ type: "text", text }] };
}

function record(sessionId: string, messages: number): SessionRecord {
	const at = new Date(0).toISOString();
	return {
		format: 1,
		sessionId,
		topic: "fractions",
		learner: { id: "u1", name: "Ada" },
		mode: "solo",
		startedBy: { id: "u1" },
		createdAt: at,
		updatedAt: at,
		messages: Array.from({ length: messages }, (_, i) => message(i % 2 ? "assistant" : "user")),
		usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
		extra: {},
	};
}

/** Bytes one turn (two saves) writes to a session of `size` messages. */
async function bytesPerTurn(
	store: SessionStore,
	size: number,
	label: string,
	inputBytes: () => number,
): Promise<number> {
	const r = record(`bench:${label}:${size}`, size);
	await store.set(r);
	const turns = 5;
	const before = inputBytes();
	for (let t = 0; t < turns; t++) {
		r.messages.push(message("user"));
		r.turnOpen = true;
		await store.set(r);
		r.messages.push(message("assistant"));
		r.turnOpen = false;
		await store.set(r);
	}
	return Math.round((inputBytes() - before) / turns);
}

/** Seconds from a holder's death (no release) until another store gets the lease. */
async function handover(a: SessionStore, b: SessionStore): Promise<number> {
	const dead = await a.acquire("bench:handover", LEASE_TTL_MS);
	if (!dead) throw new Error("no lease");
	const killedAt = Date.now();
	for (let i = 0; i < 10_000; i++) {
		const lease = await b.acquire("bench:handover", LEASE_TTL_MS);
		if (lease) {
			await lease.release();
			return (Date.now() - killedAt) / 1000;
		}
		// Another process polls like the engine's pump does while it waits (capped backoff, 1 s).
		await new Promise((done) => setTimeout(done, Math.min(50 * 2 ** i, 1_000)));
	}
	return Number.NaN;
}

/** What the store part measured. */
export interface StoreResult {
	before: Record<string, number>;
	after: Record<string, number>;
	handoverS: number;
}

/** Run the store part on `url`; `inputBytes` reads the server's received bytes. */
export async function storeBench(url: string, inputBytes: () => number): Promise<StoreResult> {
	const old = sessionStoreOnKeyv(openKeyv(url, "bench:old"));
	const fresh = await createSessionStore(url, undefined, { namespace: "bench:new" });
	const other = await createSessionStore(url, undefined, { namespace: "bench:new" });
	try {
		const before: Record<string, number> = {};
		const after: Record<string, number> = {};
		for (const size of [20, 200]) {
			before[size] = await bytesPerTurn(old, size, "old", inputBytes);
			after[size] = await bytesPerTurn(fresh, size, "new", inputBytes);
		}
		console.log("bytes written per turn (two saves), private redis-server:");
		console.log("messages   whole record (before)   per-message entries (now)");
		for (const size of [20, 200])
			console.log(
				`${String(size).padStart(8)}   ${String(before[size]).padStart(21)}   ${String(after[size]).padStart(25)}`,
			);
		console.log(`lease hand-over at the store after a holder dies (TTL ${LEASE_TTL_MS / 1000} s): measuring...`);
		const handoverS = await handover(fresh, other);
		console.log(`lease hand-over at the store: ${handoverS.toFixed(2)} s`);
		return { before, after, handoverS };
	} finally {
		await Promise.all([old.close(), fresh.close(), other.close()]);
	}
}
