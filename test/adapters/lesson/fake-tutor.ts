/**
 * An in-test Tutor: records what the adapter asks, answers with configurable verdicts,
 * and lets a test emit TutorEvents as the engine would. For the command, config and
 * Socket Mode tests, where the real engine would only add noise.
 */

import type { HandleResult, LearnerEvent, TutorEvent } from "../../../src/core/contracts/events.ts";
import type {
	PostedCard,
	SessionSummary,
	StartLessonOptions,
	StartLessonResult,
	Tutor,
	TutorEventSink,
} from "../../../src/core/contracts/tutor.ts";
import { Gate } from "./held-store.ts";

/** A Tutor double with recorded calls. */
export class FakeTutor implements Tutor {
	readonly started: StartLessonOptions[] = [];
	readonly handled: { sessionId: string; event: LearnerEvent }[] = [];
	readonly sessions = new Map<string, SessionSummary>();
	/** Verdict of the next handle() calls (default: accepted). */
	verdict: HandleResult = { ok: true };
	private readonly sinks = new Set<TutorEventSink>();
	private readonly gate = new Gate();
	/** Calls that reached the tutor (counted before any gate). */
	calls = 0;

	/** Hold every later call until the returned function is called (to prove acks come first). */
	hold(): () => void {
		return this.gate.hold();
	}

	async startLesson(options: StartLessonOptions): Promise<StartLessonResult> {
		this.calls++;
		await this.gate.pass();
		if (this.sessions.has(options.sessionId)) return { ok: false, code: "exists", message: "exists" };
		this.started.push(options);
		this.sessions.set(options.sessionId, {
			sessionId: options.sessionId,
			topic: options.topic,
			learner: options.learner,
			mode: options.mode,
			phase: "probe",
			createdAt: new Date(0).toISOString(),
			pending: [],
			probeQuestions: 0,
			messageCount: 1,
			usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
		});
		return { ok: true };
	}

	async handle(sessionId: string, event: LearnerEvent): Promise<HandleResult> {
		this.calls++;
		await this.gate.pass();
		this.handled.push({ sessionId, event });
		if (!this.sessions.has(sessionId))
			return { ok: false, code: "unknown-session", message: "No lesson runs in this thread." };
		return this.verdict;
	}

	async getSession(sessionId: string): Promise<SessionSummary | undefined> {
		this.calls++;
		await this.gate.pass();
		return this.sessions.get(sessionId);
	}

	/** Where the output path reported each question's card posted (as the engine keeps it on the record). */
	readonly cards = new Map<string, PostedCard>();

	posted(sessionId: string, toolCallId: string, card: PostedCard): void {
		this.cards.set(`${sessionId}\0${toolCallId}`, card);
	}

	postedCard(sessionId: string, toolCallId: string): PostedCard | undefined {
		return this.cards.get(`${sessionId}\0${toolCallId}`);
	}

	subscribe(sink: TutorEventSink): () => void {
		this.sinks.add(sink);
		return () => this.sinks.delete(sink);
	}

	/** Deliver an event to every subscriber, as the engine's hub does. */
	async emit(event: TutorEvent): Promise<void> {
		for (const sink of [...this.sinks]) await sink(event);
	}

	subscribers(): number {
		return this.sinks.size;
	}

	async idle(): Promise<void> {}
	async resume(): Promise<number> {
		return 0;
	}
	async close(): Promise<void> {}
}
