/**
 * The leases one shared store instance (Redis, PostgreSQL) granted to this process, kept so the store
 * can answer two questions without a round trip while a lease is surely held:
 *
 * - the session's stored version (`version`): read in the same atomic step as the grant, then set by
 *   each save this store made under that lease. While the lease is held no other writer moves it: a
 *   save under another lease carries a lower fence and is refused (a new lesson's first save is the
 *   only save without one, and it writes only where no record exists);
 * - whether the lease this process held at some moment was never lost (`holding`): at once while it
 *   was granted or renewed less than its TTL ago (less a margin for a pause or the clocks); after
 *   that, one renewal asks the store; once given back, what its release found. A process paused past
 *   its lease learns it lost it before it acts on what it did under it (posts a question's card).
 *
 * "Surely held" is by this process's monotonic clock from the moment the grant or renewal was asked:
 * the store's expiry comes later than that, so no other process can have taken the lease meanwhile.
 */

import { LRUCache } from "lru-cache";
import type { SessionLease } from "./types.ts";

/** The share of a lease's TTL this process does not count on (a pause, the renewal's round trip, the clocks). */
export const LEASE_MARGIN = 0.2;

interface Held {
	fence: number;
	/** performance.now() when the grant was asked (the lease covers what happened after it until it ended). */
	askedAt: number;
	/** performance.now() until which the lease is surely this process's. */
	until: number;
	/** The stored version as this process knows it under the lease; undefined: ask the store. */
	version?: number;
	/** A renewal or the release found the lease gone (expired and perhaps taken). */
	lost: boolean;
	/** performance.now() when it was given back. */
	ended?: number;
	renew: () => Promise<boolean>;
}

/** A lease as a store grants it, whose release says whether it was still the holder's (false: lost before). */
export type BookLease = Omit<SessionLease, "release"> & { release(work?: boolean): Promise<boolean> };

/** The book of one store instance. */
export interface LeaseBook {
	/**
	 * A lease just granted (asked at `askedAt`, performance.now()), with the stored version read in the same
	 * step (undefined when the grant did not read it): the returned lease keeps the book on renew and release.
	 */
	granted(lease: BookLease, ttlMs: number, askedAt: number, version?: number): SessionLease;
	/** The stored version while this process surely holds the session's lease and knows it; else undefined. */
	version(sessionId: string): number | undefined;
	/** A save through this store landed at `version` (under the lease with `fence`, when given). */
	saved(sessionId: string, fence: number | undefined, version: number): void;
	/** Forget what the book knows of the session's version (a refused save, a delete). */
	forget(sessionId: string): void;
	/**
	 * Whether the lease of the session this process held at `at` (performance.now(); default now) was never
	 * lost: true while it is surely held, and once given back while still its own; false once a renewal or its
	 * release found it gone. A lease past its sure time is renewed to find out; a store that fails to answer
	 * counts as held; no lease of it held then (or one too old to be remembered): true. Never rejects.
	 */
	holding(sessionId: string, at?: number): Promise<boolean>;
}

/** Leases remembered per session (the newest; an older one is asked about only while a post is on its way). */
const HISTORY = 4;

/** A new, empty book. */
export function leaseBook(): LeaseBook {
	const leases = new LRUCache<string, Held[]>({ max: 10_000 });
	const sure = (entry: Held) => !entry.lost && entry.ended === undefined && performance.now() < entry.until;
	/** The lease held now (the newest, not given back). */
	const current = (sessionId: string): Held | undefined => {
		const newest = leases.get(sessionId)?.at(-1);
		return newest && newest.ended === undefined ? newest : undefined;
	};
	return {
		granted(lease, ttlMs, askedAt, version) {
			const trust = ttlMs * (1 - LEASE_MARGIN);
			const entry: Held = {
				fence: lease.fence,
				askedAt,
				until: askedAt + trust,
				...(version === undefined ? {} : { version }),
				lost: false,
				renew: () => lease.renew(),
			};
			const renew = async (): Promise<boolean> => {
				const asked = performance.now();
				const ok = await lease.renew();
				if (ok) entry.until = Math.max(entry.until, asked + trust);
				else entry.lost = true;
				return ok;
			};
			entry.renew = renew;
			const list = leases.get(lease.sessionId) ?? [];
			for (const older of list) older.ended ??= askedAt; // a lease not given back is over once another is granted
			leases.set(lease.sessionId, [...list.slice(-(HISTORY - 1)), entry]);
			return {
				sessionId: lease.sessionId,
				fence: lease.fence,
				renew,
				async release(work) {
					entry.ended ??= performance.now();
					// Gone before it was given back (expired, perhaps taken): what it covered is not this process's to post.
					if (!(await lease.release(work))) entry.lost = true;
				},
			};
		},
		version(sessionId) {
			const entry = current(sessionId);
			return entry && sure(entry) ? entry.version : undefined;
		},
		saved(sessionId, fence, version) {
			const entry = current(sessionId);
			if (!entry) return;
			if (fence === entry.fence) entry.version = version;
			else delete entry.version;
		},
		forget(sessionId) {
			const entry = current(sessionId);
			if (entry) delete entry.version;
		},
		async holding(sessionId, at = performance.now()) {
			const list = leases.get(sessionId) ?? [];
			const entry = list.findLast((e) => e.askedAt <= at && (e.ended === undefined || e.ended >= at));
			if (!entry) return true;
			if (entry.lost) return false;
			if (entry.ended !== undefined || sure(entry)) return true;
			return entry.renew().catch(() => true);
		},
	};
}
