/**
 * handle(): a learner event reaches the session, on every store the same way. Where it goes depends
 * only on who holds the session's lease (every store grants them; the embedded one in memory):
 *
 * - **held here** (this process's pump runs the session): checked against the live copy at once, so
 *   two events cannot both claim one question; it rides a save of the record (`record.queued`,
 *   engine/queued.ts) and is acknowledged once that save landed; the pump applies it after the turn;
 * - **idle** (nobody holds it): this process takes the lease, re-reads the record when it moved, checks
 *   the event, and applies and saves it in one batch (the pump's first round, under that lease); the
 *   learner hears the verdict once it is on disk, before any model work;
 * - **held elsewhere** (another process): checked against the stored session and appended to the
 *   session's inbox; the holder applies it (engine/inbox.ts). The append carries the copy's version,
 *   so the store appends only while the session is still at it; when it moved, or the copy refused
 *   the event (it may be out of date), the session is re-read and the event checked again.
 *
 * The verdict never waits for a model call or for another process's turn.
 */

import type { HandleResult, LearnerEvent } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import { isStoreConflict } from "../store/errors.ts";
import type { QueuedEvent, SessionLease } from "../store/types.ts";
import { type Admission, admit, claim } from "./admit.ts";
import type { EngineContext } from "./context.ts";
import { pushInbox } from "./inbox.ts";
import { holdsLease, isLive, refresh, refreshUnlessLive, tryLease } from "./lease.ts";
import { notSavedMessage, saveRetrying } from "./persist.ts";
import { kick } from "./pump.ts";
import { dropQueuedEntries, readmitQueued } from "./queued.ts";
import type { SessionState } from "./session-state.ts";

/** Checks against a re-read copy before the event is appended without a version (the holder checks it again). */
const ATTEMPTS = 3;

/** The verdict of an admitted event, with a vote's acknowledgement when it has one. */
const accepted = (verdict: Extract<Admission, { ok: true }>): HandleResult =>
	verdict.ack ? { ok: true, vote: verdict.ack } : { ok: true };

/** Take an event for the session (see the file comment). */
export async function receive(ctx: EngineContext, state: SessionState, event: LearnerEvent): Promise<HandleResult> {
	// Another event of this process is taking the lease: after it, this one is admitted against the same copy.
	for (let i = 0; i < 100 && state.entering; i++) await state.entering;
	if (holdsLease(state)) return receiveHeld(ctx, state, event);
	if (state.pump === undefined) {
		const verdict = await receiveIdle(ctx, state, event);
		if (verdict) return verdict;
	}
	return receiveElsewhere(ctx, state, event);
}

/** Held here: checked against the live copy, recorded with the record's next save, applied after the turn. */
function receiveHeld(
	ctx: EngineContext,
	state: SessionState,
	event: LearnerEvent,
): Promise<HandleResult> | HandleResult {
	const typed = (event as { type?: unknown } | null)?.type === "message" ? "message" : "answer";
	// The store is failing and a turn runs: this event's save would wait behind the turn's retries. Refuse it.
	if (!ctx.storeHealthy && state.record.turnOpen === true)
		return { ok: false, code: "store-unavailable", message: notSavedMessage(state.record.language, typed) };
	readmitQueued(ctx, state);
	// From here on everything is synchronous: two events cannot both claim one question.
	const verdict = admit(state, event, ctx.now().toISOString());
	return verdict.ok ? receiveQueued(ctx, state, event, verdict) : verdict;
}

/**
 * Record an admitted event in the session record, then queue its job: resolves `{ ok: true }` once a
 * save carrying it landed (retried for `saveRetryMs`), or a refusal (nothing kept, its claims undone).
 */
async function receiveQueued(
	ctx: EngineContext,
	state: SessionState,
	event: LearnerEvent,
	verdict: Extract<Admission, { ok: true }>,
): Promise<HandleResult> {
	const record = state.record;
	const claimedBefore = new Set(state.claims.keys());
	const wasEnding = state.ending;
	// At once: a second event sees this one's claims while its save is under way.
	claim(state, verdict.job);
	const entry: QueuedEvent = { id: ctx.newId(), event, at: ctx.now().toISOString() };
	// Replaced, never mutated: a snapshot taken for a rollback keeps the array it saw (persist.ts).
	record.queued = [...(record.queued ?? []), entry];
	state.storing++;
	try {
		await saveRetrying(ctx, state, ctx.saveRetryMs);
	} catch (error) {
		dropQueuedEntries(record, new Set([entry.id]));
		// A later save must not carry it either (it was refused); the next one writes the record without it.
		state.dirty = true;
		for (const id of state.claims.keys()) if (!claimedBefore.has(id)) state.claims.delete(id);
		state.ending = wasEnding;
		// The copy was stale (another process saved, or holds the lease now): not a failing store. The event is
		// checked against a fresh read and goes to the session's inbox, which the holder (perhaps this process) applies.
		if (isStoreConflict(error)) {
			ctx.logger.info(
				{ err: error, sessionId: record.sessionId },
				"a queued event met a stale copy; it goes to the inbox",
			);
			return receiveElsewhere(ctx, state, event);
		}
		ctx.logger.warn({ err: error, sessionId: record.sessionId }, "a queued event could not be saved; refused");
		return {
			ok: false,
			code: "store-unavailable",
			message: notSavedMessage(record.language, event.type === "message" ? "message" : "answer"),
		};
	} finally {
		state.storing--;
	}
	// Saves land in order and their waiters resume in order: jobs join the queue in arrival order.
	state.queue.push({ ...verdict.job, queued: entry.id });
	kick(ctx, state);
	return accepted(verdict);
}

/**
 * Idle: take the lease (one try), re-read when the stored session moved, check and apply the event in the
 * pump's first round. Undefined when another process holds the lease (the event goes to its inbox).
 */
async function receiveIdle(
	ctx: EngineContext,
	state: SessionState,
	event: LearnerEvent,
): Promise<HandleResult | undefined> {
	let entered!: () => void;
	state.entering = new Promise<void>((done) => (entered = done));
	let verdict: Verdict;
	try {
		verdict = await enterAndAdmit(ctx, state, event);
	} finally {
		// Events that waited are admitted under this lease now (after this one's claims).
		state.entering = undefined;
		entered();
	}
	return verdict && "later" in verdict ? verdict.later : verdict;
}

/** A verdict now, one that comes once the event is on disk (`later`), or none (the lease is another process's). */
type Verdict = HandleResult | { later: Promise<HandleResult> } | undefined;

/** receiveIdle's work while other events wait: the lease, the re-read, the verdict, the job queued. */
async function enterAndAdmit(ctx: EngineContext, state: SessionState, event: LearnerEvent): Promise<Verdict> {
	let lease: SessionLease | undefined;
	try {
		lease = await tryLease(ctx, state);
		if (!lease) return undefined;
		await refresh(ctx, state, undefined, lease);
	} catch (error) {
		state.fence = undefined;
		await lease?.release(false);
		ctx.logger.error({ err: error, sessionId: state.record.sessionId }, "taking the session's lease failed");
		const typed = (event as { type?: unknown } | null)?.type === "message" ? "message" : "answer";
		return { ok: false, code: "store-unavailable", message: notSavedMessage(state.record.language, typed) };
	}
	state.held = lease;
	// Events a restart (or a holder that died) left queued in the record were acknowledged before: they go first.
	const inherited = readmitQueued(ctx, state);
	const verdict = admit(state, event, ctx.now().toISOString());
	if (!verdict.ok) {
		if (inherited) kick(ctx, state);
		else release(state);
		return verdict;
	}
	// A hint waits on a model call: it rides a save of the record (acknowledged then), and is applied after.
	if (verdict.job.type === "help" && verdict.job.kind === "hint")
		return { later: receiveQueued(ctx, state, event, verdict) };
	claim(state, verdict.job);
	// Applied and saved in one batch: resolves once that is on disk (or refused by the store).
	const delivered = new Promise<HandleResult>((done) => (verdict.job.delivered = done));
	state.queue.push(verdict.job);
	kick(ctx, state);
	return { later: delivered.then((outcome) => (outcome.ok ? accepted(verdict) : outcome)) };
}

/** Give back a lease handle() took and did not hand to the pump. */
function release(state: SessionState): void {
	const held = state.held;
	state.held = undefined;
	state.fence = undefined;
	void held?.release(false);
}

/** Held elsewhere: checked against the stored session, appended to the inbox for the holder. */
async function receiveElsewhere(ctx: EngineContext, state: SessionState, event: LearnerEvent): Promise<HandleResult> {
	const sessionId = state.record.sessionId;
	const lang = () => state.record.language ?? DEFAULT_LOCALE;
	for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
		const live = isLive(state);
		if (!live && (attempt > 0 || state.stale || state.record.version === undefined))
			try {
				// See refreshUnlessLive: a read that comes back once the copy is live is dropped.
				await refreshUnlessLive(ctx, state);
			} catch (error) {
				ctx.logger.error({ err: error, sessionId }, "re-reading the session failed");
				return { ok: false, code: "store-unavailable", message: t(lang(), "engine.notLoaded") };
			}
		// Checked here for the sender's verdict; the holder checks again when it applies it (a second answer
		// to the same question, sent to another process at the same moment, is dropped there).
		const verdict = admit(state, event, ctx.now().toISOString());
		// A refusal by a copy not compared with the store may be out of date: it is looked at again.
		if (!verdict.ok && (live || attempt > 0)) return verdict;
		if (!verdict.ok) continue;
		const checked = live || attempt === ATTEMPTS - 1 || state.stale ? undefined : state.record.version;
		let appended: boolean;
		try {
			appended = await pushInbox(ctx, state, { kind: "event", event, at: ctx.now().toISOString() }, checked);
		} catch (error) {
			ctx.logger.error({ err: error, sessionId }, "queueing the event failed");
			return { ok: false, code: "store-unavailable", message: notSavedMessage(state.record.language) };
		}
		if (!appended) continue; // another process saved the session since this copy: read it and check again
		kick(ctx, state);
		return accepted(verdict);
	}
	// Unreachable: the last attempt appends without a version or returns the refusal.
	return { ok: false, code: "store-unavailable", message: notSavedMessage(state.record.language) };
}
