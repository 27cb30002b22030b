/**
 * Edits to a session's transcript. Messages are replaced, never mutated in
 * place: the model-message cache keys on message objects, and a stored
 * message must render the same bytes forever (prompt caching).
 */

import type { AnswerResult } from "../../core/contracts/events.ts";
import { LESSON_ENDED_PART } from "../../core/phases.ts";
import { findToolCall, type ToolPartView } from "../../core/transcript.ts";
import type { EndReason, LessonMessage, SessionRecord, UsageTotals } from "../store/types.ts";

type Part = LessonMessage["parts"][number];

/** Append parts to the turn's assistant message (by id), or start one when there is none yet. */
export function appendAssistantParts(
	record: SessionRecord,
	draftId: string | undefined,
	parts: Part[],
	fresh: () => LessonMessage,
): string {
	const last = record.messages.at(-1);
	if (draftId !== undefined && last?.id === draftId && last.role === "assistant") {
		record.messages[record.messages.length - 1] = { ...last, parts: [...last.parts, ...parts] };
		return draftId;
	}
	const message = fresh();
	record.messages.push({ ...message, parts: [...message.parts, ...parts] });
	return message.id;
}

/** Replace one tool part (found by call id) with a settled version. Returns false when the call is unknown. */
export function replaceToolPart(
	record: SessionRecord,
	toolCallId: string,
	next: (part: ToolPartView) => Part,
): boolean {
	const found = findToolCall(record.messages, toolCallId);
	if (!found) return false;
	const message = record.messages[found.messageIndex];
	if (!message) return false;
	const parts = [...message.parts];
	parts[found.partIndex] = next(found.part);
	record.messages[found.messageIndex] = { ...message, parts };
	return true;
}

/** The learner's answer as the call's result (output-available). */
export function answeredPart(part: ToolPartView, result: AnswerResult): Part {
	return {
		type: part.type as `tool-${string}`,
		toolCallId: part.toolCallId,
		state: "output-available",
		input: part.input,
		output: result,
	} as Part;
}

/** An error result for a call that will never complete (interrupted by a restart). */
export function erroredPart(part: ToolPartView, errorText: string): Part {
	return {
		type: part.type as `tool-${string}`,
		toolCallId: part.toolCallId,
		state: "output-error",
		input: part.input,
		errorText,
	} as Part;
}

/** The end marker (core/phases.ts reads it): an assistant message with a data part, invisible to the model. */
export function endMarker(id: string, reason: EndReason, at: string): LessonMessage {
	return {
		id,
		role: "assistant",
		metadata: { kind: "tutor", at },
		parts: [{ type: LESSON_ENDED_PART as `data-${string}`, data: { reason } }],
	};
}

/** Add a step's token usage to an assistant message's metadata (the message is replaced, not mutated). */
export function addMessageUsage(record: SessionRecord, id: string, usage: UsageTotals): void {
	const index = record.messages.findLastIndex((m) => m.id === id);
	const message = record.messages[index];
	if (!message) return;
	const before = message.metadata?.usage;
	const sum: UsageTotals = {
		inputTokens: (before?.inputTokens ?? 0) + usage.inputTokens,
		outputTokens: (before?.outputTokens ?? 0) + usage.outputTokens,
		cachedInputTokens: (before?.cachedInputTokens ?? 0) + usage.cachedInputTokens,
	};
	record.messages[index] = { ...message, metadata: { ...message.metadata, usage: sum } };
}
