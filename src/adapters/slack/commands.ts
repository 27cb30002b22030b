/**
 * `/lesson start|end|status|help|config`. Every invocation is acked at once (empty ack,
 * so Slack's 3-second deadline holds whatever follows); the answer goes back through the
 * command's response_url as an ephemeral message.
 */

import type { App, RespondFn, SlashCommand } from "@slack/bolt";
import type { Participant } from "../../core/contracts/events.ts";
import { decodeSessionId } from "../../core/session-id.ts";
import { escapeMrkdwn, planOutline } from "../../render/index.ts";
import { applyLessonRulesChange } from "../shared/lesson-rules.ts";
import { afterPendingIo } from "../shared/within.ts";
import { parseLessonCommand } from "./command-parse.ts";
import { type HandlerContext, notify, slackRefusal, threadLink } from "./context.ts";
import { clip, configText, helpText, statusText } from "./messages.ts";
import { startSlackLesson } from "./start-lesson.ts";

/** The slash command this adapter answers. */
export const LESSON_COMMAND = "/lesson";

type Reply = (text: string) => Promise<void>;

function replier(ctx: HandlerContext, command: SlashCommand, respond: RespondFn): Reply {
	return async (text) => {
		try {
			await respond({ response_type: "ephemeral", text });
		} catch (error) {
			// response_url expired or unreachable: an ephemeral message reaches the same person.
			ctx.logger.warn({ err: error }, "slack: response_url failed; falling back to chat.postEphemeral");
			await notify(ctx, { channelId: command.channel_id, userId: command.user_id }, text);
		}
	};
}

async function runCommand(ctx: HandlerContext, command: SlashCommand, reply: Reply): Promise<void> {
	const parsed = parseLessonCommand(command.text ?? "");
	const teamId = command.team_id;
	const channelId = command.channel_id;
	const by: Participant = { id: command.user_id, name: command.user_name };
	switch (parsed.kind) {
		case "help":
			return reply(`${parsed.unknown ? `I don't know \`${parsed.unknown}\`.\n` : ""}${helpText(LESSON_COMMAND)}`);
		case "start": {
			const byAdmin = await ctx.admins.isAdmin(by.id);
			if (parsed.forUser && parsed.forUser !== by.id && !byAdmin)
				return reply("Only workspace admins can start a lesson for someone else.");
			const outcome = await startSlackLesson(ctx, {
				teamId,
				channelId,
				by,
				...(parsed.forUser ? { learner: { id: parsed.forUser } } : {}),
				...(parsed.mode ? { mode: parsed.mode } : {}),
				topic: parsed.topic,
				byAdmin,
			});
			if (!outcome.ok) return reply(outcome.message);
			const link = await threadLink(ctx, channelId, outcome.threadTs);
			const topic = escapeMrkdwn(clip(parsed.topic.trim(), 200));
			return reply(
				link
					? `Your lesson on *${topic}* has started: <${link}|open its thread>.`
					: `Your lesson on *${topic}* has started in the thread of the :books: message above.`,
			);
		}
		case "end": {
			const admin = await ctx.admins.isAdmin(by.id);
			let sessionId = await ctx.state.activeFor(teamId, channelId, by.id);
			const own = sessionId ? await ctx.state.lesson(sessionId) : undefined;
			if ((!own || own.ended) && admin) sessionId = await ctx.state.latestIn(teamId, channelId);
			if (!sessionId)
				return reply("There is no lesson of yours in this channel. (The lesson's *End lesson* button works too.)");
			const result = await ctx.tutor.handle(sessionId, { type: "end", by, privileged: admin });
			const learnerId = (await ctx.state.lesson(sessionId))?.learnerId;
			return reply(result.ok ? "Ending the lesson." : slackRefusal(result, "end", learnerId));
		}
		case "status": {
			const sessionId =
				(await ctx.state.activeFor(teamId, channelId, by.id)) ?? (await ctx.state.latestIn(teamId, channelId));
			const summary = sessionId ? await ctx.tutor.getSession(sessionId) : undefined;
			if (!summary) return reply("No lesson in this channel yet. Start one with `/lesson start <topic>`.");
			const outline = summary.plan ? planOutline(summary.plan.tree, summary.plan.statuses) : undefined;
			const address = decodeSessionId(summary.sessionId);
			const link =
				address?.platform === "slack" ? await threadLink(ctx, address.channelId, address.threadTs) : undefined;
			return reply(statusText(summary, outline, link));
		}
		case "config": {
			if (!(await ctx.admins.isAdmin(by.id))) return reply("Only workspace admins can change lesson settings.");
			const current = await ctx.state.workspace(teamId);
			if (parsed.error) return reply(`${parsed.error}\n\n${configText(current)}`);
			if (!parsed.change) return reply(configText(current));
			const change = parsed.change;
			const next = applyLessonRulesChange(
				current,
				change.setting === "channels"
					? { channels: change.channels }
					: change.setting === "limit"
						? { lessonsPerDay: change.lessonsPerDay }
						: { defaultMode: change.mode },
				ctx.state.workspaceDefaults,
			);
			await ctx.state.saveWorkspace(teamId, next);
			return reply(`Saved.\n${configText(next)}`);
		}
	}
}

/** Register `/lesson` on the app. */
export function registerCommands(app: App, ctx: HandlerContext): void {
	app.command(LESSON_COMMAND, async ({ ack, command, respond }) => {
		await ack();
		await afterPendingIo();
		const reply = replier(ctx, command, respond);
		try {
			await runCommand(ctx, command, reply);
		} catch (error) {
			ctx.logger.error({ err: error, text: command.text }, "slack: /lesson failed");
			await reply("Something went wrong on my side; please try again.");
		}
	});
}
