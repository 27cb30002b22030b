/**
 * A session's lease was just taken (shared stores): what its last holder left behind is this
 * process's now. A turn still open on disk was cut off (no one else can be running it: a paused
 * holder's saves are refused by the fence), questions marked unpublished may never have been
 * posted, a grading may be pending. Also what a restart does with a cut-off turn (tutor.ts,
 * embedded stores): re-run it a bounded number of times, then tell the learner.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import type { SessionRecord } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import { saveUntilStored } from "./persist.ts";
import { reofferQuestions, replayEvents } from "./question-events.ts";
import { repairRecord } from "./repair.ts";
import type { SessionState } from "./session-state.ts";
import { pendingLearnerCalls } from "./transcript.ts";

/** Re-runs of one cut-off turn in a row (restart or takeover), before it waits for the learner instead. */
export const MAX_RERUNS = 2;

/**
 * What follows a turn cut off with no question open (`cutOff`: the repair found it open): a re-run,
 * at most MAX_RERUNS in a row (a turn that kills the process must not loop), then a notice to the
 * learner (never silence); "none" when the turn was not cut off or a question waits for the learner.
 */
export function afterCutOff(record: SessionRecord, cutOff: boolean): "rerun" | "notice" | "none" {
	if (!cutOff || pendingLearnerCalls(record.messages).length > 0) return "none";
	const reruns = typeof record.reruns === "number" ? record.reruns : 0;
	return reruns < MAX_RERUNS ? "rerun" : "notice";
}

/** The learner's notice that the tutor stopped (a turn cut off too often, questions that never got out). */
export function cutOffNotice(record: SessionRecord): TutorEvent {
	const message = t(record.language ?? DEFAULT_LOCALE, "engine.cutOff");
	return { type: "error", sessionId: record.sessionId, code: "cut-off", message, retryable: false };
}

/**
 * Repair and save, re-post (bounded: reofferQuestions), and queue a kick that re-runs the turn
 * (bounded by MAX_RERUNS, then the learner is told) or the grading.
 */
export async function recoverUnderLease(ctx: EngineContext, state: SessionState): Promise<void> {
	const record = state.record;
	if (record.ended) return;
	const unpublished = record.unpublished ?? [];
	if (!record.turnOpen && unpublished.length === 0 && (record.grading?.length ?? 0) === 0) return;
	const repair = repairRecord(record);
	const offer = reofferQuestions(record, replayEvents(record, unpublished));
	const next = afterCutOff(record, repair.cutOff);
	const rerun = next === "rerun";
	if (rerun) record.reruns = (record.reruns ?? 0) + 1;
	if (offer.gaveUp) delete record.unpublished;
	// Persist, then publish: the repair and the count of offers first (a holder the posts kill leaves the
	// count for the next one), then the questions (adapters skip the ones already posted).
	if (repair.changed || offer.events.length > 0 || offer.gaveUp) await saveUntilStored(ctx, state);
	for (const event of offer.events) await ctx.hub.emit(event);
	if (offer.events.length > 0) {
		// On disk with the save after the posts are out (the lease waits for them: lease.ts).
		delete record.unpublished;
		delete record.reposted;
		state.dirty = true;
	}
	if (next === "notice" || offer.gaveUp) await ctx.hub.emit(cutOffNotice(record));
	// A kick with a question open runs no turn: the pump grades, then waits for the learner.
	if (rerun || (record.grading?.length ?? 0) > 0) state.queue.push({ type: "kick" });
	ctx.logger.info(
		{
			sessionId: record.sessionId,
			rerun,
			replayed: offer.events.length,
			gaveUp: offer.gaveUp || next === "notice",
			fence: state.fence,
		},
		"session taken over: its last holder left work behind",
	);
}
