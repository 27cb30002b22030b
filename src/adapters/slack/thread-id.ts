/**
 * Slack thread ids: `slack:<team>:<channel>:<thread_ts>` (the lesson's session id;
 * the thread hangs off the lesson's parent message, whose ts is `thread_ts`).
 */

import { joinThreadId, splitThreadId } from "../../core/contracts/thread-id.ts";

/** Where a Slack lesson lives. */
export interface SlackThread {
	teamId: string;
	channelId: string;
	threadTs: string;
}

/** `slack:<team>:<channel>:<thread_ts>`; throws on ids that would not round-trip. */
export function encodeSlackThreadId(address: SlackThread): string {
	return joinThreadId("slack", [address.teamId, address.channelId, address.threadTs]);
}

/** The address of a Slack thread id; undefined for anything else. */
export function decodeSlackThreadId(threadId: string): SlackThread | undefined {
	const parts = splitThreadId("slack", threadId, 3);
	return parts ? { teamId: parts[0]!, channelId: parts[1]!, threadTs: parts[2]! } : undefined;
}
