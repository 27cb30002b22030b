/**
 * What a session is on disk: the transcript (AI SDK UIMessages) plus small
 * metadata. Everything else (phase, plan, pending questions) is derived.
 */

import type { UIMessage } from "ai";
import type { LearnerEvent, LessonMode, Participant } from "../../core/contracts/events.ts";
import type { StruggleEntry } from "../../core/struggle.ts";
import type { GroupSettings, OpenVote } from "../../core/votes.ts";
import type { Locale } from "../../i18n/index.ts";

/** Metadata on a transcript message; never sent to the model (prefix-stable). */
export interface LessonMessageMetadata {
	/** context: a note our code wrote for the model (lesson start, probe→teach seam, an answer to a question kept open). */
	kind?: "context" | "learner" | "tutor";
	/** Which context note (so it is written once). */
	note?: "start" | "teach" | "late-answer";
	/** Who typed a learner message. */
	by?: Participant;
	/** ISO time the message was recorded. */
	at?: string;
	/** Which agent authored an assistant message. */
	agent?: "prober" | "teacher";
	/** Tokens the model steps of this assistant message cost (the session keeps the totals). */
	usage?: UsageTotals;
}

/** A transcript message. */
export type LessonMessage = UIMessage<LessonMessageMetadata>;

/** Token usage totals of a session. */
export interface UsageTotals {
	inputTokens: number;
	outputTokens: number;
	cachedInputTokens: number;
}

/** Why a lesson ended. */
export type EndReason = "completed" | "ended-by-user" | "ended-by-admin";

/** A stored session (one lesson, one thread). */
export interface SessionRecord {
	/** Record format version, for future migrations. */
	format: 1;
	sessionId: string;
	topic: string;
	learner: Participant;
	mode: LessonMode;
	startedBy: Participant;
	/** The lesson's language, fixed at start (absent: English, as before languages existed). */
	language?: Locale;
	createdAt: string;
	updatedAt: string;
	messages: LessonMessage[];
	usage: UsageTotals;
	/** Adapter-owned small metadata (e.g. the last posted plan picture key). */
	extra: Record<string, string>;
	ended?: { reason: EndReason; by?: Participant; at: string };
	/** The last plan event emitted (tree version, current node): no duplicate plan posts after a restart. */
	planShown?: { version: number; current: string | null };
	/** True while a turn runs; still true after a crash or an aborted shutdown (resume() re-runs it). */
	turnOpen?: boolean;
	/** Questions of the last step saved but not yet handed to the platforms (a restart posts them). */
	unpublished?: string[];
	/**
	 * Where the platform shows each question's card (message ids, lead), as the output path reported it; saved
	 * with the next save (a crash before it loses only the ids: the card is then found in the thread or posted anew).
	 */
	posted?: Record<string, { messageIds: string[]; lead?: string }>;
	/**
	 * Questions kept open over a turn (the learner asked something, or asked for another explanation, before
	 * answering): the model saw each as pending, so its answer reaches the model in a later message
	 * (engine/held-open.ts). Dropped as each is answered.
	 */
	held?: string[];
	/** Quiz calls whose typed answers wait for the grading model (run before the next turn; a restart re-runs them). */
	grading?: string[];
	/** Group lessons: the vote settings taken at start (defaults when absent). */
	group?: GroupSettings;
	/** Group lessons: open votes by quiz call id (ballots until the tally; the tally goes into the transcript). */
	votes?: Record<string, OpenVote>;
	/** The lesson's material (a learner's PDF), when it has one: its index is in the material store (material-store.ts). */
	material?: { name: string; pages: number };
	/** Turns started in this lesson (absent: none yet): a learner's picture goes to the model for PICTURE_TURNS of them. */
	turns?: number;
	/** How many times resume() re-ran this session's cut-off turn in a row (bounded, so a turn that kills the process cannot loop). */
	reruns?: number;
	/**
	 * Restarts that offered the questions in `unpublished` again (`ids`: which; `times`: how often), saved
	 * before each offer, so a process killed while posting them is seen by the next start: the second
	 * offer posts them as text, and there is no third (the learner is told instead).
	 */
	reposted?: { ids: string[]; times: number };
	/**
	 * Open quizzes' wrong tries and hints, by tool call id (not derived: the learner's own acts). Saved with
	 * the record, so a restart between tries keeps them; moved into the tool result when the quiz resolves.
	 */
	struggle?: Record<string, StruggleEntry>;
	/**
	 * The embedded store's inbox: learner events acknowledged while the session was busy (a turn ran),
	 * in arrival order, not yet applied. Each is acknowledged once a save carrying it landed; the save
	 * that applies it drops it; a restart admits what is left again (engine/queued.ts).
	 */
	queued?: QueuedEvent[];
	/**
	 * Shared stores: the sequence number of the last inbox entry applied to this record (saved in the same
	 * write as its effect, so an entry is applied once even when its holder dies before dropping it).
	 */
	inbox?: number;
	/**
	 * The stored version this copy was read at or last saved as (set by the store; absent on a record
	 * never stored). A save compares it with the stored one and refuses a copy that is not the latest.
	 */
	version?: number;
}

/** A learner event held in the session record until the pump applies it (SessionRecord.queued). */
export interface QueuedEvent {
	/** Unique in the session: the job that carries it drops this entry when it is applied. */
	id: string;
	event: LearnerEvent;
	/** ISO time it was received (admission after a restart judges it as of then). */
	at: string;
}

/** A session's lease: while held (and renewed), this process alone runs the session's turns. */
export interface SessionLease {
	readonly sessionId: string;
	/** Grows with every grant of this session's lease: saves carry it, and one below the latest is refused. */
	readonly fence: number;
	/** The session's stored version when the lease was granted, where the store reads it in the same call (saves a read). */
	readonly version?: number;
	/** Extend the lease by its TTL; false when it was lost (expired and taken, or released). */
	renew(): Promise<boolean>;
	/**
	 * Give the lease back (only if still ours). Never rejects. `work`: the session still has something to do
	 * (a cut-off turn, a grading): it is due for another process at once. Without it, the session is due
	 * again only when its inbox holds entries.
	 */
	release(work?: boolean): Promise<void>;
}

/** An entry of a session's inbox: its sequence number (grows per session) and its JSON body. */
export interface InboxEntry {
	seq: number;
	body: string;
}

/**
 * A session's inbox (every store has one; the embedded store's lives in this process: embedded-inbox.ts): any process appends the learner events it receives (and
 * acknowledges them at once); the lease holder applies them in order. A session with entries, or
 * whose holder left work behind (a cut-off turn), and no live lease is "due": any process may take it.
 */
export interface SessionInbox {
	/**
	 * Append an entry; its sequence number. The session is due unless a live lease holds it. With
	 * `ifVersion`, only while the stored session is at that version (the sender checked the event against
	 * that copy): 0, and nothing appended, when it moved.
	 */
	push(sessionId: string, body: string, ifVersion?: number): Promise<number>;
	/** Entries with a sequence number above `after`, in order, at most `limit`. */
	read(sessionId: string, after: number, limit: number): Promise<InboxEntry[]>;
	/** How many entries with a sequence number of at least `from` are still there (not applied and dropped). */
	count(sessionId: string, from: number): Promise<number>;
	/** Drop the entries up to `upTo` (applied: their effect is saved). */
	drop(sessionId: string, upTo: number): Promise<void>;
	/** Sessions due for a taker (work left, no live lease), at most `limit`. */
	due(limit: number): Promise<string[]>;
}

/** Options of a save. */
export interface SaveOptions {
	/** The fencing number of the lease the writer holds: refused when a later lease was granted meanwhile. */
	fence?: number;
}

/**
 * The session store, one interface for every backend. Implementations must not lose a record on
 * a failed call: they throw (StoreError when the store failed, StoreConflictError when the copy
 * was stale or the writer fenced off).
 */
export interface SessionStore {
	/** The record at its latest version (`version` set), or undefined. Old stored formats are migrated on read. */
	get(sessionId: string): Promise<SessionRecord | undefined>;
	/**
	 * Compare-and-set: stores the record when its `version` is the stored one (absent: only when no record
	 * exists), then sets `record.version` to the new version. A lost race rejects with a StoreConflictError
	 * (code `store-conflict`) and writes nothing; a stale `fence` rejects with code `store-fenced`.
	 * Writes only what changed since this store read or saved the record (appended or replaced messages).
	 */
	set(record: SessionRecord, options?: SaveOptions): Promise<void>;
	/**
	 * The stored version of a session (cheap; no transcript read), or undefined when none is stored. While this
	 * store surely holds the session's lease it may answer from what it read with the grant and wrote since
	 * (lease-book.ts: no other writer can move it meanwhile), with no round trip.
	 */
	version(sessionId: string): Promise<number | undefined>;
	/** Take the session's lease for `ttlMs` unless another holder has it; undefined when it is taken. */
	acquire(sessionId: string, ttlMs: number): Promise<SessionLease | undefined>;
	/**
	 * Whether the session's lease this process held at `at` (performance.now(); default now) was never lost: no
	 * store call while it is surely held (lease-book.ts); false once a renewal or its release found it gone
	 * (another process may run the session now); true once given back while still its own, when no lease of it
	 * was held then, and when the store cannot answer. Absent: this process is the store's only user (the
	 * embedded store), so it always holds its sessions. Never rejects.
	 */
	holding?(sessionId: string, at?: number): Promise<boolean>;
	delete(sessionId: string): Promise<boolean>;
	/** The sessions' inboxes (events received by any process, applied by the lease holder; embedded-inbox.ts on SQLite). */
	readonly inbox: SessionInbox;
	/** Every stored session id (keyv cannot list portably, so the store keeps an index key). */
	list(): Promise<string[]>;
	/** The ids of sessions not ended (an index kept next to the other): what a restart has to look at. */
	listOpen(): Promise<string[]>;
	/**
	 * After deletions that must leave no trace (forget-me): SQLite checkpoints its WAL into the database and
	 * truncates it, and VACUUMs while free pages remain, so deleted rows are in no page of its files (deletes
	 * zero what they free: `secure_delete` is on). Absent where there is nothing to do. Rejects when it fails.
	 */
	compact?(): Promise<void>;
	close(): Promise<void>;
}
