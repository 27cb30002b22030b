/**
 * `/lesson …` on Slack: the text parsed into a LessonCommand
 * (command-parse.ts; lesson/commands.ts runs it, once for every platform) and
 * its reply delivered privately. Every invocation is acked at once (empty
 * ack, so Slack's 3-second deadline holds whatever follows; a replay is
 * dropped first: deliveries.ts); the reply goes back through the command's
 * response_url as an ephemeral message (an ephemeral post when that fails).
 * A file (the progress picture, the admin's CSV) goes to the person's direct
 * message with the bot: an ephemeral message cannot carry one. The forget-me
 * card is an ephemeral message rendered like any card; its button routes like
 * any card's (controls.ts).
 */

import type { App, RespondFn, SlashCommand } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import type { Participant } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { toSlackMessages } from "../../render/index.ts";
import { type CommandFile, type CommandReply, runCommand } from "../lesson/commands.ts";
import type { Actor } from "../lesson/port.ts";
import { parseLessonCommand } from "./command-parse.ts";
import { type HandlerContext, notify, slackActor } from "./context.ts";
import { afterAnswer } from "./deliveries.ts";
import { clip, LESSON_COMMAND } from "./messages.ts";

/** Upload a file to the user's DM with the bot; false (logged) when Slack refused. */
async function sendPrivateFile(ctx: HandlerContext, userId: string, file: CommandFile, comment: string) {
	try {
		const dm = await ctx.client.conversations.open({ users: userId });
		const channel = dm.channel?.id;
		if (!channel) return false;
		await ctx.client.files.uploadV2({
			channel_id: channel,
			file: file.data,
			filename: file.name,
			title: file.title,
			initial_comment: clip(comment, 3000),
		});
		return true;
	} catch (error) {
		ctx.logger.warn({ err: error }, "slack: a private file could not be sent");
		return false;
	}
}

/** Deliver a command's reply to the person who ran it, privately. */
async function deliver(ctx: HandlerContext, command: SlashCommand, actor: Actor, reply: CommandReply): Promise<void> {
	if ("card" in reply) {
		const [message] = toSlackMessages(reply.card);
		try {
			await ctx.client.chat.postEphemeral({
				channel: command.channel_id,
				user: actor.by.id,
				text: message?.text ?? reply.card.question,
				blocks: (message?.blocks ?? []) as KnownBlock[],
			});
		} catch (error) {
			ctx.logger.warn({ err: error }, "slack: a command's card could not be shown");
			await actor.notify(t(actor.locale ?? DEFAULT_LOCALE, "profile.confirmNotShown"));
		}
		return;
	}
	if ("file" in reply) {
		const sent = await sendPrivateFile(ctx, actor.by.id, reply.file, reply.text);
		return actor.notify(sent ? reply.separately : reply.notSent);
	}
	// A private message carries no picture here: the status text holds the map's outline (SLACK_STYLE).
	return actor.notify(reply.text);
}

/** Register `/lesson` on the app. */
export function registerCommands(app: App, ctx: HandlerContext): void {
	app.command(LESSON_COMMAND, async ({ ack, command, respond }) => {
		// Acknowledged at once (a retry or replay never reaches here: deliveries.ts); the answer comes through respond().
		await ack();
		afterAnswer(ctx, "/lesson", () => lessonCommand(ctx, command, respond));
	});
}

/** One `/lesson` invocation (after its ack): its answer goes back through respond(), else an ephemeral message. */
async function lessonCommand(ctx: HandlerContext, command: SlashCommand, respond: RespondFn): Promise<void> {
	const target = { channelId: command.channel_id, userId: command.user_id };
	const reply = async (text: string) => {
		try {
			await (respond as RespondFn)({ response_type: "ephemeral", text: clip(text, 3000) });
		} catch (error) {
			// response_url expired or unreachable: an ephemeral message reaches the same person.
			ctx.logger.warn({ err: error }, "slack: response_url failed; falling back to chat.postEphemeral");
			await notify(ctx, target, text);
		}
	};
	const by: Participant = { id: command.user_id, name: command.user_name };
	let locale: Locale | undefined;
	try {
		// The member's Slack language (users.info, cached with the admin check); English when Slack does not say.
		locale = await ctx.admins.locale(command.user_id);
		const actor = slackActor(ctx, by, target, reply, locale);
		const { team_id: community, channel_id: channelId } = command;
		const answer = await runCommand(
			ctx.controller,
			ctx.port,
			actor,
			{
				community,
				place: { community, channelId },
				// Run outside its thread: the actor's latest lesson in this channel (an admin's or `anyone`'s: the channel's).
				lesson: (anyone) => ctx.controller.lessonIn(community, channelId, actor, anyone),
			},
			parseLessonCommand(command.text ?? "", locale ?? DEFAULT_LOCALE),
		);
		if (answer) await deliver(ctx, command, actor, answer);
	} catch (error) {
		ctx.logger.error({ err: error, text: command.text }, "slack: /lesson failed");
		await reply(t(locale ?? DEFAULT_LOCALE, "slack.internalError"));
	}
}
