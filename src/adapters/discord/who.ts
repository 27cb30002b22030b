/**
 * Who acts: a Discord user as the tutor's Participant, and whether a member
 * is an admin (Manage Server), read from the interaction's own permission
 * bits so no guild fetch is needed.
 */

import { type GuildMember, PermissionFlagsBits, type User } from "discord.js";
import type { Participant } from "../../core/contracts/events.ts";

/** The member shape an interaction or message may carry (cached GuildMember or raw API member). */
type AnyMember = GuildMember | { nick?: string | null } | null | undefined;

/** A user (and their member record when known) as a Participant with a display name. */
export function participantOf(user: User, member?: AnyMember): Participant {
	let name: string | undefined;
	if (member && "displayName" in member && typeof member.displayName === "string") name = member.displayName;
	else if (member && "nick" in member && typeof member.nick === "string" && member.nick !== "") name = member.nick;
	name ??= user.globalName ?? user.username;
	return name ? { id: user.id, name } : { id: user.id };
}

/** Whether the permission bits include Manage Server (Administrator implies it in Discord's computation). */
export function isAdmin(permissions: { has(bit: bigint): boolean } | null | undefined): boolean {
	return permissions?.has(PermissionFlagsBits.ManageGuild) ?? false;
}
