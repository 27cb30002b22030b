/**
 * The picture store: bytes once per lesson under their sha256, read back only when they hash
 * to their key, deleted with the lesson (forget-me and the retention sweep call it), and a
 * byte budget counted with atomic increments, so processes sharing the store share it.
 */

import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Keyv from "keyv";
import { afterAll, describe, expect, it } from "vitest";
import { createLearning } from "../../../src/agent/profile/learning.ts";
import { createPictureStore } from "../../../src/agent/store/picture-store.ts";
import { sessionStoreOnKeyv } from "../../../src/agent/store/session-store.ts";
import { createMemoryStateStore, openStateStore, type StateStore } from "../../../src/agent/store/state-store.ts";
import type { LearnerImage } from "../../../src/core/learner-images.ts";
import { fractionsRecord } from "../../fixtures/profile-lesson.ts";
import { listening } from "../../fixtures/redis-server.ts";
import { dropRedisKeys, REDIS_URL, runPrefix } from "../../fixtures/shared-stores.ts";

const dir = mkdtempSync(join(tmpdir(), "lh-pictures-"));
const ns = runPrefix("pictures");
const redisUp = await listening(6379);
afterAll(async () => {
	rmSync(dir, { recursive: true, force: true });
	if (redisUp) await dropRedisKeys(ns);
});

const png = (size: number): LearnerImage => ({
	mediaType: "image/png",
	base64: Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		randomBytes(size - 8),
	]).toString("base64"),
});

/** A state store that counts its writes (to see what a second put costs). */
function counting(state: StateStore) {
	const writes: string[] = [];
	const wrapped: StateStore = {
		...state,
		setIfAbsent: async (key, value, ttl) => {
			const stored = await state.setIfAbsent(key, value, ttl);
			if (stored) writes.push(key);
			return stored;
		},
	};
	return { wrapped, writes };
}

describe("the picture store", () => {
	it("stores a picture once per lesson under its sha256 and reads back only bytes that hash to it", async () => {
		const state = createMemoryStateStore();
		const { wrapped, writes } = counting(state);
		const pictures = createPictureStore(wrapped, { cacheBytes: 1 }); // no cache: every read goes to the store
		const image = png(1000);
		const sha = createHash("sha256").update(Buffer.from(image.base64, "base64")).digest("hex");
		expect(await pictures.put("terminal:a", image)).toEqual({ sha256: sha, bytes: 1000 });
		expect(await pictures.put("terminal:a", image)).toEqual({ sha256: sha, bytes: 1000 });
		await pictures.put("terminal:b", image); // another lesson keeps its own copy (deleted with it)
		expect(writes).toEqual([`picture:terminal:a:${sha}`, `picture:terminal:b:${sha}`]);
		expect(await pictures.get("terminal:a", sha)).toBe(image.base64);
		// Someone else's bytes under the key are not this picture.
		await state.set(`picture:terminal:a:${sha}`, png(1000).base64);
		expect(await pictures.get("terminal:a", sha)).toBeUndefined();
		expect(await pictures.get("terminal:a", "0".repeat(64))).toBeUndefined();
	});

	it("refuses a charge over the lesson's hour or the learner's day, counting nothing of it", async () => {
		let now = Date.parse("2026-03-01T10:10:00.000Z");
		const state = createMemoryStateStore(() => now);
		const pictures = createPictureStore(state, {
			budget: { lessonBytesPerHour: 1000, learnerBytesPerDay: 1500 },
			now: () => now,
		});
		expect(await pictures.charge("terminal:a", "terminal:u1", 600)).toEqual({ ok: true });
		expect(await pictures.charge("terminal:a", "terminal:u1", 600)).toEqual({
			ok: false,
			scope: "lesson",
			limit: 1000,
		});
		expect(await pictures.charge("terminal:a", "terminal:u1", 400)).toEqual({ ok: true }); // the refusal counted nothing
		now += 60 * 60 * 1000; // the next hour: the lesson may send again, the learner's day goes on
		expect(await pictures.charge("terminal:a", "terminal:u1", 600)).toEqual({
			ok: false,
			scope: "learner",
			limit: 1500,
		});
		expect(await pictures.charge("terminal:a", "terminal:u1", 500)).toEqual({ ok: true }); // the lesson's share was given back
		expect(await pictures.charge("terminal:b", "terminal:u2", 900)).toEqual({ ok: true });
	});

	it.skipIf(!redisUp)("shares the budget between two connections to Redis (two processes)", async () => {
		const states = [openStateStore(REDIS_URL, ns), openStateStore(REDIS_URL, ns)];
		try {
			const [a, b] = states.map((s) =>
				createPictureStore(s, { budget: { lessonBytesPerHour: 10_000, learnerBytesPerDay: Infinity } }),
			);
			if (!a || !b) throw new Error("two stores");
			const verdicts = await Promise.all(
				Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).charge("slack:T:C:1.2", "slack:U1", 1000)),
			);
			expect(verdicts.filter((v) => v.ok)).toHaveLength(10);
		} finally {
			for (const s of states) await s.close();
		}
	});

	it("deletes a lesson's pictures with it: forget-me and the retention sweep", async () => {
		const state = openStateStore(`sqlite://${join(dir, "p.sqlite")}`, "learnharness:pictures");
		const pictures = createPictureStore(state);
		const sessions = sessionStoreOnKeyv(new Keyv());
		let t = Date.parse("2026-03-02T00:00:00.000Z");
		const learning = createLearning({ state: createMemoryStateStore(), sessions, pictures, now: () => new Date(t) });
		const withPicture = async (sessionId: string) => {
			const record = fractionsRecord({ sessionId, learnerId: "u1" });
			const stored = await pictures.put(sessionId, png(500));
			const ref = { mediaType: "image/png", ...stored, turn: 0 };
			record.messages.push({ id: `m-${sessionId}`, role: "user", parts: [{ type: "data-picture", data: ref }] });
			await sessions.set(record);
			await learning.recordLesson(record);
			return stored.sha256;
		};
		const kept = await withPicture("discord:g1:t1");
		const swept = await withPicture("discord:g2:t2");
		await learning.setRetention("g2", 1);
		t += 2 * 86_400_000;
		expect(await learning.sweep()).toBe(1);
		expect(await state.get(`picture:discord:g2:t2:${swept}`)).toBeUndefined();
		expect(await pictures.get("discord:g1:t1", kept)).toBeDefined();
		await learning.forget("discord:u1");
		expect(await state.get(`picture:discord:g1:t1:${kept}`)).toBeUndefined();
		await state.close();
	});
});
