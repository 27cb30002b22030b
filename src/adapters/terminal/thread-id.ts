/**
 * Terminal thread ids: `terminal:<id>` (the lesson's session id). The terminal is one
 * machine's playground: its ids name no community.
 */

import { joinThreadId, splitThreadId } from "../../core/contracts/thread-id.ts";

/** `terminal:<id>`; throws on an id that would not round-trip. */
export const encodeTerminalThreadId = (id: string): string => joinThreadId("terminal", [id]);

/** The id of a terminal thread id; undefined for anything else. */
export const decodeTerminalThreadId = (threadId: string): string | undefined =>
	splitThreadId("terminal", threadId, 1)?.[0];
