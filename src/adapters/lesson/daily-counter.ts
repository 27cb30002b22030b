/**
 * Lessons started per member per UTC day, kept in the state store (so a
 * restart does not reset the limit). The store has no atomic increment, so
 * check-and-count runs serialized per member and day inside this process: two
 * quick `/lesson start`s cannot both slip under a limit of one.
 */

import type { StateStore } from "../../agent/index.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The outcome of take(): counted, or refused at `count` lessons today. */
export interface DailyTake {
	ok: boolean;
	/** Lessons today after the take (ok) or at the refusal. */
	count: number;
}

/** A per-member daily lesson counter over the state store. */
export class DailyLessonCounter {
	private readonly chains = new Map<string, Promise<unknown>>();

	constructor(private readonly store: StateStore) {}

	/** Lessons counted for a member on `now`'s UTC day. */
	async today(scope: string, userId: string, now: Date = new Date()): Promise<number> {
		return this.read(this.key(scope, userId, now));
	}

	/** Count one more lesson unless `limit` (> 0) is already reached; `limit` 0 counts without a check (admins). */
	take(scope: string, userId: string, limit: number, now: Date = new Date()): Promise<DailyTake> {
		const key = this.key(scope, userId, now);
		return this.serialize(key, async () => {
			const count = await this.read(key);
			if (limit > 0 && count >= limit) return { ok: false, count };
			await this.store.set(key, count + 1, 2 * DAY_MS);
			return { ok: true, count: count + 1 };
		});
	}

	/** Undo one take (the lesson did not start after all). */
	giveBack(scope: string, userId: string, now: Date = new Date()): Promise<void> {
		const key = this.key(scope, userId, now);
		return this.serialize(key, async () => {
			const count = await this.read(key);
			if (count > 0) await this.store.set(key, count - 1, 2 * DAY_MS);
		});
	}

	private async read(key: string): Promise<number> {
		const n: unknown = await this.store.get(key);
		return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : 0;
	}

	private serialize<T>(key: string, work: () => Promise<T>): Promise<T> {
		const previous = this.chains.get(key) ?? Promise.resolve();
		const next = previous.catch(() => undefined).then(work);
		this.chains.set(key, next);
		const forget = () => {
			if (this.chains.get(key) === next) this.chains.delete(key);
		};
		next.then(forget, forget);
		return next;
	}

	private key(scope: string, userId: string, now: Date): string {
		return `count:${scope}:${userId}:${now.toISOString().slice(0, 10)}`;
	}
}
