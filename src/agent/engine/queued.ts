/**
 * Events received while this process runs the session (a turn runs, events are being delivered):
 * each one rides the session record (`record.queued`) and is acknowledged once the save that
 * carries it has landed, so a kill cannot lose what the learner was told was received. The pump
 * applies the entries in order, and the save of each one's effect drops it (engine/pump.ts); the
 * next holder of the lease (a restart, a takeover) admits again what is left (readmitQueued). The
 * acknowledgement waits for that save only, never for model work (receive.ts receiveQueued adds an
 * entry and waits for its save; this file reads and drops entries, and imports neither receive nor the pump).
 */

import type { QueuedEvent, SessionRecord } from "../store/types.ts";
import { admit, claim } from "./admit.ts";
import type { EngineContext } from "./context.ts";
import type { Job, SessionState } from "./session-state.ts";

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
		dropQueuedEntries(record, refused);
		state.dirty = true;
	}
	return queued;
}

/** Drop the entries of applied jobs from the record; true when it changed (the batch's save carries it). */
export function dropQueued(record: SessionRecord, jobs: readonly Job[]): boolean {
	const ids = new Set(jobs.flatMap((job) => (job.queued === undefined ? [] : [job.queued])));
	return ids.size > 0 && dropQueuedEntries(record, ids);
}

/** Remove entries by id (a new array: a snapshot taken for a rollback keeps the one it saw); true when any was there. */
export function dropQueuedEntries(record: SessionRecord, ids: ReadonlySet<string>): boolean {
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
