/**
 * The engine's side of posting question cards: which process posts a card, and where it went.
 *
 * The engine emits a question only from the process that holds the session (its turn, or a recovery
 * under its lease); the output path posts it after some work of its own (a picture, formulas), and
 * asks `mayPost` just before: a process paused past its lease meanwhile learns it lost the session
 * (the store's lease book renews to find out, lease-book.ts) and posts nothing, since the process
 * that took the session over re-posts what the record marks unposted. Its copy of the record is then
 * stale: re-read before it is used again, and its marks of posted questions are never saved.
 *
 * Where a card went is reported back (`posted`) and rides the session's next save; a replayed
 * question carries it (question-events.ts), so a card already posted is not posted again.
 */

import type { PostedCard, Tutor } from "../../core/contracts/tutor.ts";
import type { EngineContext } from "./context.ts";
import { notePosted, postedOf } from "./question-events.ts";
import type { SessionState } from "./session-state.ts";

/** The Tutor methods of the outbox. */
export type Outbox = Required<Pick<Tutor, "posted" | "postedCard" | "mayPost">>;

/** The outbox of a tutor: `stateOf` is the session as this process holds it in memory (undefined: not loaded). */
export function createOutbox(
	ctx: Pick<EngineContext, "store" | "logger">,
	stateOf: (sessionId: string) => SessionState | undefined,
): Outbox {
	return {
		posted(sessionId: string, toolCallId: string, card: PostedCard) {
			const state = stateOf(sessionId);
			// Rides the next save (the answer's, on the next click): never a save of its own.
			if (state && notePosted(state.record, toolCallId, card)) state.dirty = true;
		},
		postedCard(sessionId: string, toolCallId: string) {
			const state = stateOf(sessionId);
			return state ? postedOf(state.record, toolCallId) : undefined;
		},
		async mayPost(sessionId: string) {
			const holding = await (ctx.store.holding?.(sessionId) ?? Promise.resolve(true)).catch(() => true);
			if (holding) return true;
			const state = stateOf(sessionId);
			// Another process may run the session now: this copy is not trusted (as when a renewal finds the lease gone).
			if (state) state.stale = true;
			ctx.logger.warn(
				{ sessionId },
				"the session's lease was lost before its card was posted; the new holder posts it",
			);
			return false;
		},
	};
}
