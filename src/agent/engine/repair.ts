/**
 * Repairing a session loaded from the store after a crash or restart: calls
 * that can never complete (a server tool cut off mid-turn, a half-streamed
 * call) get an "interrupted" error result, so the replay invariant holds
 * (every call has a result). Quizzes and asks stay pending and answerable.
 */

import type { SessionRecord } from "../store/types.ts";
import { erroredPart, replaceToolPart } from "./record-edit.ts";
import { LEARNER_TOOLS, toolNameOf, toolParts } from "./transcript.ts";

/** The error result of an interrupted call (the model sees it). */
export const INTERRUPTED_TEXT =
	"interrupted: the tutor restarted before this call completed. Call the tool again if it is still needed.";

/** What repairRecord found. */
export interface Repair {
	/** The record changed (the caller saves it). */
	changed: boolean;
	/** A turn was running when the process stopped (it never finished). */
	cutOff: boolean;
}

/** Repair the record in place (dangling calls get an error result; the turn is closed). */
export function repairRecord(record: SessionRecord): Repair {
	const dangling: string[] = [];
	for (const part of toolParts(record.messages)) {
		const name = toolNameOf(part.type) ?? "";
		const waitsForLearner = part.state === "input-available" && LEARNER_TOOLS.has(name);
		if ((part.state === "input-available" || part.state === "input-streaming") && !waitsForLearner)
			dangling.push(part.toolCallId);
	}
	for (const id of dangling) replaceToolPart(record, id, (part) => erroredPart(part, INTERRUPTED_TEXT));
	const cutOff = record.turnOpen === true;
	record.turnOpen = false;
	return { changed: dangling.length > 0 || cutOff, cutOff };
}
