/**
 * Writing the learner's side into the transcript: an answer becomes the
 * pending call's tool result; questions left behind by an end are closed as
 * skipped (a typed message never closes one: held-open.ts). Each returns the `answered` events to emit after the save.
 */

import type { AnswerResult, Participant, TutorEvent } from "../../core/contracts/events.ts";
import { toolNameOf } from "../../core/transcript.ts";
import { displayAsk, displayQuiz } from "./display.ts";
import { answeredPart, replaceToolPart } from "./record-edit.ts";
import type { SessionState } from "./session-state.ts";

/** Record a learner result on a pending call; the `answered` event to emit, if it was recorded. */
export function recordAnswer(state: SessionState, toolCallId: string, result: AnswerResult): TutorEvent | undefined {
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
export function skipPending(state: SessionState, ids: readonly string[], by: Participant): TutorEvent[] {
	const events: TutorEvent[] = [];
	for (const id of ids) {
		// The tries and hints of an open quiz go with it, so the teacher still sees them.
		const entry = state.record.struggle?.[id];
		const gathered = {
			...(entry && entry.attempts.length > 0 ? { attempts: [...entry.attempts] } : {}),
			...(entry && entry.hints.length > 0 ? { hints: [...entry.hints], hinted: true } : {}),
		};
		const event = recordAnswer(state, id, { answer: "", skipped: true, by, ...gathered });
		if (event) events.push(event);
		if (state.record.struggle && id in state.record.struggle) {
			const { [id]: _gone, ...rest } = state.record.struggle;
			state.record.struggle = rest;
		}
	}
	return events;
}
