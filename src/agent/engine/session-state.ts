/**
 * A live session in memory: its record, the queue of admitted learner events
 * (delivered in order between turns, never dropped), and the claims that let
 * handle() refuse a second answer before the first is even recorded.
 */

import type { AnswerResult, HandleResult, Participant } from "../../core/contracts/events.ts";
import type { LearnerImage } from "../../core/learner-images.ts";
import type { HelpKind } from "../../core/struggle.ts";
import type { Ballot } from "../../core/votes.ts";
import type { EndReason, SessionLease, SessionRecord } from "../store/types.ts";

/** What a job asks the pump to do. */
type JobWork =
	/** Run a turn (a new lesson, or a turn cut off by a restart). */
	| { type: "kick" }
	/** Record the learner's answer as the call's result; `images`: pictures of their working sent with a typed one. */
	| { type: "answer"; toolCallId: string; kind: "quiz" | "ask"; result: AnswerResult; images?: LearnerImage[] }
	/** A typed message that is not an answer; `holds`: the questions pending when it was admitted (they stay open). */
	| { type: "message"; text: string; by: Participant; holds: string[]; images?: LearnerImage[] }
	/** A help control on an open quiz (see engine/struggle.ts). */
	| { type: "help"; toolCallId: string; kind: HelpKind; by: Participant }
	| { type: "end"; by: Participant; reason: EndReason }
	/** Group lessons: a member's vote on a quiz (engine/votes.ts). */
	| { type: "vote"; toolCallId: string; ballot: Ballot }
	/** Group lessons: a vote's timer ended: tally it. */
	| { type: "tally"; toolCallId: string };

/** Work for a session's pump, in arrival order. */
export type Job = JobWork & {
	/**
	 * Called once: `{ ok: true }` when the job's delivery is on disk, a refusal when the store
	 * refused it (nothing was recorded). handle() waits for it when the pump was idle.
	 */
	delivered?: (outcome: HandleResult) => void;
	/** The id of the job's entry in `record.queued` (an event received while the session was busy here): the save that applies it drops it. */
	queued?: string;
};

/** What an admitted event did to a pending question before it is recorded. */
export type Claim = "answered" | "superseded";

/** A session loaded in this process. */
export interface SessionState {
	record: SessionRecord;
	queue: Job[];
	/** Pending questions already claimed by an admitted (not yet recorded) event. */
	claims: Map<string, Claim>;
	/** An end was admitted: refuse everything after it. */
	ending: boolean;
	/** The running pump (turns and event delivery), if any. */
	pump: Promise<void> | undefined;
	/** Saves are chained so records reach the store in order (this chain never rejects). */
	saving: Promise<void>;
	/** The save queued and not started yet (later saves coalesce into it); it rejects when the store fails. */
	queuedSave: Promise<void> | undefined;
	/** The record changed in memory after its last save in a way no save covers yet (a question marked posted). */
	dirty: boolean;
	/** Saves queued or running: a state with unsaved changes is never evicted (a reload would read stale data). */
	unsaved: number;
	/** The fencing number of the session's lease while this process holds it; saves carry it. */
	fence?: number;
	/** A lease handle() took for an idle session: the pump's first round runs under it (engine/receive.ts). */
	held?: SessionLease;
	/** handle() is taking the session's lease: another event in this process waits for it, then is admitted here. */
	entering?: Promise<void>;
	/** The store refused a save as stale, or the lease was lost: re-read before anything else is recorded. */
	stale: boolean;
	/**
	 * This process holds the session's lease and has re-read the record under it, so the copy here is the
	 * live one (false again when the lease is given back or lost). Trusted only until `liveUntil`.
	 */
	live?: boolean;
	/**
	 * Until when (performance.now()) the lease is surely still this process's: its last
	 * confirmed grant or renewal plus the TTL, less a margin. A process paused past it (SIGSTOP, a long GC)
	 * wakes with `live` still set and must not trust its copy before a renewal says the lease is still its own.
	 */
	liveUntil?: number;
	/** Events written into `record.queued` under this process's lease whose save has not landed yet (later events queue behind them). */
	storing: number;
	/** The record came with `record.queued` entries an earlier holder left (a restart, a takeover): admitted again once (engine/queued.ts). */
	inherited: boolean;
	/** The highest inbox sequence number this process appended (it waits, bounded, until that one is applied). */
	pushed?: number;
	/** The highest inbox sequence number taken into `queue` (applied once a save carries it in `record.inbox`). */
	inboxSeen?: number;
	/** The `record.inbox` number up to which this process dropped the applied entries. */
	dropped?: number;
}

/** A fresh in-memory state for a record. */
export function newSessionState(record: SessionRecord): SessionState {
	return {
		record,
		queue: [],
		claims: new Map(),
		ending: false,
		pump: undefined,
		saving: Promise.resolve(),
		queuedSave: undefined,
		dirty: false,
		unsaved: 0,
		stale: false,
		storing: 0,
		inherited: (record.queued?.length ?? 0) > 0,
	};
}

/** True when nothing runs or waits for this session. */
export function isIdle(state: SessionState): boolean {
	return state.pump === undefined && state.queue.length === 0 && state.entering === undefined;
}

/** True when the state can be dropped from memory: idle, nothing claimed, everything saved. */
export function evictable(state: SessionState): boolean {
	// An open vote keeps its session (its timer holds this state object).
	return isIdle(state) && state.claims.size === 0 && state.unsaved === 0 && state.record.votes === undefined;
}
