/**
 * The tutor engine's public face, as adapters see it. Implemented by
 * src/agent (createTutor); adapters depend on this interface only.
 */

import type { Locale } from "../../i18n/index.ts";
import type { PlanMastery } from "../mastery.ts";
import type { AskToolInput, QuizToolInput } from "../question-core.ts";
import type { GroupSettings, MemberResult } from "../votes.ts";
import type {
	HandleResult,
	LearnerEvent,
	LessonMode,
	LessonPhase,
	Participant,
	PostedCard,
	TutorEvent,
} from "./events.ts";
import type { DerivedPlanStatuses, PlanTree } from "./plan.ts";
import type { ProbeAssessment } from "./probe.ts";

/** Options of a new lesson. */
export interface StartLessonOptions {
	/** `discord:<guild>:<thread>`, `slack:<team>:<channel>:<thread_ts>` or `terminal:<id>`. */
	sessionId: string;
	topic: string;
	learner: Participant;
	mode: LessonMode;
	/** Who started it (an admin may start a lesson for a member); defaults to the learner. */
	startedBy?: Participant;
	/** The lesson's language, fixed for its life (default English); the tutor is told to teach in it. */
	language?: Locale;
	/** Group lessons: vote settings (the server's `/lesson config`); defaults when absent. */
	group?: Partial<GroupSettings>;
	/** The learner's material (a PDF's bytes, downloaded by the platform): the lesson is grounded in it (docs/material.md). */
	material?: MaterialUpload;
}

/**
 * A document a lesson is grounded in: as the platform received it (nothing about it is trusted), or a community
 * library's item, already read and indexed when it was added (`index`: its stored index, checked by the engine).
 */
export type MaterialUpload = { name: string; data: Uint8Array } | { name: string; index: unknown };

/** startLesson's verdict. */
export type StartLessonResult =
	/** `material`: the document the lesson teaches from, and what was neutralised in it (sentences for the starter). */
	| { ok: true; material?: { name: string; pages: number; warnings: string[]; unit?: "part" } }
	/**
	 * `closing`: the tutor is shutting down (a restart); `store-unavailable`: nothing could be saved. Try again in a moment.
	 * `material`: the material was refused (too big, too many pages, a compression bomb, not a PDF...): the message says why.
	 */
	| { ok: false; code: "exists" | "invalid-topic" | "closing" | "store-unavailable" | "material"; message: string };

/** A question still waiting for the learner, with what a card or an answer form needs to show it. */
export type PendingQuestion =
	| {
			toolCallId: string;
			kind: "quiz";
			/** The display parse of the call's input (undefined when it no longer parses). */
			input?: QuizToolInput;
	  }
	| {
			toolCallId: string;
			kind: "ask";
			/** The display parse of the call's input (undefined when it no longer parses). */
			input?: AskToolInput;
	  };

export type { PostedCard } from "./events.ts";

/** A read-only summary of a session, for /lesson status and the playground. */
export interface SessionSummary {
	sessionId: string;
	topic: string;
	learner: Participant;
	mode: LessonMode;
	/** The lesson's language (always set by the engine; optional so older fakes and records still type). */
	language?: Locale;
	phase: LessonPhase;
	createdAt: string;
	assessment?: ProbeAssessment;
	plan?: { tree: PlanTree; statuses: DerivedPlanStatuses; mastery?: PlanMastery };
	pending: PendingQuestion[];
	/** Questions (quiz, ask) the prober asked, so far or in all: "getting to know you · question n". */
	probeQuestions: number;
	messageCount: number;
	/** Group lessons: each member's results in this lesson (answered, correct), derived from the transcript. */
	members?: MemberResult[];
	usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
}

/** Receives the tutor's events, in order per session. Must not throw; errors are logged. */
export type TutorEventSink = (event: TutorEvent) => void | Promise<void>;

/** The tutor engine. */
export interface Tutor {
	/** Create a session and run the prober's first turn (in the background). */
	startLesson(options: StartLessonOptions): Promise<StartLessonResult>;
	/** Record (or queue) a learner event; resolves with the verdict before any model work. */
	handle(sessionId: string, event: LearnerEvent): Promise<HandleResult>;
	/** A session's summary; undefined when unknown. Rejects when the store cannot be read. */
	getSession(sessionId: string): Promise<SessionSummary | undefined>;
	/**
	 * Subscribe to events; returns an unsubscribe function. `drained`: resolves once what the sink took for a
	 * session is on the platform (its posts are queued asynchronously). The engine keeps the session's lease
	 * until then (bounded), so a process that dies while posting leaves the questions it had not posted yet
	 * to the process that takes over.
	 */
	subscribe(sink: TutorEventSink, options?: { drained?: (sessionId: string) => Promise<void> }): () => void;
	/**
	 * Forget-me in lessons others started (group lessons): `who`'s id and name leave every stored session
	 * whose learner they are not (messages, answers, open ballots), replaced by an anonymous participant;
	 * resolves with how many sessions changed. Optional: a tutor without it keeps those lessons as they are.
	 */
	forgetParticipant?(who: Participant): Promise<number>;
	/**
	 * Forget-me of a learner's own lesson: deleted for good, with its inbox. Nothing more is admitted to it, what is
	 * queued is dropped, and its running turn is waited for (bounded; on a shared store under the session's lease);
	 * a turn still running after that cannot save it again. True when a record was deleted. Rejects when the store fails.
	 */
	forgetLesson?(sessionId: string): Promise<boolean>;
	/**
	 * The output path posted the card of question `toolCallId`: remembered on the session's record (if this process
	 * holds it) and saved with its next save, never by a save of its own. Optional: without it cards are not found again.
	 */
	posted?(sessionId: string, toolCallId: string, card: PostedCard): void;
	/** The card reported posted for question `toolCallId`, as this process holds the session (no store call). */
	postedCard?(sessionId: string, toolCallId: string): PostedCard | undefined;
	/**
	 * Whether this process may still post the card of question `toolCallId`, asked just before the post; `receivedAt`
	 * (performance.now()) is when its event reached the sink (sinks are called while the engine emits it). The engine
	 * emits a question only while it holds the session; false once the lease it held then was lost (a process paused
	 * past it: the one that took the session over posts the card). No store call while the lease is surely held.
	 * Optional: without it every question emitted is posted. Never rejects.
	 */
	mayPost?(sessionId: string, toolCallId: string, receivedAt?: number): Promise<boolean>;
	/** Resolves when the session (or every session) has no turn running or queued. */
	idle(sessionId?: string): Promise<void>;
	/** Repair sessions cut off by a crash or restart (dangling calls get an "interrupted" result) and re-run a
	 *  turn that was cut off with no question pending; resolves with the number of sessions repaired. */
	resume(): Promise<number>;
	/** Stop accepting events, wait for running turns (bounded), close the store. */
	close(): Promise<void>;
}
