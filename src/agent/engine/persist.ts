/**
 * Saving a session. Persist, then publish: callers await a save before they
 * emit the events it covers, so whatever a learner can see is on disk. A save
 * that fails rejects (a store error is an error); the callers decide whether
 * to retry until the store is back (a turn in progress) or to roll back and
 * refuse (an answer whose sender waits for the verdict).
 */

import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { isStoreConflict } from "../store/errors.ts";
import type { SessionRecord } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import type { SessionState } from "./session-state.ts";

/** The notice a learner sees when the store refused their event (nothing was recorded); a typed message is to be sent again. */
export const notSavedMessage = (locale: Locale = DEFAULT_LOCALE, what: "answer" | "message" = "answer"): string =>
	t(locale, what === "message" ? "engine.messageNotSaved" : "engine.notSaved");
/** The notice while a turn's work waits for the store (it is kept in memory and saved when the store is back). */
export const saveDelayedMessage = (locale: Locale = DEFAULT_LOCALE): string => t(locale, "engine.saveDelayed");

/**
 * Queue a save of the record. Saves of a session run one at a time, in order,
 * and coalesce: a save waiting to start writes whatever the record holds when it
 * starts. Rejects when the store fails (the chain itself goes on).
 */
export function save(ctx: EngineContext, state: SessionState): Promise<void> {
	state.record.updatedAt = ctx.now().toISOString();
	if (state.queuedSave) return state.queuedSave;
	state.unsaved++;
	const run = state.saving.then(() => {
		state.queuedSave = undefined;
		state.dirty = false;
		// A save under the session's lease carries its fence: refused once another process took the lease.
		return ctx.store.set(state.record, state.fence === undefined ? {} : { fence: state.fence });
	});
	state.queuedSave = run;
	state.saving = run.then(
		() => {
			ctx.storeHealthy = true;
		},
		(error: unknown) => {
			// A stale copy (another process saved, or holds the lease now) is not a failing store.
			if (isStoreConflict(error)) state.stale = true;
			else ctx.storeHealthy = false;
		},
	);
	void state.saving.finally(() => {
		state.unsaved--;
	});
	return run;
}

/** How long to wait before the attempt after `attempt` (0-based): 250 ms doubling, capped at 5 s. */
const backoff = (attempt: number): number => Math.min(250 * 2 ** attempt, 5_000);

/**
 * Save until the store takes it (or the tutor closes: then it rejects), telling the thread once,
 * after the first failure, that the lesson waits for its store. For work already accepted.
 */
export function saveUntilStored(ctx: EngineContext, state: SessionState): Promise<void> {
	const record = state.record;
	return saveRetrying(ctx, state, Number.POSITIVE_INFINITY, () =>
		ctx.hub.emit({
			type: "error",
			sessionId: record.sessionId,
			code: "store-unavailable",
			message: saveDelayedMessage(record.language),
			retryable: true,
		}),
	);
}

/** Wait `ms`, or less when the signal aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
	return new Promise((done) => {
		const timer = setTimeout(finish, ms);
		function finish() {
			clearTimeout(timer);
			signal.removeEventListener("abort", finish);
			done();
		}
		signal.addEventListener("abort", finish, { once: true });
	});
}

/**
 * Save, retrying with backoff while the store fails: for `withinMs` (then the last error
 * rejects), or until it succeeds or the tutor closes when `withinMs` is Infinity.
 * `onFirstFailure` runs once, after the first failed attempt (to tell the learner).
 */
export async function saveRetrying(
	ctx: EngineContext,
	state: SessionState,
	withinMs: number,
	onFirstFailure?: (error: unknown) => Promise<void>,
): Promise<void> {
	const deadline = Date.now() + withinMs;
	for (let attempt = 0; ; attempt++) {
		try {
			await save(ctx, state);
			if (attempt > 0) ctx.logger.info({ sessionId: state.record.sessionId, attempt }, "the store is back; saved");
			return;
		} catch (error) {
			// Retrying the same stale copy cannot succeed: the caller re-reads (never writes over a newer save).
			if (isStoreConflict(error)) throw error;
			if (attempt === 0) {
				ctx.logger.warn({ err: error, sessionId: state.record.sessionId }, "saving the session failed; retrying");
				await onFirstFailure?.(error);
			}
			const wait = backoff(attempt);
			if (ctx.signal.aborted || Date.now() + wait > deadline) throw error;
			await pause(wait, ctx.signal);
		}
	}
}

/** A shallow copy of a record, enough to undo edits (messages are replaced, never mutated). */
export function snapshotRecord(record: SessionRecord): SessionRecord {
	return {
		...record,
		messages: record.messages.slice(),
		usage: { ...record.usage },
		extra: { ...record.extra },
		...(record.planShown ? { planShown: { ...record.planShown } } : {}),
	};
}

/**
 * Put a record back as a snapshot had it (in place: the live state keeps its object). Events queued
 * since the snapshot (engine/queued.ts) stay: each was acknowledged once a save carried it, and what
 * is rolled back is other work.
 */
export function restoreRecord(record: SessionRecord, snapshot: SessionRecord): void {
	const known = new Set((snapshot.queued ?? []).map((entry) => entry.id));
	const since = (record.queued ?? []).filter((entry) => !known.has(entry.id));
	for (const key of Object.keys(record) as Array<keyof SessionRecord>) if (!(key in snapshot)) delete record[key];
	Object.assign(record, snapshot);
	if (since.length > 0) record.queued = [...(snapshot.queued ?? []), ...since];
}
