/**
 * `/lesson start|end|status|help|config|usage`, decoded into controller calls.
 * Every invocation is acked at once (empty ack, so Slack's 3-second deadline
 * holds whatever follows; a replay is dropped first: deliveries.ts); the answer goes back through the command's
 * response_url as an ephemeral message (an ephemeral post when that fails).
 */

import type { App, RespondFn, SlashCommand } from "@slack/bolt";
import type { Participant } from "../../core/contracts/events.ts";
import { escapeMrkdwn } from "../../render/index.ts";
import { usageText } from "../lesson/budget-texts.ts";
import { DEFAULT_LOCALE, LANGUAGE_NAMES, LOCALES, type Locale, resolveLocale, t } from "../lesson/i18n.ts";
import type { Actor } from "../lesson/port.ts";
import { rulesText, statusText } from "../lesson/texts.ts";
import { parseLessonCommand } from "./command-parse.ts";
import { type HandlerContext, notify, slackActor, threadLink } from "./context.ts";
import { afterAnswer } from "./deliveries.ts";
import { clip, helpText, SLACK_STYLE } from "./messages.ts";
import { isProfileCommand, profileCommand } from "./profile-command.ts";
import { decodeSlackThreadId } from "./thread-id.ts";

/** The slash command this adapter answers. */
export const LESSON_COMMAND = "/lesson";

async function runCommand(ctx: HandlerContext, command: SlashCommand, actor: Actor): Promise<void> {
	const mine = actor.locale ?? DEFAULT_LOCALE;
	const parsed = parseLessonCommand(command.text ?? "", mine);
	const { team_id: teamId, channel_id: channelId } = command;
	if (isProfileCommand(parsed)) return profileCommand(ctx, command, actor, parsed);
	switch (parsed.kind) {
		case "help": {
			const unknown = parsed.unknown ? `${t(mine, "slack.unknown", { word: parsed.unknown })}\n` : "";
			return actor.notify(`${unknown}${helpText(LESSON_COMMAND, mine)}`);
		}
		case "start": {
			// `language:de` wins over the member's Slack language; an unsupported one is refused (nothing starts).
			const language = parsed.language !== undefined ? resolveLocale(parsed.language) : undefined;
			if (parsed.language !== undefined && !language) {
				const languages = LOCALES.map((l) => `\`${l}\` (${LANGUAGE_NAMES[l].native})`).join(", ");
				return actor.notify(t(mine, "slack.unknownLanguage", { language: escapeMrkdwn(parsed.language), languages }));
			}
			const learner = parsed.forUser && parsed.forUser !== actor.by.id ? { id: parsed.forUser } : undefined;
			const opened = await ctx.controller.start(
				actor,
				{ community: teamId, channelId },
				{
					topic: parsed.topic,
					...(parsed.mode ? { mode: parsed.mode } : {}),
					...(learner ? { learner } : {}),
					...(language ? { language } : {}),
				},
			);
			if (!opened.ok) return;
			const ts = decodeSlackThreadId(opened.threadId)?.threadTs ?? "";
			const link = await threadLink(ctx, channelId, ts);
			const topic = escapeMrkdwn(clip(opened.intro.topic, 200));
			return actor.notify(
				link
					? t(mine, "slack.started", { topic, link: `<${link}|${t(mine, "slack.openThread")}>` })
					: t(mine, "slack.startedAbove", { topic }),
			);
		}
		case "end": {
			const threadId = await ctx.controller.lessonIn(teamId, channelId, actor);
			if (!threadId) return actor.notify(t(mine, "slack.noLessonHere"));
			return void (await ctx.controller.end(actor, threadId));
		}
		case "status": {
			const threadId = await ctx.controller.lessonIn(teamId, channelId, actor, true);
			const status = await ctx.controller.status(actor, threadId);
			const address = status && decodeSlackThreadId(status.summary.sessionId);
			const link = address && (await threadLink(ctx, address.channelId, address.threadTs));
			if (status)
				await actor.notify(
					clip(statusText(status, SLACK_STYLE, link && ` · <${link}|${t(mine, "slack.openTheThread")}>`), 3000),
				);
			return;
		}
		case "config": {
			const change = parsed.change;
			const shown = await ctx.controller.config(
				actor,
				teamId,
				parsed.error || !change
					? undefined
					: change.setting === "channels"
						? { channels: change.channels }
						: change.setting === "limit"
							? { lessonsPerDay: change.lessonsPerDay }
							: change.setting === "caps"
								? change.change
								: { defaultMode: change.mode },
			);
			if (!shown) return;
			const head = parsed.error ? `${parsed.error}\n\n` : shown.saved ? `${t(mine, "rules.saved")}\n` : "";
			return actor.notify(`${head}${rulesText(shown.rules, SLACK_STYLE, "workspace", mine)}`);
		}
		case "usage": {
			const report = await ctx.controller.usage(actor, teamId);
			if (report) await actor.notify(clip(usageText(report, SLACK_STYLE, mine), 3000));
			return;
		}
	}
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
			await (respond as RespondFn)({ response_type: "ephemeral", text });
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
		await runCommand(ctx, command, slackActor(ctx, by, target, reply, locale));
	} catch (error) {
		ctx.logger.error({ err: error, text: command.text }, "slack: /lesson failed");
		await reply(t(locale ?? DEFAULT_LOCALE, "slack.internalError"));
	}
}
