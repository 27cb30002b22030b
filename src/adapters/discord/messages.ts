/**
 * Messages typed in a lesson thread reach the tutor (the learner's, or any
 * member's in group mode; the tutor decides and refusals stay quiet: people
 * may chat in a thread). Bots, system messages and other threads are ignored.
 */

import type { Message } from "discord.js";
import type { AdapterContext } from "./context.ts";
import { participantOf } from "./who.ts";

/** Handle MESSAGE_CREATE. Never throws. */
export async function onMessage(ctx: AdapterContext, message: Message): Promise<void> {
	if (message.author.bot || message.system || message.webhookId) return;
	if (!message.inGuild() || !message.channel.isThread()) return;
	const lesson = await ctx.state.lesson(message.channelId);
	if (!lesson) return;
	if (!ctx.gate.lesson(lesson.sessionId))
		ctx.gate.rememberLesson(lesson.sessionId, { mode: lesson.mode, learnerId: lesson.learnerId });
	const text = message.content.trim();
	if (text === "") {
		// Without the MessageContent intent Discord sends empty content: say so once per process in the log.
		if (message.attachments.size === 0) warnNoContent(ctx);
		return;
	}
	const by = participantOf(message.author, message.member);
	const result = await ctx.tutor.handle(lesson.sessionId, { type: "message", text, by });
	if (!result.ok)
		ctx.logger.debug({ sessionId: lesson.sessionId, code: result.code }, "discord: message not delivered");
}

let warned = false;
function warnNoContent(ctx: AdapterContext): void {
	if (warned) return;
	warned = true;
	ctx.logger.warn(
		{},
		"discord: a lesson-thread message arrived without content; enable the Message Content intent (Developer Portal -> Bot -> Privileged Gateway Intents)",
	);
}
