/**
 * The engine's side of posting question cards: which process posts a card, and where it went.
 *
 * The engine emits a question only from the process that holds the session (its turn, or a recovery
 * under its lease); the output path posts it after some work of its own (a picture, formulas, the
 * posts queued before it), and asks `mayPost` just before, with when the event reached it: no when
 * the lease this process held then was lost (lease-book.ts: a process paused past it learns so
 * before its renewal timer does; a post still queued when this process took the session back
 * later is judged by the old lease, not the new one). Whoever took the session over re-posts what
 * the record marks unposted. A lease found gone makes the copy stale: re-read before it is used
 * again, and its marks of posted questions are never saved.
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
		async mayPost(sessionId: string, toolCallId: string, receivedAt?: number) {
			const held = await (ctx.store.holding?.(sessionId, receivedAt) ?? Promise.resolve(true)).catch(() => true);
			if (held) return true;
			const state = stateOf(sessionId);
			// Another process may run the session now: this copy is not trusted (as when a renewal finds the lease gone).
			if (state) state.stale = true;
			ctx.logger.warn(
				{ sessionId, toolCallId },
				"the session's lease was lost before its card was posted; the new holder posts it",
			);
			return false;
		},
	};
}
