/**
 * Messages typed in a thread reach the controller (the tutor decides whether
 * they belong to a lesson and who may speak; refusals stay quiet: people may
 * chat in a thread), with their attachments: pictures for the tutor. Bots,
 * system messages and non-threads are ignored.
 */

import type { Attachment, Message } from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";
import { DELIVERY_TTL_MS } from "../lesson/deliveries.ts";
import type { IncomingFile } from "../lesson/images.ts";
import type { Actor } from "../lesson/port.ts";
import type { ControlsContext } from "./controls.ts";
import { describeRestError } from "./rest-messages.ts";
import { encodeDiscordThreadId } from "./thread-id.ts";
import { participantOf } from "./who.ts";

/** Discord's own file hosts: attachment URLs (signed CDN links) come from these. */
export const DISCORD_FILE_ORIGINS = ["https://cdn.discordapp.com", "https://media.discordapp.net"] as const;

/** An attachment (of a message, or a command's attachment option) as the controller reads it (declared size and type). */
export function attachmentFile(a: Pick<Attachment, "url" | "name" | "contentType" | "size">): IncomingFile {
	return { url: a.url, name: a.name, ...(a.contentType ? { declaredType: a.contentType } : {}), declaredSize: a.size };
}

/** The attachments of a message as the controller reads them. */
export function attachmentsOf(message: Message): IncomingFile[] {
	return [...message.attachments.values()].map(attachmentFile);
}

/**
 * The author of a plain message as an Actor: a message has no ephemeral reply (only an
 * interaction has), so a notice is a short reply in the thread that pings no one.
 */
export function messageActor(message: Message, logger: Logger): Actor {
	const by = participantOf(message.author, message.member);
	return {
		by,
		isAdmin: async () => false,
		async notify(content) {
			try {
				await message.reply({ content: content.slice(0, 2000), allowedMentions: { parse: [], repliedUser: false } });
			} catch (error) {
				logger.warn({ err: describeRestError(error) }, "discord: a notice could not be sent");
			}
		},
	};
}

/** Handle MESSAGE_CREATE. Never throws. */
export async function onMessage(ctx: ControlsContext, message: Message): Promise<void> {
	if (message.author.bot || message.system || message.webhookId) return;
	if (!message.inGuild() || !message.channel.isThread()) return;
	// Without the MessageContent intent, content is empty (attachments still come for messages that mention the bot).
	const files = attachmentsOf(message);
	if (message.content.trim() === "" && files.length === 0) return warnNoContent(ctx);
	// Two processes on one token both receive every message: one of them delivers it (Discord never redelivers:
	// the claim is final at once, see interactions.ts).
	const key = `discord:message:${message.id}`;
	if ((await ctx.controller.deliveries.claimFinal(key, DELIVERY_TTL_MS.message)) !== "first") return;
	const threadId = encodeDiscordThreadId({ guildId: message.guildId, threadId: message.channelId });
	const by = participantOf(message.author, message.member);
	// A turn a typed message starts has no interaction to answer through: its output posts in the channel.
	ctx.replies?.clear(threadId);
	// The actor hears what did not reach the tutor (pictures, or a message the store could not save): a message
	// has no ephemeral reply, so a short reply. Nothing says "got it" before the tutor's verdict (that it is saved).
	await ctx.controller.typed(threadId, by, message.content, { files, actor: messageActor(message, ctx.logger) });
}

let warned = false;
function warnNoContent(ctx: ControlsContext): void {
	if (warned) return;
	warned = true;
	ctx.logger.warn(
		{},
		"discord: a thread message arrived without content; enable the Message Content intent (Developer Portal -> Bot -> Privileged Gateway Intents)",
	);
}
