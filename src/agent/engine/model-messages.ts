/**
 * UIMessage[] → ModelMessage[] with convertToModelMessages, memoized per
 * message object. The engine never mutates a stored message (record-edit.ts
 * replaces it, even to settle one tool part), so a message converts once and
 * renders the same bytes in every later request (prompt caching), and a turn
 * costs O(new messages).
 */

import { convertToModelMessages, type ModelMessage } from "ai";
import type { LessonMessage } from "../store/types.ts";

const cache = new WeakMap<LessonMessage, ModelMessage[]>();

/** The model messages of a transcript (messages seen before come from the cache). */
export async function toModelMessages(messages: readonly LessonMessage[]): Promise<ModelMessage[]> {
	const out: ModelMessage[] = [];
	for (const message of messages) {
		let converted = cache.get(message);
		if (!converted) {
			converted = await convertToModelMessages([message]);
			cache.set(message, converted);
		}
		out.push(...converted);
	}
	return out;
}
