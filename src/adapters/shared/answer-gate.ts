/**
 * Who may answer, decided twice. Before the first response to an "Answer"
 * click (Discord: the modal must BE that response; Slack: views.open's
 * trigger_id dies after 3 s) only memory may be consulted: what this process
 * saw of the lesson (mode, learner, ended) and of the question (its text,
 * answered). After the ack, the tutor's summary decides for real. The tutor
 * remains the authority on every answer; these checks only spare people a
 * modal that could not be recorded.
 */

import { LRUCache } from "lru-cache";
import type { LessonMode, RefusalCode, TutorEvent } from "../../core/contracts/events.ts";
import type { SessionSummary } from "../../core/contracts/tutor.ts";

/** What decides who may answer in a lesson. */
export interface LessonAccess {
	mode: LessonMode;
	learnerId: string;
	ended?: boolean;
}

/** In-memory knowledge of lessons and questions, bounded (an LRU each). */
export class AnswerGate {
	private readonly lessons = new LRUCache<string, LessonAccess>({ max: 10_000 });
	private readonly questions = new LRUCache<string, string>({ max: 20_000 });
	private readonly answered = new LRUCache<string, true>({ max: 50_000 });
	private readonly ended = new LRUCache<string, true>({ max: 10_000 });

	/** Learn from a tutor event (call it as the event arrives, before queueing posts): questions, answers, ends. */
	observe(event: TutorEvent): void {
		if (event.type === "quiz" || event.type === "ask") {
			const question = typeof event.input?.question === "string" ? event.input.question : "";
			this.rememberQuestion(event.sessionId, event.toolCallId, question);
		} else if (event.type === "answered") this.markAnswered(event.sessionId, event.toolCallId);
		else if (event.type === "ended") this.markEnded(event.sessionId);
	}

	/** Remember a lesson's mode and learner (at start, or when read from the store). */
	rememberLesson(sessionId: string, access: LessonAccess): void {
		this.lessons.set(sessionId, { ...access });
	}

	/** Forget a lesson (it did not start after all). */
	forgetLesson(sessionId: string): void {
		this.lessons.delete(sessionId);
	}

	/** The lesson as remembered, if it is in memory. */
	lesson(sessionId: string): LessonAccess | undefined {
		return this.lessons.get(sessionId);
	}

	/** Remember that a lesson ended (its questions can no longer be answered). */
	markEnded(sessionId: string): void {
		this.ended.set(sessionId, true);
	}

	/** Remember a posted question's text (the modal shows it). */
	rememberQuestion(sessionId: string, toolCallId: string, question: string): void {
		this.questions.set(`${sessionId}|${toolCallId}`, question);
	}

	/** A posted question's text, if it is in memory. */
	questionText(sessionId: string, toolCallId: string): string | undefined {
		return this.questions.get(`${sessionId}|${toolCallId}`);
	}

	/** Remember that a question was answered or skipped. */
	markAnswered(sessionId: string, toolCallId: string): void {
		this.answered.set(`${sessionId}|${toolCallId}`, true);
	}

	/** Whether this process saw the question answered (false when unknown). */
	isAnswered(sessionId: string, toolCallId: string): boolean {
		return this.answered.has(`${sessionId}|${toolCallId}`);
	}

	/** Why `userId` may not answer, from memory alone (no I/O: safe before an ack); undefined when nothing known forbids it. */
	refusalFromMemory(sessionId: string, toolCallId: string, userId: string): RefusalCode | undefined {
		const lesson = this.lessons.get(sessionId);
		if (lesson?.ended || this.ended.has(sessionId)) return "ended";
		if (this.isAnswered(sessionId, toolCallId)) return "already-answered";
		if (lesson && lesson.mode === "solo" && lesson.learnerId !== userId) return "not-allowed";
		return undefined;
	}
}

/** Why `userId` may not answer `toolCallId`, from the tutor's summary (undefined summary: the lesson is unknown). */
export function refusalFromSummary(
	summary: SessionSummary | undefined,
	toolCallId: string,
	userId: string,
): RefusalCode | undefined {
	if (!summary) return "unknown-session";
	if (summary.phase === "ended") return "ended";
	if (!summary.pending.some((p) => p.toolCallId === toolCallId)) return "not-pending";
	if (summary.mode === "solo" && summary.learner.id !== userId) return "not-allowed";
	return undefined;
}
