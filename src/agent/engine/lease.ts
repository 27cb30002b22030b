/**
 * Session leases in the engine, on every store (the embedded one grants them in memory). A
 * session's pump runs only while this process holds the session's lease: taken when the pump
 * starts (or by handle() for an idle session, engine/receive.ts), renewed while turns run (a long
 * model call keeps it), released when the pump stops. Every save under the lease carries its
 * fencing number, so a process that lost the lease (paused, partitioned) is refused by the store.
 * Taking the lease re-reads the record when its stored version moved: no copy in memory is trusted
 * across lease boundaries.
 */

import type { SessionLease } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import { pause, restoreRecord } from "./persist.ts";
import type { SessionState } from "./session-state.ts";

/** A lease's time to live; renewed every third of it while the pump runs. */
export const LEASE_TTL_MS = 10_000;
/** How much earlier than the store this process stops trusting its lease (clocks, the renewal's round trip). */
const LIVE_MARGIN = 0.2;

/** Take the session's lease once (no waiting): saves carry its fence from here on, trusted for most of its TTL. */
export async function tryLease(ctx: EngineContext, state: SessionState): Promise<SessionLease | undefined> {
	const ttl = ctx.leaseTtlMs ?? LEASE_TTL_MS;
	const asked = performance.now();
	const lease = await ctx.store.acquire(state.record.sessionId, ttl);
	if (lease) {
		state.fence = lease.fence;
		state.liveUntil = asked + ttl * (1 - LIVE_MARGIN);
	}
	return lease;
}

/** True while this process holds the session's lease for sure (a pump of its own runs under it). */
export const holdsLease = (state: SessionState): boolean =>
	state.fence !== undefined && !state.stale && performance.now() < (state.liveUntil ?? 0);

/** True while this process holds the session's lease for sure and its copy is the one the store has. */
export function isLive(state: SessionState): boolean {
	return state.live === true && !state.stale && performance.now() < (state.liveUntil ?? 0);
}
/** Longest a lease is kept after the work for the adapters' posts to go out (a plan picture may take 10 s). */
export const POSTED_WAIT_MS = 15_000;
/** Longest a pump waits for another process to apply (or give up the lease over) the events this process queued. */
export const LEASE_WAIT_MS = 2 * LEASE_TTL_MS;

/**
 * Bring the in-memory record up to the stored version (in place) when it moved: another
 * process saved the session. `when` guards the swap (it must still be safe once the read is
 * back). Returns whether the record was replaced.
 */
export async function refresh(
	ctx: EngineContext,
	state: SessionState,
	when: () => boolean = () => true,
	known?: SessionLease,
): Promise<boolean> {
	const id = state.record.sessionId;
	// A lease just granted says the stored version (no read of its own); otherwise it is asked.
	const stored = known?.version ?? (await ctx.store.version(id));
	if (stored === undefined || (stored === state.record.version && !state.stale)) return false;
	const fresh = await ctx.store.get(id);
	if (!fresh || !when()) return false;
	restoreRecord(state.record, fresh);
	state.stale = false;
	state.dirty = false;
	// Events queued in the record are as the store has them (another holder may have applied them): admitted
	// again from there (engine/queued.ts), not from this process's queue.
	if (fresh.queued) state.record.queued = fresh.queued;
	else delete state.record.queued;
	const local = state.queue.filter((job) => job.queued === undefined);
	state.queue.splice(0, state.queue.length, ...local);
	state.inherited = (fresh.queued?.length ?? 0) > 0;
	ctx.logger.debug({ sessionId: id, version: fresh.version }, "session re-read: another process saved it");
	return true;
}

/**
 * Refresh a copy whose lease this process does not hold for sure (another process may have saved the
 * session since): before an event is admitted against it, before its summary is shown. (A lease just
 * taken is not enough while its own re-read is on its way; one not renewed for most of its TTL is not
 * either: this process may have been paused past it.) A read that comes back once the copy is live is
 * dropped: the live copy is the latest. (Guarding on "idle" instead left a
 * copy whose pump was waiting for another process's lease unrefreshed: its summary missed the question the
 * lease holder had just asked.)
 */
export function refreshUnlessLive(ctx: EngineContext, state: SessionState): Promise<boolean> {
	const notLive = () => !isLive(state);
	return notLive() ? refresh(ctx, state, notLive) : Promise.resolve(false);
}

/** True while an entry this process appended to the session's inbox is still there (not applied and dropped). */
async function oursPending(ctx: EngineContext, state: SessionState): Promise<boolean> {
	const inbox = ctx.store.inbox;
	if (!inbox || state.pushed === undefined) return false;
	return (await inbox.count(state.record.sessionId, state.pushed)) > 0;
}

/**
 * Take the session's lease. When another process holds it, that holder applies what the inbox
 * holds before it lets go; this process waits (polling, capped at 1 s between tries, at most
 * `LEASE_WAIT_MS`) only while entries it appended are still there, and takes the lease when the
 * holder died or paused past it. Undefined: someone else has it (or the tutor closes).
 */
export function takeLease(ctx: EngineContext, state: SessionState): Promise<SessionLease | undefined> {
	return acquirePolling(ctx, state, ctx.leaseWaitMs ?? LEASE_WAIT_MS, () => oursPending(ctx, state));
}

/**
 * Try the session's lease, then again (50 ms doubling, capped at 1 s) while `keepTrying` says so and
 * `withinMs` has not passed; undefined when it stayed taken (or the tutor closes).
 */
async function acquirePolling(
	ctx: EngineContext,
	state: SessionState,
	withinMs: number,
	keepTrying: () => boolean | Promise<boolean>,
): Promise<SessionLease | undefined> {
	const sessionId = state.record.sessionId;
	const ttl = ctx.leaseTtlMs ?? LEASE_TTL_MS;
	const deadline = Date.now() + withinMs;
	for (let attempt = 0; attempt < 10_000 && !ctx.signal.aborted; attempt++) {
		const lease = await ctx.store.acquire(sessionId, ttl);
		if (lease) return lease;
		if (Date.now() >= deadline || !(await keepTrying())) return undefined;
		await pause(Math.min(50 * 2 ** attempt, 1_000), ctx.signal);
	}
	return undefined;
}

/** Whether the session leaves work behind when its lease is given back (a cut-off turn, a pending grading). */
const workLeft = (state: SessionState): boolean =>
	!state.record.ended && (state.record.turnOpen === true || (state.record.grading?.length ?? 0) > 0);

/**
 * Run `work` under `lease` (taken by takeLease): the fence goes on every save, the lease is renewed
 * every third of its TTL while the work runs, and it is given back at the end (marked as leaving work
 * when the turn was cut off, so another process takes the session at once). `fresh`: the record was
 * re-read under this lease already (handle() took it).
 */
export async function underLease<T>(
	ctx: EngineContext,
	state: SessionState,
	held: SessionLease,
	work: () => Promise<T>,
	fresh = false,
): Promise<T> {
	const sessionId = state.record.sessionId;
	const ttl = ctx.leaseTtlMs ?? LEASE_TTL_MS;
	const trustFor = ttl * (1 - LIVE_MARGIN);
	const grantedAt = performance.now();
	let renewing: Promise<unknown> = Promise.resolve();
	const timer = setInterval(
		() => {
			const asked = performance.now();
			renewing = held.renew().then(
				(ok) => {
					if (ok) state.liveUntil = Math.max(state.liveUntil ?? 0, asked + trustFor);
					else {
						state.stale = true;
						ctx.logger.warn({ sessionId }, "the session's lease was lost (expired and taken); its saves are refused");
					}
				},
				(error: unknown) => ctx.logger.warn({ err: error, sessionId }, "renewing the session's lease failed"),
			);
		},
		Math.max(10, Math.floor(ttl / 3)),
	);
	try {
		// The copy is the lease's only once it is re-read: until then an event goes the way of one held elsewhere
		// (checked against a fresh read, appended to the inbox this lease drains), never admitted against the old copy
		// (its save would be refused as stale: the learner was told their answer was not recorded).
		// (A lease handle() or the pump's first try took set both when it was granted: tryLease.)
		if (!fresh) {
			await refresh(ctx, state, undefined, held);
			state.fence = held.fence;
			state.liveUntil = Math.max(state.liveUntil ?? 0, grantedAt + trustFor);
		}
		state.live = true;
		return await work();
	} finally {
		state.live = false;
		state.liveUntil = undefined;
		// The lease is kept (and renewed) until the platforms have the questions this process took on: a
		// process that dies while posting leaves them unpublished on disk, for the one that takes over.
		if (!state.stale) await ctx.hub.drained(sessionId, POSTED_WAIT_MS);
		clearInterval(timer);
		await renewing;
		// Saves queued under this lease land before it is given back. Marks no save carried yet (the cards a
		// turn's questions were posted as) ride the session's next save, as they always did: a holder that
		// reads the record before that finds the questions marked unposted, offers them again, and the
		// platforms find the cards already in the thread (one look, no second card).
		await state.saving;
		state.fence = undefined;
		await held.release(workLeft(state));
	}
}

/**
 * Run `work` under the session's lease from outside its pump (a forget-me rewrite), waiting for it
 * (polling, capped at 1 s between tries) at most `withinMs`; throws when it stays taken.
 */
export async function withLease<T>(
	ctx: EngineContext,
	state: SessionState,
	withinMs: number,
	work: () => Promise<T>,
): Promise<T> {
	// Not while this process's own pump runs the session (it may hold the lease now): wait for it.
	for (let i = 0; i < 10_000 && state.pump && !ctx.signal.aborted; i++) await state.pump.catch(() => undefined);
	const lease = await acquirePolling(ctx, state, withinMs, () => true);
	if (!lease) throw new Error(`session ${state.record.sessionId} stayed busy for ${withinMs} ms`);
	return underLease(ctx, state, lease, work);
}
