/**
 * A session's lease was just taken (shared stores): what its last holder left behind is this
 * process's now. A turn still open on disk was cut off (no one else can be running it: a paused
 * holder's saves are refused by the fence), questions marked unpublished may never have been
 * posted, a grading may be pending.
 */

import type { EngineContext } from "./context.ts";
import { saveUntilStored } from "./persist.ts";
import { replayEvents } from "./question-events.ts";
import { repairRecord } from "./repair.ts";
import type { SessionState } from "./session-state.ts";
import { pendingLearnerCalls } from "./transcript.ts";

/** Re-runs of one cut-off turn in a row (restart or takeover), before it waits for the learner instead. */
export const MAX_RERUNS = 2;
/**
 * Repair and save, re-post, and queue a kick that re-runs the turn (bounded by MAX_RERUNS) or the grading.
 */
export async function recoverUnderLease(ctx: EngineContext, state: SessionState): Promise<void> {
	const record = state.record;
	if (record.ended) return;
	const unpublished = record.unpublished ?? [];
	if (!record.turnOpen && unpublished.length === 0 && (record.grading?.length ?? 0) === 0) return;
	const repair = repairRecord(record);
	const replay = replayEvents(record, unpublished);
	const rerun = repair.cutOff && pendingLearnerCalls(record.messages).length === 0 && (record.reruns ?? 0) < MAX_RERUNS;
	if (rerun) record.reruns = (record.reruns ?? 0) + 1;
	// Persist, then publish: the repair first, then the questions (adapters skip the ones already posted).
	if (repair.changed) await saveUntilStored(ctx, state);
	for (const event of replay) await ctx.hub.emit(event);
	if (replay.length > 0) {
		delete record.unpublished;
		state.dirty = true;
	}
	// A kick with a question open runs no turn: the pump grades, then waits for the learner.
	if (rerun || (record.grading?.length ?? 0) > 0) state.queue.push({ type: "kick" });
	ctx.logger.info(
		{ sessionId: record.sessionId, rerun, replayed: replay.length, fence: state.fence },
		"session taken over: its last holder left work behind",
	);
}
