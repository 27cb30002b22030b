/**
 * The leases a shared store granted to this process (lease-book.ts): while one is surely held the
 * store answers the session's version from what it read with the grant and saved since, and says
 * the process holds the session, with no round trip; past its sure time a renewal finds out, and a
 * process paused past its lease learns it lost the session. On Redis and PostgreSQL: a paused
 * holder is told it lost the session to the process that took it over, and a save drops the inbox
 * entries it marks applied (no separate drop).
 */

import { describe, expect, it } from "vitest";
import { type BookLease, LEASE_MARGIN, leaseBook } from "../../../src/agent/store/lease-book.ts";
import { createSessionStore } from "../../../src/agent/store/session-store.ts";
import type { SessionRecord, SessionStore } from "../../../src/agent/store/types.ts";
import { sharedBackends } from "../../fixtures/shared-backends.ts";
import { learner } from "../helpers.ts";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A lease whose renewals (and release) answer what the test says, counted. */
function fakeLease(fence: number, answer: () => Promise<boolean>) {
	let renewals = 0;
	let released = 0;
	const lease: BookLease = {
		sessionId: "s1",
		fence,
		renew: () => {
			renewals++;
			return answer();
		},
		release: async () => {
			released++;
			return answer().catch(() => true);
		},
	};
	return { lease, renewals: () => renewals, released: () => released };
}

describe("the lease book", () => {
	it("knows the version under a lease surely held: from the grant, then from its own saves", () => {
		const book = leaseBook();
		const { lease } = fakeLease(3, async () => true);
		book.granted(lease, 60_000, performance.now(), 7);
		expect(book.version("s1")).toBe(7);
		book.saved("s1", 3, 8);
		expect(book.version("s1")).toBe(8);
		// A save under another fence (or none) is not this lease's: the store is asked again.
		book.saved("s1", undefined, 9);
		expect(book.version("s1")).toBeUndefined();
		book.saved("s1", 3, 10);
		expect(book.version("s1")).toBe(10);
		book.forget("s1");
		expect(book.version("s1")).toBeUndefined();
		expect(book.version("other")).toBeUndefined();
	});

	it("holds a session at once while sure, renews to find out after, and remembers a lease lost", async () => {
		const book = leaseBook();
		let alive = true;
		const fake = fakeLease(1, async () => alive);
		const held = book.granted(fake.lease, 60_000, performance.now(), 1);
		expect(await book.holding("s1")).toBe(true);
		expect(fake.renewals()).toBe(0);
		// Granted long ago (a pause): past its sure time, a renewal asks.
		const old = fakeLease(2, async () => alive);
		book.granted(old.lease, 1_000, performance.now() - 1_000, 1);
		expect(book.version("s1")).toBeUndefined(); // not sure any more: the store is asked
		expect(await book.holding("s1")).toBe(true);
		expect(old.renewals()).toBe(1);
		expect(await book.holding("s1")).toBe(true); // renewed: sure again
		expect(old.renewals()).toBe(1);
		// Expired and gone: lost, and it stays lost (no renewal asked again).
		const gone = fakeLease(3, async () => alive);
		book.granted(gone.lease, 1_000, performance.now() - 1_000);
		alive = false;
		expect(await book.holding("s1")).toBe(false);
		expect(await book.holding("s1")).toBe(false);
		expect(gone.renewals()).toBe(1);
		// A store that cannot answer counts as held (the card is posted: twice is better than never).
		const down = fakeLease(4, () => Promise.reject(new Error("down")));
		const downHeld = book.granted(down.lease, 1_000, performance.now() - 1_000);
		expect(await book.holding("s1")).toBe(true);
		// Given back: nothing says another process has it now.
		await downHeld.release();
		expect(down.released()).toBe(1);
		expect(await book.holding("s1")).toBe(true);
		// Asked about an older moment: the lease held then decides (`gone` was lost; `held` is over but was not).
		await held.release();
		expect(fake.released()).toBe(1);
	});

	it("judges what a lease covered by that lease: lost, given back cleanly, or held", async () => {
		const book = leaseBook();
		const first = fakeLease(1, async () => false);
		const held = book.granted(first.lease, 60_000, performance.now());
		const during = performance.now();
		await held.release(); // its release found it gone: lost
		expect(await book.holding("s1", during)).toBe(false);
		// Taken back later: a post of the new lease's time may go, one from the lost lease's time still may not.
		const second = fakeLease(2, async () => true);
		const again = book.granted(second.lease, 60_000, performance.now());
		const later = performance.now();
		expect(await book.holding("s1", later)).toBe(true);
		expect(await book.holding("s1", during)).toBe(false);
		// Given back while still its own: what it covered may still be posted.
		await again.release();
		expect(await book.holding("s1", later)).toBe(true);
		// A moment no lease of this process covered: nothing says another process has it.
		expect(await book.holding("s1", during - 1_000_000)).toBe(true);
	});

	it("counts on a lease for its TTL less the margin, from when it was asked", async () => {
		const book = leaseBook();
		const fake = fakeLease(1, async () => true);
		const ttl = 200;
		book.granted(fake.lease, ttl, performance.now());
		await sleep(ttl * (1 - LEASE_MARGIN) + 50);
		expect(await book.holding("s1")).toBe(true);
		expect(fake.renewals()).toBe(1);
	});
});

const { prefix, backends } = await sharedBackends("leasebook");

describe.each(backends)("leases held by this process on %s", (name, up, url) => {
	let n = 0;
	const namespace = `${prefix}_${name.slice(0, 2).toLowerCase()}`;
	const open = (): Promise<SessionStore> => createSessionStore(url(), undefined, { namespace, tablePrefix: namespace });
	const newId = () => `terminal:lb-${name.slice(0, 2)}-${++n}`;
	const record = (sessionId: string): SessionRecord => ({
		format: 1,
		sessionId,
		topic: "fractions",
		learner,
		mode: "solo",
		startedBy: learner,
		createdAt: "2026-01-01T00:00:00.000Z",
		updatedAt: "2026-01-01T00:00:00.000Z",
		messages: [],
		usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
		extra: {},
	});

	it.skipIf(!up)("a holder paused past its lease learns it lost the session to the one that took it", async () => {
		const [paused, taker] = await Promise.all([open(), open()]);
		try {
			const sessionId = newId();
			await paused.set(record(sessionId));
			const lease = await paused.acquire(sessionId, 300);
			expect(lease).toBeDefined();
			expect(await paused.holding?.(sessionId)).toBe(true);
			await sleep(500); // never renewed: expired
			expect(await taker.acquire(sessionId, 10_000)).toBeDefined();
			expect(await paused.holding?.(sessionId)).toBe(false);
			expect(await taker.holding?.(sessionId)).toBe(true);
		} finally {
			await Promise.all([paused.close(), taker.close()]);
		}
	});

	it.skipIf(!up)("a save under the lease drops the inbox entries it marks applied", async () => {
		const [holder, sender] = await Promise.all([open(), open()]);
		try {
			const sessionId = newId();
			const copy = record(sessionId);
			await holder.set(copy);
			const first = await sender.inbox.push(sessionId, '{"kind":"kick"}');
			const second = await sender.inbox.push(sessionId, '{"kind":"kick"}');
			const lease = await holder.acquire(sessionId, 10_000);
			if (!lease) throw new Error("no lease");
			expect(await holder.version(sessionId)).toBe(copy.version);
			copy.inbox = first;
			await holder.set(copy, { fence: lease.fence });
			expect(await sender.inbox.count(sessionId, 0)).toBe(1);
			expect((await sender.inbox.read(sessionId, 0, 10)).map((e) => e.seq)).toEqual([second]);
			copy.inbox = second;
			await holder.set(copy, { fence: lease.fence });
			expect(await sender.inbox.count(sessionId, 0)).toBe(0);
			await holder.inbox.drop(sessionId, second); // already dropped: nothing to do
			expect(await holder.version(sessionId)).toBe(copy.version);
			expect(await sender.version(sessionId)).toBe(copy.version);
			await lease.release();
		} finally {
			await Promise.all([holder.close(), sender.close()]);
		}
	});
});
