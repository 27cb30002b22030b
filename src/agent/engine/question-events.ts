/**
 * The `quiz` and `ask` events of a question in the transcript: built once here
 * for the step that asks it and for the replay after a restart or a takeover (a
 * question saved but never posted is posted then), and where each question's
 * card was posted (reported by the output path, kept on the record: outbox.ts).
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import { findToolCall, latestPlanTree, toolNameOf } from "../../core/transcript.ts";
import type { SessionRecord } from "../store/types.ts";
import { displayAsk, displayQuiz } from "./display.ts";

/** A question event: what a platform posts as a card. */
export type QuestionEvent = Extract<TutorEvent, { type: "quiz" | "ask" }>;

/** The event showing a quiz or ask call (by its input); undefined when the input does not display. */
export function questionEvent(
	record: SessionRecord,
	toolName: string,
	toolCallId: string,
	input: unknown,
	replay = false,
): QuestionEvent | undefined {
	const sessionId = record.sessionId;
	const flag = replay ? { replay: true } : {};
	if (toolName === "quiz") {
		const quiz = displayQuiz(input);
		if (!quiz) return undefined;
		const nodeId = (input as { nodeId?: unknown }).nodeId;
		const known = typeof nodeId === "string" && latestPlanTree(record.messages)?.nodes.some((n) => n.id === nodeId);
		return { type: "quiz", sessionId, toolCallId, input: quiz, ...(known ? { nodeId } : {}), ...flag };
	}
	if (toolName === "ask") {
		const ask = displayAsk(input);
		return ask ? { type: "ask", sessionId, toolCallId, input: ask, ...flag } : undefined;
	}
	return undefined;
}

/**
 * Replay events for the given questions that are still pending (in transcript order of the ids given), each
 * with where its card was posted when the record says (the output path then posts nothing).
 */
export function replayEvents(record: SessionRecord, toolCallIds: readonly string[]): QuestionEvent[] {
	const events: QuestionEvent[] = [];
	for (const id of toolCallIds) {
		const found = findToolCall(record.messages, id);
		const part = found?.part;
		if (part?.state !== "input-available") continue;
		const event = questionEvent(record, toolNameOf(part.type) ?? "", id, part.input, true);
		const posted = postedOf(record, id);
		if (event) events.push(posted ? { ...event, posted } : event);
	}
	return events;
}

/** Cards remembered per session (the newest questions': older cards are no longer edited). */
const MAX_POSTED = 32;

/** Remember where question `toolCallId`'s card was posted (checked: the report comes from an adapter). */
export function notePosted(
	record: SessionRecord,
	toolCallId: string,
	card: { messageIds: readonly unknown[]; lead?: unknown },
): boolean {
	const ids = Array.isArray(card.messageIds)
		? card.messageIds.filter((id): id is string => typeof id === "string")
		: [];
	if (typeof toolCallId !== "string" || toolCallId === "" || ids.length === 0) return false;
	const posted = { ...(record.posted ?? {}) };
	delete posted[toolCallId]; // re-inserted last: the newest stays
	posted[toolCallId] = { messageIds: ids, ...(typeof card.lead === "string" ? { lead: card.lead } : {}) };
	const keys = Object.keys(posted);
	for (const old of keys.slice(0, Math.max(0, keys.length - MAX_POSTED))) delete posted[old];
	record.posted = posted;
	return true;
}

/** The card remembered for question `toolCallId` (a record read from disk: checked, not trusted). */
export function postedOf(
	record: SessionRecord,
	toolCallId: string,
): { messageIds: string[]; lead?: string } | undefined {
	const all: unknown = record.posted;
	if (typeof all !== "object" || all === null || !Object.hasOwn(all, toolCallId)) return undefined;
	const card = (all as Record<string, unknown>)[toolCallId] as { messageIds?: unknown; lead?: unknown } | null;
	if (!card || !Array.isArray(card.messageIds) || !card.messageIds.every((id) => typeof id === "string"))
		return undefined;
	if (card.messageIds.length === 0) return undefined;
	return {
		messageIds: [...(card.messageIds as string[])],
		...(typeof card.lead === "string" ? { lead: card.lead } : {}),
	};
}
