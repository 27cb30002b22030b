/**
 * A session's inbox (every store has one): the way events reach whichever process holds the
 * session's lease when it is not this one (engine/receive.ts). The process that receives a learner
 * event for a session another process holds checks it against the stored session, appends it to
 * the inbox (durable: the platform is answered at once), and tries to take the lease. The holder pulls the entries in order, admits each
 * against its live record, and saves their effect together with the last sequence number it
 * applied (`record.inbox`), so an entry is applied once even when its holder dies before it
 * drops it. A holder applies what the inbox holds before it lets the lease go, and looks again
 * after: an entry appended while it held the lease is never stranded.
 *
 * Entries are our own JSON, but a store is shared with other versions and other processes:
 * each body is parsed (parse, don't cast); an unreadable one is logged and skipped.
 */

import type { LearnerEvent } from "../../core/contracts/events.ts";
import { admit, claim } from "./admit.ts";
import type { EngineContext } from "./context.ts";
import type { SessionState } from "./session-state.ts";

/** What an inbox entry asks the holder to do. */
export type InboxBody =
	/** A learner event, received at `at` (ISO time) by some process and checked there against the stored session. */
	| { kind: "event"; event: LearnerEvent; at: string }
	/** Run a turn (a new lesson). */
	| { kind: "kick" }
	/** Group lessons: a vote's time is up: tally it (any process's timer may say so; a closed vote ignores it). */
	| { kind: "tally"; toolCallId: string };

/** Entries pulled per read (a busy session's backlog is read in pages). */
const PAGE = 100;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** An entry's body from its JSON, or undefined when it is not one we can read. */
export function parseInboxBody(text: string): InboxBody | undefined {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return undefined;
	}
	if (!isObject(value)) return undefined;
	if (value.kind === "kick") return { kind: "kick" };
	if (value.kind === "tally")
		return typeof value.toolCallId === "string" ? { kind: "tally", toolCallId: value.toolCallId } : undefined;
	// The event's shape is checked by admit() (as for any platform payload).
	if (value.kind === "event" && isObject(value.event) && typeof value.at === "string")
		return { kind: "event", event: value.event as unknown as LearnerEvent, at: value.at };
	return undefined;
}

/**
 * Append an entry to the session's inbox (with `ifVersion`: only while the stored session is at that
 * version); remembers the highest sequence number this process appended. False: the session moved.
 */
export async function pushInbox(
	ctx: EngineContext,
	state: SessionState,
	body: InboxBody,
	ifVersion?: number,
): Promise<boolean> {
	const seq = await ctx.store.inbox.push(state.record.sessionId, JSON.stringify(body), ifVersion);
	if (seq <= 0) return false;
	state.pushed = Math.max(state.pushed ?? 0, seq);
	return true;
}

/** The highest sequence number this process has applied or taken into its queue. */
export const inboxSeen = (state: SessionState): number => Math.max(state.record.inbox ?? 0, state.inboxSeen ?? 0);

/**
 * Under the lease: read the entries not applied yet and queue their jobs in order (each event
 * admitted against the live record now; one refused here, e.g. a second answer to a question
 * another process's event answered first, is dropped). Returns how many entries were read.
 */
export async function pullInbox(ctx: EngineContext, state: SessionState): Promise<number> {
	const sessionId = state.record.sessionId;
	const entries = await ctx.store.inbox.read(sessionId, inboxSeen(state), PAGE);
	for (const entry of entries) {
		state.inboxSeen = entry.seq;
		const body = parseInboxBody(entry.body);
		if (!body) {
			ctx.logger.warn({ sessionId, seq: entry.seq }, "an unreadable inbox entry was skipped");
			continue;
		}
		if (body.kind === "kick") state.queue.push({ type: "kick" });
		else if (body.kind === "tally") state.queue.push({ type: "tally", toolCallId: body.toolCallId });
		else {
			const verdict = admit(state, body.event, body.at);
			if (!verdict.ok) {
				ctx.logger.info({ sessionId, seq: entry.seq, code: verdict.code }, "an event was refused by the lease holder");
				continue;
			}
			claim(state, verdict.job);
			state.queue.push(verdict.job);
		}
	}
	return entries.length;
}

/** Drop the entries the saved record says were applied (best effort: `record.inbox` already says they ran). */
export async function dropApplied(ctx: EngineContext, state: SessionState): Promise<void> {
	const upTo = state.record.inbox;
	// Once per number: a round that applied no entry has nothing to drop (a crashed holder's are dropped by the first).
	if (upTo === undefined || state.stale || upTo === state.dropped) return;
	await ctx.store.inbox
		.drop(state.record.sessionId, upTo)
		.then(() => {
			state.dropped = upTo;
		})
		.catch((error: unknown) =>
			ctx.logger.debug({ err: error, sessionId: state.record.sessionId }, "dropping applied inbox entries failed"),
		);
}

/** Forget what was pulled but not saved (a refused batch): the next holder reads those entries again. */
export function rewindInbox(state: SessionState): void {
	state.inboxSeen = state.record.inbox;
	state.queue.length = 0;
	state.claims.clear();
	state.ending = false;
}
