/**
 * The bytes of learners' pictures, stored once per lesson beside the sessions, and the
 * byte budget pictures draw on. The transcript keeps only a reference (media type, sha256,
 * size: core/learner-images.ts), so a session record and what a save writes stay small
 * however many pictures a lesson has; the model request loads the bytes of the few pictures
 * it still carries (engine/pictures.ts).
 *
 * Keys (this module owns them in its namespace, `learnharness:pictures` on the sessions' backend):
 * - `picture:<sessionId>:<sha256>`: the base64 bytes, content-addressed within the lesson (the
 *   same picture sent twice is stored once), expiring with the retention; deleted with the
 *   lesson (forgetLesson, called by forget-me and the retention sweep).
 * - `picture-bytes:lesson:<sessionId>:<hour>` and `picture-bytes:learner:<platform>:<id>:<day>`:
 *   bytes sent per lesson per hour and per learner per day, atomic increments in the state store,
 *   so every process sharing the store draws on the same budget.
 */

import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { type LearnerImage, PICTURE_PART, parsePictureRef } from "../../core/learner-images.ts";
import { stateKeys } from "./keys.ts";
import type { StateStore } from "./state-store.ts";
import type { SessionRecord } from "./types.ts";

const MIB = 1024 * 1024;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** How many picture bytes may reach the model (Infinity: no cap). */
export interface PictureBudget {
	/** Per lesson, per clock hour. */
	lessonBytesPerHour: number;
	/** Per learner (the member who sent them), per UTC day, across all their lessons. */
	learnerBytesPerDay: number;
}

/** Defaults: 40 MiB a lesson an hour (about a dozen phone photos), 150 MiB a learner a day. */
export const DEFAULT_PICTURE_BUDGET: PictureBudget = { lessonBytesPerHour: 40 * MIB, learnerBytesPerDay: 150 * MIB };

/** A charge's verdict: taken, or refused by the lesson's or the learner's budget (nothing was counted). */
export type PictureCharge = { ok: true } | { ok: false; scope: "lesson" | "learner"; limit: number };

/** Where the bytes of a stored picture are, and how big they are. */
export interface StoredPicture {
	sha256: string;
	bytes: number;
}

/** Pictures' bytes and budget. Every method may reject when the store fails. */
export interface PictureStore {
	readonly budget: PictureBudget;
	/** Store a picture's bytes for a lesson (once: an equal picture already stored is kept). */
	put(sessionId: string, image: LearnerImage): Promise<StoredPicture>;
	/** The base64 bytes of a lesson's picture; undefined when gone (expired, deleted) or not what the hash says. */
	get(sessionId: string, sha256: string): Promise<string | undefined>;
	/** Count `bytes` against the lesson's and the learner's budget; refused (and not counted) when either is over. */
	charge(sessionId: string, learnerKey: string, bytes: number): Promise<PictureCharge>;
	/** Delete the bytes of every picture a lesson's transcript references; how many keys went. */
	forgetLesson(record: Pick<SessionRecord, "sessionId" | "messages">): Promise<number>;
}

/** Options of createPictureStore. */
export interface PictureStoreOptions {
	budget?: Partial<PictureBudget>;
	/** How long bytes are kept without a deletion (the retention; default 365 days). */
	ttlMs?: number;
	/** Bytes (base64 characters) of pictures kept in memory for the requests of the next turns (default 64 MiB). */
	cacheBytes?: number;
	now?: () => number;
}

const sha256Of = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** The picture references (sha256) a record's transcript holds. */
export function pictureHashes(record: Pick<SessionRecord, "messages">): Set<string> {
	const out = new Set<string>();
	for (const message of record.messages)
		for (const part of message.parts)
			if (part.type === PICTURE_PART) {
				const ref = parsePictureRef((part as { data?: unknown }).data);
				if (ref) out.add(ref.sha256);
			}
	return out;
}

/** The picture store over a state store (its own namespace). */
export function createPictureStore(state: StateStore, options: PictureStoreOptions = {}): PictureStore {
	const budget: PictureBudget = { ...DEFAULT_PICTURE_BUDGET, ...options.budget };
	const ttlMs = options.ttlMs ?? 365 * DAY_MS;
	const now = options.now ?? Date.now;
	const key = stateKeys.picture;
	// The pictures of the current turns, so each model step does not read megabytes from the store again.
	const cache = new LRUCache<string, string>({
		maxSize: options.cacheBytes ?? 64 * MIB,
		sizeCalculation: (value) => Math.max(1, value.length),
	});

	/** Add `bytes` to a counter; false (and taken back) when the sum passes `limit`. */
	async function take(counter: string, bytes: number, limit: number, ttl: number): Promise<boolean> {
		if (!Number.isFinite(limit)) return true;
		const sum = await state.increment(counter, bytes, ttl);
		if (sum <= limit) return true;
		await state.increment(counter, -bytes, ttl);
		return false;
	}

	return {
		budget,
		async put(sessionId, image) {
			const raw = Buffer.from(image.base64, "base64");
			const sha256 = sha256Of(raw);
			// Set-if-absent: a picture already stored for this lesson is not written again.
			await state.setIfAbsent(key(sessionId, sha256), image.base64, ttlMs);
			cache.set(key(sessionId, sha256), image.base64);
			return { sha256, bytes: raw.byteLength };
		},
		async get(sessionId, sha256) {
			const k = key(sessionId, sha256);
			const hit = cache.get(k);
			if (hit !== undefined) return hit;
			const value = await state.get(k);
			// Parse, don't cast: the store is shared; only bytes that hash to their key are a picture.
			if (typeof value !== "string" || sha256Of(Buffer.from(value, "base64")) !== sha256) return undefined;
			cache.set(k, value);
			return value;
		},
		async charge(sessionId, learnerKey, bytes) {
			const hour = Math.floor(now() / HOUR_MS);
			const day = Math.floor(now() / DAY_MS);
			const lesson = stateKeys.pictureBytesOfLesson(sessionId, hour);
			if (!(await take(lesson, bytes, budget.lessonBytesPerHour, 2 * HOUR_MS)))
				return { ok: false, scope: "lesson", limit: budget.lessonBytesPerHour };
			if (await take(stateKeys.pictureBytesOfLearner(learnerKey, day), bytes, budget.learnerBytesPerDay, 2 * DAY_MS))
				return { ok: true };
			// The lesson's share was counted: take it back, so a refused picture costs nothing.
			if (Number.isFinite(budget.lessonBytesPerHour)) await state.increment(lesson, -bytes, 2 * HOUR_MS);
			return { ok: false, scope: "learner", limit: budget.learnerBytesPerDay };
		},
		async forgetLesson(record) {
			let removed = 0;
			for (const sha256 of pictureHashes(record)) {
				cache.delete(key(record.sessionId, sha256));
				if (await state.delete(key(record.sessionId, sha256))) removed++;
			}
			return removed;
		},
	};
}
