/**
 * Platform-neutral events: what the tutor engine says (outgoing) and what a
 * learner does (incoming). Adapters map platform payloads to LearnerEvent and
 * TutorEvent to platform calls; the engine never sees a platform.
 */

import type { LearnerImage } from "../learner-images.ts";
import type { PlanMastery } from "../mastery.ts";
import type { AskToolInput, ExplainToolInput, QuizToolInput } from "../question-core.ts";
import type { HelpKind, QuizAttempt } from "../struggle.ts";
import type { DerivedPlanStatuses, PlanTree } from "./plan.ts";
import type { ProbeAssessment } from "./probe.ts";
import type { VoteOutcome } from "./vote-outcome.ts";

/** Someone in the thread: a platform user id and a display name when known. */
export interface Participant {
	id: string;
	name?: string;
}

/** Who a forgotten participant becomes (forget-me in a group lesson: engine/anonymise.ts); never a member's id. */
export const ANONYMOUS_PARTICIPANT = "anonymous";

/** solo: only the learner answers; group: any member of the thread may. */
export type LessonMode = "solo" | "group";

/** The lesson's phase, derived from the transcript (see phases.ts). */
export type LessonPhase = "probe" | "teach" | "ended";

/** The learner's graded answer: the tool result of a quiz or ask, authored by our code. */
export interface AnswerResult {
	/** The chosen option's text (quiz), the option value (ask) or the typed text. */
	answer: string;
	/** Ask with options: the label the learner saw. */
	label?: string;
	/** Quiz only: graded against correctAnswer (and acceptedAnswers), or by the grader; absent when `judged` is "unsure". */
	correct?: boolean;
	/**
	 * Quiz only, typed answers: "unsure" when neither the deterministic judge nor the grader could decide (no
	 * `correct`: the teacher judges the words); "grader" when the grading model decided `correct`.
	 */
	judged?: "unsure" | "grader";
	/** The grader's one-line reason (with `judged`), for the teacher and the answered card. */
	reason?: string;
	/** Quiz only: the learner said they do not know ("I don't know", Not sure): not known, never a guess; `correct` is false. */
	notSure?: true;
	/** Quiz only: the wrong tries before this result (a check gets a second try before its answer shows). */
	attempts?: QuizAttempt[];
	/** Quiz only: the hints given for this question, in order (`hinted` is set with them). */
	hints?: string[];
	hinted?: boolean;
	/** Quiz only: the correct answer was shown (after the second miss, or the learner asked). */
	revealed?: boolean;
	/** Quiz only: the learner asked for another explanation instead of answering (no `correct`). */
	explainAgain?: boolean;
	/** Our note for the model on how to read this result (not sure, revealed, explain again). */
	note?: string;
	by: Participant;
	/** Set when the learner moved on (ended the lesson, a vote closed without them) instead of answering. */
	skipped?: boolean;
	/**
	 * Typed in the thread (not into the question's form) and waiting for the grader, which also reads whether it is
	 * an answer at all; dropped with the verdict.
	 */
	inThread?: true;
	/** The question stayed open over a turn: the model saw it pending and reads this result in a later message. */
	deferred?: true;
	/** Group lessons: the closed vote (per member answers, counts, split); `by` is then the group (the starter's id). */
	vote?: VoteOutcome;
}

/** A group lesson's vote was recorded: what the member chose, for their private acknowledgement. */
export interface VoteAck {
	/** The chosen option's text (or the typed answer). */
	answer: string;
	/** The option's letter, when it was one of the options. */
	letter?: string;
	/** It replaced the member's earlier vote. */
	changed: boolean;
}

/** What a learner (or an admin) does in a lesson thread. */
export type LearnerEvent =
	/** A choice on a quiz or ask with options: the option text (quiz) or value (ask), or its 0-based index. */
	| { type: "answer"; toolCallId: string; value: string | number; by: Participant }
	/**
	 * A typed answer to a free-answer quiz or a free-text ask; `images`: pictures of the learner's working sent
	 * with it (checked by the adapter like a message's; the text is the answer that is judged).
	 */
	| { type: "reply"; toolCallId: string; text: string; by: Participant; images?: LearnerImage[] }
	/** A message typed in the thread; `images`: pictures sent with it (checked by the adapter; text may then be empty). */
	| { type: "message"; text: string; by: Participant; images?: LearnerImage[] }
	/**
	 * A help control on an open quiz: a hint, try again, explain another way, show the answer, or
	 * "not sure" (an answer in its own right). See core/struggle.ts.
	 */
	| { type: "help"; toolCallId: string; kind: HelpKind; by: Participant }
	/** End the lesson; `privileged` when the adapter verified an admin. */
	| { type: "end"; by: Participant; privileged?: boolean };

/** Why handle() refused an event; the adapter turns it into an ephemeral notice. */
export type RefusalCode =
	| "unknown-session"
	| "ended"
	| "not-allowed"
	| "not-pending"
	| "already-answered"
	| "invalid-answer"
	/** The tutor is shutting down (a restart): nothing was recorded; try again in a moment. */
	| "closing"
	/** The store could not save the event (it is down or refused the write): nothing was recorded; try again. */
	| "store-unavailable";

/** handle()'s verdict, known before any model work: recorded (or queued) or refused. */
export type HandleResult = { ok: true; vote?: VoteAck } | { ok: false; code: RefusalCode; message: string };

/** A question's card as the platform shows it: its messages in order, and the lead shown above it. */
export interface PostedCard {
	messageIds: string[];
	lead?: string;
}

/** What the tutor says. Every event names its session. */
export type TutorEvent =
	| { type: "text"; sessionId: string; text: string }
	| {
			type: "quiz";
			sessionId: string;
			toolCallId: string;
			input: QuizToolInput;
			/** The plan node the quiz is about (read from the raw call), when tagged and known. */
			nodeId?: string;
			/** Re-sent after a restart or a takeover: it was saved but may not have been posted (post it unless already posted). */
			replay?: boolean;
			/** A replay: where its card was posted, as the engine knows it (the output path posts nothing then). */
			posted?: PostedCard;
			/** Offered again after the tutor answered something the learner asked while it was open: post a new card. */
			again?: boolean;
			/** Post it as text, its formulas as code (no pictures): the restarts before died while posting it. */
			plain?: boolean;
	  }
	| {
			type: "ask";
			sessionId: string;
			toolCallId: string;
			input: AskToolInput;
			/** Re-sent after a restart or a takeover: it was saved but may not have been posted (post it unless already posted). */
			replay?: boolean;
			/** A replay: where its card was posted, as the engine knows it (the output path posts nothing then). */
			posted?: PostedCard;
			/** Offered again after the tutor answered something the learner asked while it was open: post a new card. */
			again?: boolean;
			/** Post it as text, its formulas as code (no pictures): the restarts before died while posting it. */
			plain?: boolean;
	  }
	| {
			type: "explain";
			sessionId: string;
			toolCallId: string;
			input: ExplainToolInput;
			/** The material page it cites, checked in code: the page holds the quoted words. */
			/** `part`: a text file's part (about 3,000 characters), cited "part N" instead of "p. N". */
			citation?: { source: string; page: number; part?: true };
	  }
	| { type: "assessment"; sessionId: string; toolCallId: string; assessment: ProbeAssessment }
	| {
			type: "plan";
			sessionId: string;
			tree: PlanTree;
			statuses: DerivedPlanStatuses;
			/** Derived mastery per node id (learned / shaky / not-yet), from the tagged check quizzes' results. */
			mastery?: PlanMastery;
			/** init: first map; rewrite: a new tree version; moved: the derived current node changed. */
			reason: "init" | "rewrite" | "moved";
	  }
	| {
			type: "answered";
			sessionId: string;
			toolCallId: string;
			kind: "quiz" | "ask";
			result: AnswerResult;
			/** What was asked, for the answered card (undefined when the input no longer parses). */
			quiz?: QuizToolInput;
			ask?: AskToolInput;
			/**
			 * The grader is checking this typed answer (`result` is the undecided one): the card shows a checking
			 * state, and another `answered` event for the same call follows with the verdict.
			 */
			checking?: true;
	  }
	| {
			type: "attempt";
			sessionId: string;
			toolCallId: string;
			/** The wrong tries so far (the last one is the newest). */
			attempts: QuizAttempt[];
			/** missed: "Not quite" (Try again, Hint, Show answer); retry: the question again, to answer. */
			state: "missed" | "retry";
			by: Participant;
			/** What was asked (undefined when the input no longer parses). */
			quiz?: QuizToolInput;
	  }
	/** A hint for an open quiz (the teacher's, checked not to contain the answer), to post in the thread. */
	| { type: "hint"; sessionId: string; toolCallId: string; text: string; by: Participant }
	| { type: "typing"; sessionId: string; active: boolean }
	| { type: "error"; sessionId: string; code: string; message: string; retryable: boolean }
	| { type: "ended"; sessionId: string; reason: "completed" | "ended-by-user" | "ended-by-admin"; by?: Participant };

/** The type of a TutorEvent, for narrowing helpers. */
export type TutorEventType = TutorEvent["type"];
