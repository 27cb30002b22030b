/**
 * What a session is on disk: the transcript (AI SDK UIMessages) plus small
 * metadata. Everything else (phase, plan, pending questions) is derived.
 */

import type { UIMessage } from "ai";
import type { LessonMode, Participant } from "../../core/contracts/events.ts";
import type { Locale } from "../../core/i18n/index.ts";
import type { StruggleEntry } from "../../core/struggle.ts";
import type { GroupSettings, OpenVote } from "../../core/votes.ts";

/** Metadata on a transcript message; never sent to the model (prefix-stable). */
export interface LessonMessageMetadata {
	/** context: a note our code wrote for the model (lesson start, probe→teach seam). */
	kind?: "context" | "learner" | "tutor";
	/** Which context note (so it is written once). */
	note?: "start" | "teach";
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
	/** Quiz calls whose typed answers wait for the grading model (run before the next turn; a restart re-runs them). */
	grading?: string[];
	/** Group lessons: the vote settings taken at start (defaults when absent). */
	group?: GroupSettings;
	/** Group lessons: open votes by quiz call id (ballots until the tally; the tally goes into the transcript). */
	votes?: Record<string, OpenVote>;
	/** How many times resume() re-ran this session's cut-off turn in a row (bounded, so a turn that kills the process cannot loop). */
	reruns?: number;
	/**
	 * Open quizzes' wrong tries and hints, by tool call id (not derived: the learner's own acts). Saved with
	 * the record, so a restart between tries keeps them; moved into the tool result when the quiz resolves.
	 */
	struggle?: Record<string, StruggleEntry>;
}

/** Sessions on keyv. Implementations must not lose a record on a failed call: they throw. */
export interface SessionStore {
	get(sessionId: string): Promise<SessionRecord | undefined>;
	set(record: SessionRecord): Promise<void>;
	delete(sessionId: string): Promise<boolean>;
	/** Every stored session id (keyv cannot list portably, so the store keeps an index key). */
	list(): Promise<string[]>;
	/** The ids of sessions not ended (an index kept next to the other): what a restart has to look at. */
	listOpen(): Promise<string[]>;
	close(): Promise<void>;
}
