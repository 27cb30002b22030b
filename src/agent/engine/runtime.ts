/**
 * The per-session pump: delivers admitted events in order (record the answer,
 * append the message, end the lesson), then runs a turn when the tutor has
 * something to answer and no question is pending. One pump per session at a
 * time: that is what serializes a session's turns.
 */

import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { AnswerResult, Participant, TutorEvent } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";

import { learnerMessageText } from "../prompts/context.ts";
import type { EndReason, SessionStore } from "../store/types.ts";
import type { LessonAgent } from "./agents.ts";
import { displayAsk, displayQuiz } from "./display.ts";
import type { EventHub } from "./event-hub.ts";
import { answeredPart, endMarker, replaceToolPart } from "./record-edit.ts";
import type { Job, SessionState } from "./session-state.ts";
import { pendingLearnerCalls, toolNameOf } from "./transcript.ts";
import { runTurn } from "./turn.ts";

/** Everything the pump and the turns share (one per tutor). */
export interface Runtime {
	model: LanguageModelV3;
	store: SessionStore;
	logger: Logger;
	hub: EventHub;
	agents: { prober: LessonAgent; teacher: LessonAgent };
	maxStepsPerTurn: number;
	maxRetries: number;
	/** First retry backoff (doubles per retry). */
	retryDelayMs: number;
	/** A model request that makes no progress for this long is abandoned (and retried). */
	requestTimeoutMs: number;
	/** A model request not finished this long after it started is abandoned (and retried). */
	totalTimeoutMs: number;
	/** An OpenTelemetry span per model step. */
	telemetry: boolean;
	now: () => Date;
	newId: () => string;
	/** Aborted when the tutor closes: running model requests stop. */
	signal: AbortSignal;
}

/**
 * Queue a save of the record. Saves of a session run one at a time, in order,
 * and coalesce: a save waiting to start writes whatever the record holds when
 * it starts. Persist, then publish: callers await the save before emitting the
 * events it covers, so a quiz the learner can see (or an answer shown as
 * recorded) is on disk and survives a crash. Never rejects (failures are logged).
 */
export function save(rt: Runtime, state: SessionState): Promise<void> {
	state.record.updatedAt = rt.now().toISOString();
	if (state.saveQueued) return state.saving;
	state.saveQueued = true;
	state.unsaved++;
	state.saving = state.saving
		.then(() => {
			state.saveQueued = false;
			return rt.store.set(state.record);
		})
		.catch((error: unknown) => {
			rt.logger.error({ err: error, sessionId: state.record.sessionId }, "saving the session failed");
		})
		.finally(() => {
			state.unsaved--;
		});
	return state.saving;
}

/** Record a learner result on a pending call; the `answered` event to emit, if it was recorded. */
function recordAnswer(state: SessionState, toolCallId: string, result: AnswerResult): TutorEvent | undefined {
	let input: unknown;
	let kind: string | undefined;
	let recorded = false;
	replaceToolPart(state.record, toolCallId, (part) => {
		input = part.input;
		kind = toolNameOf(part.type);
		if (part.state !== "input-available") return part as never;
		recorded = true;
		return answeredPart(part, result);
	});
	state.claims.delete(toolCallId);
	if (!recorded || (kind !== "quiz" && kind !== "ask")) return undefined;
	const question = kind === "quiz" ? { quiz: displayQuiz(input) } : { ask: displayAsk(input) };
	return { type: "answered", sessionId: state.record.sessionId, toolCallId, kind, result, ...question };
}

/** Close the questions still pending with a `skipped` result (the learner moved on); their events. */
function skipPending(state: SessionState, ids: readonly string[], by: Participant): TutorEvent[] {
	const events: TutorEvent[] = [];
	for (const id of ids) {
		const event = recordAnswer(state, id, { answer: "", skipped: true, by });
		if (event) events.push(event);
	}
	return events;
}

/**
 * End the lesson: pending questions skipped, the end marker appended, saved, `ended` emitted.
 * `saved` runs once the end is on disk, before the events go out.
 */
export async function endLesson(
	rt: Runtime,
	state: SessionState,
	reason: EndReason,
	by?: Participant,
	saved?: () => void,
): Promise<void> {
	const record = state.record;
	if (record.ended) return;
	const pending = pendingLearnerCalls(record.messages).map((p) => p.toolCallId);
	const events = skipPending(state, pending, by ?? record.learner);
	const at = rt.now().toISOString();
	record.messages.push(endMarker(rt.newId(), reason, at));
	record.ended = { reason, at, ...(by ? { by } : {}) };
	record.turnOpen = false;
	await save(rt, state);
	saved?.();
	for (const event of events) await rt.hub.emit(event);
	await rt.hub.emit({ type: "ended", sessionId: record.sessionId, reason, ...(by ? { by } : {}) });
}

/** Apply one job to the record (no save); its events, whether it changed the record, whether a turn should run. */
function applyJob(
	rt: Runtime,
	state: SessionState,
	job: Exclude<Job, { type: "end" }>,
): { events: TutorEvent[]; changed: boolean; turn: boolean } {
	const record = state.record;
	switch (job.type) {
		case "kick":
			return { events: [], changed: false, turn: true };
		case "answer": {
			const event = recordAnswer(state, job.toolCallId, job.result);
			return { events: event ? [event] : [], changed: event !== undefined, turn: event !== undefined };
		}
		case "message": {
			const events = skipPending(state, job.supersedes, job.by);
			record.messages.push({
				id: rt.newId(),
				role: "user",
				metadata: { kind: "learner", by: job.by, at: rt.now().toISOString() },
				parts: [{ type: "text", text: learnerMessageText(job.text, job.by, record.mode) }],
			});
			return { events, changed: true, turn: true };
		}
	}
}

/**
 * Deliver a batch of jobs: one save, then their events (persist, then publish); an end is
 * delivered on its own. Each job's `delivered` is called once its delivery is on disk.
 */
async function deliver(rt: Runtime, state: SessionState, jobs: Job[]): Promise<boolean> {
	const record = state.record;
	const events: TutorEvent[] = [];
	let turn = false;
	let changed = false;
	let end: Extract<Job, { type: "end" }> | undefined;
	for (const job of jobs) {
		if (record.ended) break;
		if (job.type === "end") {
			end = job;
			break; // nothing is admitted after an end
		}
		const applied = applyJob(rt, state, job);
		events.push(...applied.events);
		if (applied.turn) turn = true;
		if (applied.changed) changed = true;
	}
	turn = turn && !end && !rt.signal.aborted && pendingLearnerCalls(record.messages).length === 0;
	// The turn about to run is marked in the same write (one save per delivery, not two).
	if (turn) record.turnOpen = true;
	if (changed || turn) await save(rt, state);
	if (!end) settleDelivered(jobs);
	for (const event of events) await rt.hub.emit(event);
	if (end) await endLesson(rt, state, end.reason, end.by, () => settleDelivered(jobs));
	return turn;
}

/** Tell the jobs' waiters that delivery is done (idempotent). */
function settleDelivered(jobs: Job[]): void {
	for (const job of jobs) {
		job.delivered?.();
		job.delivered = undefined;
	}
}

async function pump(rt: Runtime, state: SessionState): Promise<void> {
	const sessionId = state.record.sessionId;
	while (state.queue.length > 0) {
		const jobs = state.queue.splice(0);
		let turn = false;
		try {
			turn = await deliver(rt, state, jobs);
		} catch (error) {
			rt.logger.error({ err: error, sessionId }, "delivering learner events failed");
		} finally {
			settleDelivered(jobs);
		}
		if (!turn) continue;
		try {
			await runTurn(rt, state);
		} catch (error) {
			rt.logger.error({ err: error, sessionId }, "turn failed");
			await rt.hub.emit({
				type: "error",
				sessionId,
				code: "internal-error",
				message: "Something went wrong on our side. Send a message to continue.",
				retryable: true,
			});
		}
	}
}

/** Start the session's pump unless it is running (it drains the queue, then stops). */
export function kick(rt: Runtime, state: SessionState): void {
	if (state.pump) return;
	state.pump = pump(rt, state).finally(() => {
		state.pump = undefined;
		if (state.queue.length > 0 && !rt.signal.aborted) kick(rt, state);
	});
}
