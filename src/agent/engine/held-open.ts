/**
 * Questions kept open over a turn. A learner who asks something while a quiz or an ask is open
 * (`wait, why must it be sorted?`), or asks for another explanation, has not answered: the
 * question stays open (never "skipped"), the tutor's turn runs with it pending, and the question
 * is offered again after the tutor's reply. Chat APIs need a result for every tool call, so the
 * model sees such a call with a placeholder result that says it is still open (core/late-answer.ts)
 * in every request from then on; its real answer is recorded on the call as usual (cards, mastery
 * and reports read it there) and reaches the model as a later message that names the question, the
 * answer and the verdict. While one is open the tutor asks nothing new (its new questions are
 * refused with a note saying why).
 */

import type { AnswerResult, TutorEvent } from "../../core/contracts/events.ts";
import { lateAnswerText } from "../../core/late-answer.ts";
import { findToolCall, pendingLearnerCalls, toolNameOf } from "../../core/transcript.ts";
import type { SessionRecord } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import { displayAsk, displayQuiz } from "./display.ts";
import { type QuestionEvent, replayEvents } from "./question-events.ts";
import { answeredPart, replaceToolPart } from "./record-edit.ts";
import type { SessionState } from "./session-state.ts";

/** The ids of the questions kept open (the record is read from disk: parse, don't cast). */
export function heldIds(record: SessionRecord): Set<string> {
	const held = (record as { held?: unknown }).held;
	return new Set(Array.isArray(held) ? held.filter((id): id is string => typeof id === "string") : []);
}

/** Keep these pending questions open over the next turn; true when the record changed. */
export function holdOpen(record: SessionRecord, ids: readonly string[]): boolean {
	const held = heldIds(record);
	const pending = new Set(pendingLearnerCalls(record.messages).map((p) => p.toolCallId));
	const added = ids.filter((id) => pending.has(id) && !held.has(id));
	if (added.length === 0) return false;
	record.held = [...held, ...added];
	return true;
}

/** Pending questions not kept open: while there is one, no turn runs (the tutor waits for its answer). */
export function unheldPending(record: SessionRecord): ReturnType<typeof pendingLearnerCalls> {
	const held = heldIds(record);
	return pendingLearnerCalls(record.messages).filter((p) => !held.has(p.toolCallId));
}

/** Pending questions kept open (offered again after the tutor's reply). */
export function heldPending(record: SessionRecord): ReturnType<typeof pendingLearnerCalls> {
	const held = heldIds(record);
	return held.size === 0 ? [] : pendingLearnerCalls(record.messages).filter((p) => held.has(p.toolCallId));
}

/** The question's words, for the late answer's message. */
function questionText(record: SessionRecord, toolCallId: string): string {
	const found = findToolCall(record.messages, toolCallId);
	if (!found) return "";
	const name = toolNameOf(found.part.type);
	const shown =
		name === "quiz" ? displayQuiz(found.part.input) : name === "ask" ? displayAsk(found.part.input) : undefined;
	return shown?.question ?? "";
}

/**
 * An `answered` event on a question kept open: its recorded result is marked deferred (the model keeps
 * seeing the placeholder there), and, once the verdict is final (not waiting for the grader), the result
 * goes to the model as a later message. True when the record changed.
 */
export function answerHeld(
	ctx: Pick<EngineContext, "newId" | "now">,
	state: SessionState,
	event: Extract<TutorEvent, { type: "answered" }>,
): boolean {
	const record = state.record;
	const held = heldIds(record);
	const { toolCallId } = event;
	if (!held.has(toolCallId) && event.result.deferred !== true) return false;
	if (event.result.deferred !== true) {
		const result: AnswerResult = { ...event.result, deferred: true };
		replaceToolPart(record, toolCallId, (part) => answeredPart(part, result));
		event.result = result;
	}
	if (held.has(toolCallId)) {
		const rest = [...held].filter((id) => id !== toolCallId);
		if (rest.length > 0) record.held = rest;
		else delete record.held;
	}
	// Waiting for the grader: the message goes with the verdict (grade-pending.ts calls this again).
	if (event.checking === true) return true;
	record.messages.push({
		id: ctx.newId(),
		role: "user",
		metadata: { kind: "context", note: "late-answer", at: ctx.now().toISOString() },
		parts: [
			{
				type: "text",
				text: lateAnswerText(toolCallId, questionText(record, toolCallId), { ...event.result }),
			},
		],
	});
	return true;
}

/** The questions kept open, to post again after the tutor's reply (marked `again`: a new card, not a replay). */
export function reofferEvents(record: SessionRecord): QuestionEvent[] {
	const ids = heldPending(record).map((p) => p.toolCallId);
	return replayEvents(record, ids).map(({ replay: _replay, posted: _posted, ...event }) => ({ ...event, again: true }));
}

/** What the model is told when it asks something new while a question is kept open. */
export const HELD_REFUSAL =
	"Not asked: a question is still open (see its pending result). Reply to what the learner wrote and end your " +
	"turn; that question is offered to them again, and their answer comes in a later message.";

/** A step's content with its new learner questions refused while a question is kept open. */
export function refuseWhileHeld<C extends { type: string; toolName?: string; refused?: string }>(
	record: SessionRecord,
	isLearnerTool: (name: string) => boolean,
	content: C[],
): C[] {
	if (heldPending(record).length === 0) return content;
	return content.map((c) =>
		c.type === "tool-call" && c.refused === undefined && isLearnerTool(c.toolName ?? "")
			? { ...c, refused: HELD_REFUSAL }
			: c,
	);
}
