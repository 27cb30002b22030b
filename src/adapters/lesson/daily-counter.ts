/**
 * Lessons started per member per UTC day, kept in the state store (so a
 * restart does not reset the limit). Counted with the store's atomic increment:
 * a take adds one and gives it back when that went over the limit, so two
 * quick `/lesson start`s (in one process or two sharing the store) cannot both
 * slip under a limit of one.
 */

import { type StateStore, stateKeys } from "../../agent/index.ts";
import { dayOf } from "./usage-period.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The outcome of take(): counted, or refused at `count` lessons today. */
export interface DailyTake {
	ok: boolean;
	/** Lessons today after the take (ok), or the limit reached (refused). */
	count: number;
}

/** A per-member daily lesson counter over the state store. */
export class DailyLessonCounter {
	constructor(private readonly store: StateStore) {}

	/** Lessons counted for a member on `now`'s UTC day. */
	async today(scope: string, userId: string, now: Date = new Date()): Promise<number> {
		const n: unknown = await this.store.get(this.key(scope, userId, now));
		return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : 0;
	}

	/** Count one more lesson unless `limit` (> 0) is already reached; `limit` 0 counts without a check (admins). */
	async take(scope: string, userId: string, limit: number, now: Date = new Date()): Promise<DailyTake> {
		const key = this.key(scope, userId, now);
		const count = await this.store.increment(key, 1, 2 * DAY_MS);
		if (limit > 0 && count > limit) {
			// Over: the add is undone. A racing take may briefly read one too many, and is refused as it should be.
			await this.store.increment(key, -1, 2 * DAY_MS);
			return { ok: false, count: limit };
		}
		return { ok: true, count };
	}

	/** Undo one take (the lesson did not start after all). */
	async giveBack(scope: string, userId: string, now: Date = new Date()): Promise<void> {
		const key = this.key(scope, userId, now);
		if ((await this.store.increment(key, -1, 2 * DAY_MS)) < 0) await this.store.increment(key, 1, 2 * DAY_MS);
	}

	/**
	 * Forget-me: drop a member's counts of the last three days (a count lives 2 days after its last take, late
	 * on its day). Rejects when the store fails.
	 */
	async forget(scope: string, userId: string, now: Date): Promise<void> {
		for (const back of [0, 1, 2])
			await this.store.delete(this.key(scope, userId, new Date(now.getTime() - back * DAY_MS)));
	}

	private key(scope: string, userId: string, now: Date): string {
		return stateKeys.count(scope, userId, dayOf(now));
	}
}
