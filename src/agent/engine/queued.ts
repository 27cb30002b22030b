/**
 * Events received while this process runs the session (a turn runs, events are being delivered):
 * each one rides the session record (`record.queued`) and is acknowledged once the save that
 * carries it has landed, so a kill cannot lose what the learner was told was received. The pump
 * applies the entries in order, and the save of each one's effect drops it (engine/pump.ts); the
 * next holder of the lease (a restart, a takeover) admits again what is left (readmitQueued). The
 * acknowledgement waits for that save only, never for model work.
 */

import type { HandleResult, LearnerEvent } from "../../core/contracts/events.ts";
import type { QueuedEvent, SessionRecord } from "../store/types.ts";
import { type Admission, admit, claim } from "./admit.ts";
import type { EngineContext } from "./context.ts";
import { notSavedMessage, saveRetrying } from "./persist.ts";
import { kick } from "./pump.ts";
import type { Job, SessionState } from "./session-state.ts";

/**
 * Record an admitted event in the session record, then queue its job: resolves `{ ok: true }` once a
 * save carrying it landed (retried for `saveRetryMs`), or a refusal (nothing kept, its claims undone).
 */
export async function receiveQueued(
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
		ctx.logger.warn({ err: error, sessionId: record.sessionId }, "a queued event could not be saved; refused");
		dropEntries(record, new Set([entry.id]));
		// A later save must not carry it either (it was refused); the next one writes the record without it.
		state.dirty = true;
		for (const id of state.claims.keys()) if (!claimedBefore.has(id)) state.claims.delete(id);
		state.ending = wasEnding;
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
	return verdict.ack ? { ok: true, vote: verdict.ack } : { ok: true };
}

/**
 * After a restart: admit the record's queued events again (once per loaded state), in order, each
 * judged as of when it arrived; one refused now (its question resolved meanwhile) is dropped.
 * True when jobs were queued (the caller kicks the pump once someone listens).
 */
export function readmitQueued(ctx: EngineContext, state: SessionState): boolean {
	if (!state.inherited) return false;
	state.inherited = false;
	const record = state.record;
	const refused = new Set<string>();
	let queued = false;
	for (const entry of record.queued ?? []) {
		const verdict = parsedEntry(entry) ? admit(state, entry.event, entry.at) : undefined;
		if (!verdict?.ok) {
			ctx.logger.info(
				{ sessionId: record.sessionId, code: verdict?.code ?? "unreadable" },
				"a queued event was refused after the restart",
			);
			refused.add(String(entry?.id));
			continue;
		}
		claim(state, verdict.job);
		state.queue.push({ ...verdict.job, queued: entry.id });
		queued = true;
	}
	if (refused.size > 0) {
		dropEntries(record, refused);
		state.dirty = true;
	}
	return queued;
}

/** Drop the entries of applied jobs from the record; true when it changed (the batch's save carries it). */
export function dropQueued(record: SessionRecord, jobs: readonly Job[]): boolean {
	const ids = new Set(jobs.flatMap((job) => (job.queued === undefined ? [] : [job.queued])));
	return ids.size > 0 && dropEntries(record, ids);
}

/** Remove entries by id (a new array, see receiveQueued); true when any was there. */
function dropEntries(record: SessionRecord, ids: ReadonlySet<string>): boolean {
	const before = record.queued ?? [];
	const kept = before.filter((entry) => !ids.has(String(entry?.id)));
	if (kept.length === before.length) return false;
	if (kept.length > 0) record.queued = kept;
	else delete record.queued;
	return true;
}

/** A stored entry is read from disk: check its shape before admitting it (admit() checks the event itself). */
function parsedEntry(entry: unknown): entry is QueuedEvent {
	if (typeof entry !== "object" || entry === null) return false;
	const e = entry as Partial<QueuedEvent>;
	return typeof e.id === "string" && typeof e.at === "string" && typeof e.event === "object" && e.event !== null;
}
