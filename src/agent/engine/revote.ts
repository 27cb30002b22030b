/**
 * The second vote of a group lesson (peer instruction; core/votes.ts says when
 * one is due): after the tally of a first-round check vote that split or went
 * wrong, the teacher's turn is the discussion and nothing else. Every tool call
 * of that turn is refused (no new question, no next node's explanation), the
 * turn ends with the first step that says something, and the same question
 * re-opens as a revote (`<id>~revote`). The lesson goes on only after the
 * revote's tally. At most one revote per question.
 */

import type { AnswerResult } from "../../core/contracts/events.ts";
import { findToolCall, toolParts } from "../../core/transcript.ts";
import { REVOTE_SUFFIX } from "../../core/votes.ts";
import type { LessonMessage } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import type { StepContent } from "./model-step.ts";
import { saveUntilStored } from "./persist.ts";
import { questionEvent } from "./question-events.ts";
import { appendAssistantParts } from "./record-edit.ts";
import type { SessionState } from "./session-state.ts";

export { REVOTE_SUFFIX };

/** What the model hears when it calls a tool while a revote is due. */
export const REVOTE_HOLD_TEXT =
	"A revote of the last question comes first: discuss the vote in a short message (no new question, no explanation of a new idea, no answer), then end your turn; the same question re-opens for a revote by itself.";

/** The teacher's next step after a split vote (in the tally's result). */
export const SPLIT_NEXT =
	"The vote split. Discuss it: say why each chosen answer is tempting and ask the group to think again, without giving the answer. The same question re-opens for a revote after your message.";

/** The teacher's next step after a wrong group verdict on a first vote (the group's first miss). */
export const WRONG_NEXT =
	"Most of the group chose a wrong answer: this is their first try, as a learner's first miss. Do not give the answer: ask what led them there and give one hint toward the idea, then end your turn. The same question re-opens for a second vote after your message.";

/** The first-round id of a question (a revote's id without its suffix). */
export function firstRoundId(toolCallId: string): string {
	return toolCallId.endsWith(REVOTE_SUFFIX) ? toolCallId.slice(0, -REVOTE_SUFFIX.length) : toolCallId;
}

/** The question whose revote is due (the latest question was a first-round vote that calls for one, not yet revoted). */
export function revotePending(
	messages: readonly LessonMessage[],
): { toolCallId: string; input: unknown; messageIndex: number } | undefined {
	let last: { toolCallId: string; input: unknown; output: unknown; state: string } | undefined;
	// Refused calls (output-error) asked nobody anything: they do not count as the latest question.
	for (const part of toolParts(messages))
		if ((part.type === "tool-quiz" || part.type === "tool-ask") && part.state !== "output-error")
			last = { toolCallId: part.toolCallId, input: part.input, output: part.output, state: part.state };
	if (last?.state !== "output-available") return undefined;
	if ((last.output as AnswerResult | undefined)?.vote?.revote !== true) return undefined;
	if (last.toolCallId.endsWith(REVOTE_SUFFIX)) return undefined;
	const found = findToolCall(messages, last.toolCallId);
	return found ? { toolCallId: last.toolCallId, input: last.input, messageIndex: found.messageIndex } : undefined;
}

/** While a revote is due, every tool call of the model is refused (the turn is the discussion); text passes. */
export function holdForRevote(messages: readonly LessonMessage[], content: StepContent[]): StepContent[] {
	if (!revotePending(messages)) return content;
	return content.map((c) =>
		c.type === "tool-call" && c.refused === undefined ? { ...c, refused: REVOTE_HOLD_TEXT } : c,
	);
}

/**
 * After the teacher's turn: when a revote is due and the teacher discussed the vote (it wrote
 * something after the tally), re-open the same question as a revote (persist, then publish).
 */
export async function openRevoteIfDue(ctx: EngineContext, state: SessionState): Promise<void> {
	const record = state.record;
	const due = revotePending(record.messages);
	if (!due) return;
	const discussed = record.messages
		.slice(due.messageIndex + 1)
		.some((m) => m.role === "assistant" && m.parts.some((p) => p.type === "text" && p.text.trim() !== ""));
	if (!discussed) return;
	const toolCallId = `${due.toolCallId}${REVOTE_SUFFIX}`;
	const event = questionEvent(record, "quiz", toolCallId, due.input);
	if (!event) return;
	const last = record.messages.at(-1);
	const draft = last?.role === "assistant" ? last.id : undefined;
	appendAssistantParts(
		record,
		draft,
		[{ type: "step-start" }, { type: "tool-quiz", toolCallId, state: "input-available", input: due.input } as never],
		() => ({
			id: ctx.newId(),
			role: "assistant",
			metadata: { kind: "tutor", agent: "teacher", at: ctx.now().toISOString() },
			parts: [],
		}),
	);
	record.unpublished = [toolCallId];
	await saveUntilStored(ctx, state);
	await ctx.hub.emit(event);
	delete record.unpublished;
	state.dirty = true;
}
