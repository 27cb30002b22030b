/**
 * Messages typed in a thread reach the controller (the tutor decides whether
 * they belong to a lesson and who may speak; refusals stay quiet: people may
 * chat in a thread). Bots, system messages and non-threads are ignored.
 */

import type { Message } from "discord.js";
import type { ControlsContext } from "./controls.ts";
import { encodeDiscordThreadId } from "./thread-id.ts";
import { participantOf } from "./who.ts";

/** Handle MESSAGE_CREATE. Never throws. */
export async function onMessage(ctx: ControlsContext, message: Message): Promise<void> {
	if (message.author.bot || message.system || message.webhookId) return;
	if (!message.inGuild() || !message.channel.isThread()) return;
	if (message.content.trim() === "") {
		// Without the MessageContent intent Discord sends empty content: say so once per process in the log.
		if (message.attachments.size === 0) warnNoContent(ctx);
		return;
	}
	const threadId = encodeDiscordThreadId({ guildId: message.guildId, threadId: message.channelId });
	await ctx.controller.typed(threadId, participantOf(message.author, message.member), message.content);
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
