/**
 * The leases one shared store instance (Redis, PostgreSQL) granted to this process, kept so the store
 * can answer two questions without a round trip while a lease is surely held:
 *
 * - the session's stored version (`version`): read in the same atomic step as the grant, then set by
 *   each save this store made under that lease. While the lease is held no other writer moves it: a
 *   save under another lease carries a lower fence and is refused (a new lesson's first save is the
 *   only save without one, and it writes only where no record exists);
 * - whether this process still holds the session (`holding`): at once while its lease was granted or
 *   renewed less than its TTL ago (less a margin for a pause or the clocks); after that, one renewal
 *   asks the store. A process paused past its lease learns it lost it before it acts on its old copy.
 *
 * "Surely held" is by this process's monotonic clock from the moment the grant or renewal was asked:
 * the store's expiry comes later than that, so no other process can have taken the lease meanwhile.
 */

import type { SessionLease } from "./types.ts";

/** The share of a lease's TTL this process does not count on (a pause, the renewal's round trip, the clocks). */
export const LEASE_MARGIN = 0.2;

interface Held {
	fence: number;
	/** performance.now() until which the lease is surely this process's. */
	until: number;
	/** The stored version as this process knows it under the lease; undefined: ask the store. */
	version?: number;
	/** A renewal said the lease is gone (expired and perhaps taken). */
	lost: boolean;
	renew: () => Promise<boolean>;
}

/** The book of one store instance. */
export interface LeaseBook {
	/**
	 * A lease just granted (asked at `askedAt`, performance.now()), with the stored version read in the same
	 * step (undefined when the grant did not read it): the returned lease keeps the book on renew and release.
	 */
	granted(lease: SessionLease, ttlMs: number, askedAt: number, version?: number): SessionLease;
	/** The stored version while this process surely holds the session's lease and knows it; else undefined. */
	version(sessionId: string): number | undefined;
	/** A save through this store landed at `version` (under the lease with `fence`, when given). */
	saved(sessionId: string, fence: number | undefined, version: number): void;
	/** Forget what the book knows of the session's version (a refused save, a delete). */
	forget(sessionId: string): void;
	/**
	 * Whether this process still holds the session: true while its lease is surely held, and when none of its
	 * leases of it is out (given back, or never taken here); false once a renewal found the lease gone. A lease
	 * past its sure time is renewed to find out; a store that fails to answer counts as held (never rejects).
	 */
	holding(sessionId: string): Promise<boolean>;
}

/** A new, empty book. */
export function leaseBook(): LeaseBook {
	const held = new Map<string, Held>();
	const sure = (entry: Held) => !entry.lost && performance.now() < entry.until;
	return {
		granted(lease, ttlMs, askedAt, version) {
			const trust = ttlMs * (1 - LEASE_MARGIN);
			const entry: Held = {
				fence: lease.fence,
				until: askedAt + trust,
				...(version === undefined ? {} : { version }),
				lost: false,
				renew: () => lease.renew(),
			};
			const renew = async (): Promise<boolean> => {
				const asked = performance.now();
				const ok = await lease.renew();
				if (held.get(lease.sessionId) === entry) {
					if (ok) entry.until = Math.max(entry.until, asked + trust);
					else entry.lost = true;
				}
				return ok;
			};
			entry.renew = renew;
			held.set(lease.sessionId, entry);
			return {
				sessionId: lease.sessionId,
				fence: lease.fence,
				renew,
				async release(work) {
					if (held.get(lease.sessionId) === entry) held.delete(lease.sessionId);
					await lease.release(work);
				},
			};
		},
		version(sessionId) {
			const entry = held.get(sessionId);
			return entry && sure(entry) ? entry.version : undefined;
		},
		saved(sessionId, fence, version) {
			const entry = held.get(sessionId);
			if (!entry) return;
			if (fence === entry.fence) entry.version = version;
			else delete entry.version;
		},
		forget(sessionId) {
			const entry = held.get(sessionId);
			if (entry) delete entry.version;
		},
		async holding(sessionId) {
			const entry = held.get(sessionId);
			if (!entry) return true;
			if (entry.lost) return false;
			if (sure(entry)) return true;
			return entry.renew().catch(() => true);
		},
	};
}
