/**
 * Scale-out benchmark (`npm run bench:scale`), the store part so far: on a private
 * redis-server (a spare loopback port, nothing else talking to it), the bytes a turn writes
 * at 20 and 200 messages, before (the whole record per save, the keyv layout) and after (a
 * list entry per message), read from the server's own `total_net_input_bytes`; and the lease
 * hand-over time: a holder that dies without releasing (as after `kill -9`), and the time
 * until another process gets the session's lease with the default TTL.
 *
 * A turn here is what the engine writes in one: the learner's message with the turn marked
 * open (one save), then the tutor's reply with the turn closed (one save). Messages are about
 * 700 bytes of JSON, like a quiz call with its result.
 *
 * Not yet here (issue 12): 1/2/4 bot processes with 1,000 live lessons, ack p99 and turns per
 * second, REST calls per turn. The last line is one JSON object.
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LEASE_TTL_MS } from "../src/agent/engine/lease.ts";
import { openKeyv } from "../src/agent/store/keyv.ts";
import { createSessionStore, sessionStoreOnKeyv } from "../src/agent/store/session-store.ts";
import type { LessonMessage, SessionRecord, SessionStore } from "../src/agent/store/types.ts";
import { freePort, redisServerInstalled, testRedis } from "../test/fixtures/redis-server.ts";

if (!redisServerInstalled) {
	console.error("bench:scale needs redis-server (Debian package redis-server)");
	process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "lh-bench-scale-"));
const port = await freePort();
const redis = testRedis(port, dir);
await redis.start();
const watchdog = setTimeout(() => {
	console.error("bench:scale took over 120 s; stopping");
	void redis.stop().finally(() => process.exit(1));
}, 120_000);

/** Bytes the server has received from all clients so far. */
function inputBytes(): number {
	const info = execFileSync("redis-cli", ["-p", String(port), "info", "stats"], { encoding: "utf8" });
	return Number(/total_net_input_bytes:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

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
async function bytesPerTurn(store: SessionStore, size: number, label: string): Promise<number> {
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

try {
	const old = sessionStoreOnKeyv(openKeyv(redis.url, "bench:old"));
	const fresh = await createSessionStore(redis.url, undefined, { namespace: "bench:new" });
	const other = await createSessionStore(redis.url, undefined, { namespace: "bench:new" });
	const sizes = [20, 200] as const;
	const before: Record<string, number> = {};
	const after: Record<string, number> = {};
	for (const size of sizes) {
		before[size] = await bytesPerTurn(old, size, "old");
		after[size] = await bytesPerTurn(fresh, size, "new");
	}
	console.log("bytes written per turn (two saves), private redis-server:");
	console.log("messages   whole record (before)   per-message entries (now)");
	for (const size of sizes)
		console.log(
			`${String(size).padStart(8)}   ${String(before[size]).padStart(21)}   ${String(after[size]).padStart(25)}`,
		);
	console.log(`lease hand-over after a holder dies (TTL ${LEASE_TTL_MS / 1000} s): measuring...`);
	const handoverS = await handover(fresh, other);
	console.log(`lease hand-over: ${handoverS.toFixed(2)} s`);
	await Promise.all([old.close(), fresh.close(), other.close()]);
	console.log(
		JSON.stringify({
			bench: "scale",
			backend: "redis",
			bytes_per_turn: after,
			bytes_per_turn_before: before,
			handover_s: Number(handoverS.toFixed(2)),
			lease_ttl_s: LEASE_TTL_MS / 1000,
		}),
	);
} finally {
	clearTimeout(watchdog);
	await redis.stop();
	rmSync(dir, { recursive: true, force: true });
}
