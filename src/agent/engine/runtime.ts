/**
 * The per-session pump: delivers admitted events in order (record the answer,
 * append the message, end the lesson), then runs a turn when the tutor has
 * something to answer and no question is pending. One pump per session at a
 * time: that is what serializes a session's turns.
 */

import type { LanguageModel } from "ai";
import type { AnswerResult, Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { parseAskInput, parseQuizInput } from "../../core/tool-parts.ts";
import { learnerMessageText } from "../prompts/context.ts";
import type { EndReason, SessionStore } from "../store/types.ts";
import type { LessonAgent } from "./agents.ts";
import type { EventHub } from "./event-hub.ts";
import { answeredPart, endMarker, replaceToolPart } from "./record-edit.ts";
import type { Job, SessionState } from "./session-state.ts";
import { pendingLearnerCalls, toolNameOf } from "./transcript.ts";
import { runTurn } from "./turn.ts";

/** Everything the pump and the turns share (one per tutor). */
export interface Runtime {
	model: LanguageModel;
	store: SessionStore;
	logger: Logger;
	hub: EventHub;
	agents: { prober: LessonAgent; teacher: LessonAgent };
	maxStepsPerTurn: number;
	maxRetries: number;
	now: () => Date;
	newId: () => string;
	/** Aborted when the tutor closes: running model requests stop. */
	signal: AbortSignal;
}

/** Save the record; saves of one session reach the store in order. Never rejects (failures are logged). */
export function save(rt: Runtime, state: SessionState): Promise<void> {
	state.record.updatedAt = rt.now().toISOString();
	const next = state.saving.then(() => rt.store.set(state.record));
	state.saving = next.catch((error: unknown) => {
		rt.logger.error({ err: error, sessionId: state.record.sessionId }, "saving the session failed");
	});
	return state.saving;
}

/** Record a learner result on a pending call and announce it. */
async function recordAnswer(
	rt: Runtime,
	state: SessionState,
	toolCallId: string,
	result: AnswerResult,
): Promise<boolean> {
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
	if (!recorded || (kind !== "quiz" && kind !== "ask")) return false;
	await save(rt, state);
	const question = kind === "quiz" ? { quiz: parseQuizInput(input) } : { ask: parseAskInput(input) };
	await rt.hub.emit({ type: "answered", sessionId: state.record.sessionId, toolCallId, kind, result, ...question });
	return true;
}

/** Close the questions still pending with a `skipped` result (the learner moved on). */
export async function skipPending(
	rt: Runtime,
	state: SessionState,
	ids: readonly string[],
	by: Participant,
): Promise<void> {
	for (const id of ids) await recordAnswer(rt, state, id, { answer: "", skipped: true, by });
}

/** End the lesson: pending questions skipped, the end marker appended, `ended` emitted. */
export async function endLesson(rt: Runtime, state: SessionState, reason: EndReason, by?: Participant): Promise<void> {
	const record = state.record;
	if (record.ended) return;
	const pending = pendingLearnerCalls(record.messages).map((p) => p.toolCallId);
	await skipPending(rt, state, pending, by ?? record.learner);
	const at = rt.now().toISOString();
	record.messages.push(endMarker(rt.newId(), reason, at));
	record.ended = { reason, at, ...(by ? { by } : {}) };
	await save(rt, state);
	await rt.hub.emit({ type: "ended", sessionId: record.sessionId, reason, ...(by ? { by } : {}) });
}

/** Apply one job; true when the tutor should take a turn afterwards. */
async function applyJob(rt: Runtime, state: SessionState, job: Job): Promise<boolean> {
	const record = state.record;
	if (record.ended) return false;
	switch (job.type) {
		case "kick":
			return true;
		case "answer":
			return recordAnswer(rt, state, job.toolCallId, job.result);
		case "message": {
			await skipPending(rt, state, job.supersedes, job.by);
			record.messages.push({
				id: rt.newId(),
				role: "user",
				metadata: { kind: "learner", by: job.by, at: rt.now().toISOString() },
				parts: [{ type: "text", text: learnerMessageText(job.text, job.by, record.mode) }],
			});
			await save(rt, state);
			return true;
		}
		case "end":
			await endLesson(rt, state, job.reason, job.by);
			return false;
	}
}

async function pump(rt: Runtime, state: SessionState): Promise<void> {
	const sessionId = state.record.sessionId;
	while (state.queue.length > 0) {
		const jobs = state.queue.splice(0);
		let wantsTurn = false;
		for (const job of jobs) {
			try {
				if (await applyJob(rt, state, job)) wantsTurn = true;
			} catch (error) {
				rt.logger.error({ err: error, sessionId, job: job.type }, "delivering a learner event failed");
			}
		}
		const record = state.record;
		if (!wantsTurn || record.ended || rt.signal.aborted || pendingLearnerCalls(record.messages).length > 0) continue;
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
