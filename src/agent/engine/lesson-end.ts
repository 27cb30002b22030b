/**
 * Ending a lesson: pending questions skipped, the end marker appended, saved,
 * then `answered` and `ended` emitted. A store that refuses the end leaves the
 * lesson as it was (nothing is announced that is not on disk).
 */

import type { Participant } from "../../core/contracts/events.ts";
import { pendingLearnerCalls } from "../../core/transcript.ts";
import type { EndReason } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import { skipPending } from "./learner-results.ts";
import { restoreRecord, saveRetrying, snapshotRecord } from "./persist.ts";
import { endMarker } from "./record-edit.ts";
import type { SessionState } from "./session-state.ts";

/** Options of endLesson. */
export interface EndOptions {
	by?: Participant;
	/** How long a failing save is retried (Infinity: until the store is back or the tutor closes). */
	withinMs: number;
	/** Runs once the end is on disk, before the events go out. */
	saved?: () => void;
}

/** End the lesson; resolves false (and changes nothing) when the store refused the end. */
export async function endLesson(
	ctx: EngineContext,
	state: SessionState,
	reason: EndReason,
	options: EndOptions,
): Promise<boolean> {
	const record = state.record;
	if (record.ended) return true;
	const before = snapshotRecord(record);
	const by = options.by;
	const pending = pendingLearnerCalls(record.messages).map((p) => p.toolCallId);
	const events = skipPending(state, pending, by ?? record.learner);
	const at = ctx.now().toISOString();
	record.messages.push(endMarker(ctx.newId(), reason, at));
	record.ended = { reason, at, ...(by ? { by } : {}) };
	record.turnOpen = false;
	try {
		await saveRetrying(ctx, state, options.withinMs);
	} catch (error) {
		ctx.logger.error({ err: error, sessionId: record.sessionId }, "the end of the lesson could not be saved");
		restoreRecord(record, before);
		state.ending = false;
		return false;
	}
	options.saved?.();
	for (const event of events) await ctx.hub.emit(event);
	await ctx.hub.emit({ type: "ended", sessionId: record.sessionId, reason, ...(by ? { by } : {}) });
	return true;
}
