/**
 * Discord thread ids: `discord:<guild>:<thread>` (the lesson's session id).
 */

import { joinThreadId, splitThreadId } from "../../core/contracts/thread-id.ts";

/**
 * The community of what runs in a member's DM with the bot (a review's controls, the DM's commands): a thread
 * id part like any other (guild ids are digits, so it names no guild), never a lesson's.
 */
export const DM_COMMUNITY = "dm";

/** Where a Discord lesson lives. */
export interface DiscordThread {
	guildId: string;
	threadId: string;
}

/** `discord:<guild>:<thread>`; throws on ids that would not round-trip. */
export function encodeDiscordThreadId(address: DiscordThread): string {
	return joinThreadId("discord", [address.guildId, address.threadId]);
}

/** The address of a Discord thread id; undefined for anything else. */
export function decodeDiscordThreadId(threadId: string): DiscordThread | undefined {
	const parts = splitThreadId("discord", threadId, 2);
	return parts ? { guildId: parts[0]!, threadId: parts[1]! } : undefined;
}
