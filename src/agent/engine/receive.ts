/**
 * handle() on a shared store (Redis, PostgreSQL): the event is checked against the stored
 * session (re-read when another process saved it), appended to the session's inbox, and
 * acknowledged; whichever process holds the session's lease applies it (this one, when the
 * lease is free). The verdict never waits for a model call or for another process's turn.
 */

import type { HandleResult, LearnerEvent } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, t } from "../../core/i18n/index.ts";
import { admit } from "./admit.ts";
import type { EngineContext } from "./context.ts";
import { pushInbox } from "./inbox.ts";
import { refreshUnlessLive } from "./lease.ts";
import { notSavedMessage } from "./persist.ts";
import { kick } from "./pump.ts";
import type { SessionState } from "./session-state.ts";

export async function receiveShared(
	ctx: EngineContext,
	state: SessionState,
	event: LearnerEvent,
): Promise<HandleResult> {
	const sessionId = state.record.sessionId;
	const lang = state.record.language ?? DEFAULT_LOCALE;
	try {
		// Unless this process holds the lease for sure, the stored session may be newer (see refreshUnlessLive).
		await refreshUnlessLive(ctx, state);
	} catch (error) {
		ctx.logger.error({ err: error, sessionId }, "re-reading the session failed");
		return { ok: false, code: "store-unavailable", message: t(lang, "engine.notLoaded") };
	}
	// Checked here for the sender's verdict; the holder checks again when it applies it (a second answer
	// to the same question, sent to another process at the same moment, is dropped there).
	const verdict = admit(state, event, ctx.now().toISOString());
	if (!verdict.ok) return verdict;
	try {
		await pushInbox(ctx, state, { kind: "event", event, at: ctx.now().toISOString() });
	} catch (error) {
		ctx.logger.error({ err: error, sessionId }, "queueing the event failed");
		return { ok: false, code: "store-unavailable", message: notSavedMessage(state.record.language) };
	}
	kick(ctx, state);
	return verdict.ack ? { ok: true, vote: verdict.ack } : { ok: true };
}
