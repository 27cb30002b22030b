/**
 * handle() on a shared store (Redis, PostgreSQL): the event is checked against the session,
 * appended to the session's inbox, and acknowledged; whichever process holds the session's
 * lease applies it (this one, when the lease is free). The verdict never waits for a model call
 * or for another process's turn.
 *
 * The copy it is checked against: this process's own while it holds the live lease (it is the
 * stored one); otherwise the copy in memory, and the append carries that copy's version, so the
 * store appends only while the session is still at it (one round trip when nobody else saved
 * the session meanwhile, the usual case). When it moved, or when the copy refused the event
 * (it may be out of date), the session is re-read and the event checked again.
 */

import type { HandleResult, LearnerEvent } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import { admit } from "./admit.ts";
import type { EngineContext } from "./context.ts";
import { pushInbox } from "./inbox.ts";
import { isLive, refreshUnlessLive } from "./lease.ts";
import { notSavedMessage } from "./persist.ts";
import { kick } from "./pump.ts";
import type { SessionState } from "./session-state.ts";

/** Checks against a re-read copy before the event is appended without a version (the holder checks it again). */
const ATTEMPTS = 3;

export async function receiveShared(
	ctx: EngineContext,
	state: SessionState,
	event: LearnerEvent,
): Promise<HandleResult> {
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
		return verdict.ack ? { ok: true, vote: verdict.ack } : { ok: true };
	}
	// Unreachable: the last attempt appends without a version or returns the refusal.
	return { ok: false, code: "store-unavailable", message: notSavedMessage(state.record.language) };
}
