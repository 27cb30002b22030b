/**
 * UIMessage[] → ModelMessage[] with convertToModelMessages, memoized per
 * settled message object. The engine never mutates a stored message (it
 * replaces it), so a settled message converts once and renders the same bytes
 * in every later request (prompt caching), and a turn costs O(new messages).
 */

import { convertToModelMessages, type ModelMessage } from "ai";
import type { LessonMessage } from "../store/types.ts";

const cache = new WeakMap<LessonMessage, ModelMessage[]>();

/** True when no tool part of the message may still change (nothing waits for a result). */
function settled(message: LessonMessage): boolean {
	for (const part of message.parts) {
		const state = (part as { state?: string }).state;
		if (part.type.startsWith("tool-") && (state === "input-available" || state === "input-streaming")) return false;
	}
	return true;
}

/** The model messages of a transcript (settled messages come from the cache). */
export async function toModelMessages(messages: readonly LessonMessage[]): Promise<ModelMessage[]> {
	const out: ModelMessage[] = [];
	for (const message of messages) {
		let converted = cache.get(message);
		if (!converted) {
			converted = await convertToModelMessages([message]);
			if (settled(message)) cache.set(message, converted);
		}
		out.push(...converted);
	}
	return out;
}
