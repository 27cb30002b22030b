/**
 * Forget-me of a learner's own lesson: deleted for good, even while it runs. Nothing more is
 * admitted to it (late clicks and messages are refused), what is queued is dropped, the turn
 * running in this process is waited for (bounded: a model call may hang), and the deletion is
 * done under the session's lease (every store grants them) when it can be had in that time (a turn running
 * in another process finishes first). A turn still running after the wait cannot bring the record
 * back: every save compares versions, and the record's version is gone with it; its inbox goes in
 * the same deletion and the store refuses entries for a session it does not hold.
 */

import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import type { SessionLease } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import { LEASE_TTL_MS } from "./lease.ts";
import { pause } from "./persist.ts";
import type { SessionState } from "./session-state.ts";

/** How long forget-me waits for a lesson's running turn (and its lease) before deleting it anyway. */
export const FORGET_WAIT_MS = 20_000;

/** A promise that settles when `work` does or `ms` passed, whichever is first (true: `work` settled). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<false>((done) => {
		timer = setTimeout(() => done(false), Math.max(0, ms));
	});
	try {
		return await Promise.race([
			work.then(
				() => true,
				() => true,
			),
			late,
		]);
	} finally {
		clearTimeout(timer);
	}
}

/** Stop admitting anything to `state`, drop its queued jobs (their senders are told), wait (until `deadline`) for its pump. */
async function quiesce(state: SessionState, deadline: number): Promise<void> {
	// admit() refuses everything once an end is under way: nothing new reaches the queue or the inbox from here.
	state.ending = true;
	const message = t(state.record.language ?? DEFAULT_LOCALE, "engine.noLesson");
	for (const job of state.queue.splice(0)) job.delivered?.({ ok: false, code: "unknown-session", message });
	state.claims.clear();
	// The pump restarts itself while jobs remain; none are left, so this ends with the running turn.
	for (let i = 0; i < 100 && state.pump && Date.now() < deadline; i++)
		if (!(await within(state.pump, deadline - Date.now()))) break;
	await within(state.saving, deadline - Date.now());
}

/** Take the session's lease, trying until `deadline`; undefined when it stayed taken. */
async function leaseUntil(ctx: EngineContext, sessionId: string, deadline: number): Promise<SessionLease | undefined> {
	for (let attempt = 0; attempt < 10_000 && !ctx.signal.aborted; attempt++) {
		const lease = await ctx.store.acquire(sessionId, ctx.leaseTtlMs ?? LEASE_TTL_MS);
		if (lease || Date.now() >= deadline) return lease;
		await pause(Math.max(0, Math.min(50 * 2 ** attempt, 1_000, deadline - Date.now())), ctx.signal);
	}
	return undefined;
}

/**
 * Delete `sessionId` for good (see the file comment). `state`: its live state in this process, if any
 * (the caller drops it from memory afterwards). True when a record was deleted; rejects when the store fails.
 */
export async function forgetSession(
	ctx: EngineContext,
	sessionId: string,
	state: SessionState | undefined,
	waitMs: number = FORGET_WAIT_MS,
): Promise<boolean> {
	const deadline = Date.now() + waitMs;
	if (state) await quiesce(state, deadline);
	const lease = await leaseUntil(ctx, sessionId, deadline);
	if (!lease) ctx.logger.warn({ sessionId }, "forget-me: the lesson stayed busy elsewhere; deleted without its lease");
	try {
		return await ctx.store.delete(sessionId);
	} finally {
		// Nothing is left to do for anyone: the session is not due for another taker.
		await lease?.release(false);
	}
}
