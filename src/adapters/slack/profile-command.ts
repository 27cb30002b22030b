/**
 * `/lesson review|progress|report|forget-me|remind on|off` on Slack, over the
 * controller's profile flows. Private files (the progress picture, the admin's
 * CSV) go to the person's direct message with the bot (conversations.open,
 * then files.uploadV2): an ephemeral message cannot carry a file. Forget-me
 * asks with an ephemeral confirm button (FORGET_ACTION_ID) handled here.
 */

import type { App, BlockAction, SlashCommand } from "@slack/bolt";
import type { Participant } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, t } from "../lesson/i18n.ts";
import type { Actor } from "../lesson/port.ts";
import type { LessonCommand } from "./command-parse.ts";
import { type HandlerContext, slackActor, threadLink } from "./context.ts";
import { afterAnswer } from "./deliveries.ts";
import { clip } from "./messages.ts";
import { decodeSlackThreadId } from "./thread-id.ts";

/** The forget-me confirm button's action id. */
export const FORGET_ACTION_ID = "lh-forget-me-confirm";

type ProfileCommand = Extract<
	LessonCommand,
	{ kind: "review" | "progress" | "report" | "forget-me" | "remind" | "retention" }
>;

/** Whether a parsed command is a profile one. */
export function isProfileCommand(c: LessonCommand): c is ProfileCommand {
	return ["review", "progress", "report", "forget-me", "remind", "retention"].includes(c.kind);
}

/** Upload a file to the user's DM with the bot; false (logged) when Slack refused. */
async function sendPrivateFile(
	ctx: HandlerContext,
	userId: string,
	file: { data: Buffer; filename: string; title: string },
	comment: string,
): Promise<boolean> {
	try {
		const dm = await ctx.client.conversations.open({ users: userId });
		const channel = dm.channel?.id;
		if (!channel) return false;
		await ctx.client.files.uploadV2({
			channel_id: channel,
			file: file.data,
			filename: file.filename,
			title: file.title,
			initial_comment: clip(comment, 3000),
		});
		return true;
	} catch (error) {
		ctx.logger.warn({ err: error }, "slack: a private file could not be sent");
		return false;
	}
}

/** Handle a profile command (already acked). */
export async function profileCommand(
	ctx: HandlerContext,
	command: SlashCommand,
	actor: Actor,
	parsed: ProfileCommand,
): Promise<void> {
	const flows = ctx.controller.profile;
	const locale = actor.locale ?? DEFAULT_LOCALE;
	if (!flows) return actor.notify(t(locale, "profile.disabled"));
	const { team_id: teamId, channel_id: channelId } = command;
	switch (parsed.kind) {
		case "review": {
			const threadId = await flows.review.start(actor, { community: teamId, channelId });
			if (!threadId) return;
			const ts = decodeSlackThreadId(threadId)?.threadTs ?? "";
			const link = await threadLink(ctx, channelId, ts);
			return actor.notify(
				link
					? t(locale, "profile.reviewReadyLink", { link: `<${link}|${t(locale, "profile.openThread")}>` })
					: t(locale, "profile.reviewReady"),
			);
		}
		case "progress": {
			const shown = await flows.progress(actor, teamId);
			if (!shown) return;
			const png = shown.picture?.png;
			if (
				png &&
				(await sendPrivateFile(
					ctx,
					actor.by.id,
					{ data: png, filename: "progress.png", title: shown.picture?.caption ?? t(locale, "profile.progressTitle") },
					shown.text,
				))
			)
				return actor.notify(t(locale, "profile.progressInDm"));
			return actor.notify(clip(shown.text, 3000));
		}
		case "report": {
			const report = await flows.report(actor, teamId);
			if (!report) return;
			const sent = await sendPrivateFile(
				ctx,
				actor.by.id,
				{
					data: Buffer.from(report.csv, "utf8"),
					filename: `lessons-${teamId}.csv`,
					title: t(locale, "profile.reportTitle"),
				},
				`${report.rows.length} ${report.rows.length === 1 ? "lesson" : "lessons"} in the report.`,
			);
			return actor.notify(t(locale, sent ? "profile.reportInDm" : "profile.reportNotSent"));
		}
		case "forget-me": {
			const card = flows.forgetCard(locale);
			try {
				await ctx.client.chat.postEphemeral({
					channel: channelId,
					user: actor.by.id,
					text: card.question,
					blocks: [
						{ type: "section", text: { type: "mrkdwn", text: `*${card.heading}*\n${card.question}` } },
						{
							type: "actions",
							elements: [
								{
									type: "button",
									style: "danger",
									action_id: FORGET_ACTION_ID,
									text: { type: "plain_text", text: card.choices[0]?.text ?? t(locale, "profile.forgetButton") },
									value: teamId,
								},
							],
						},
					],
				});
			} catch (error) {
				ctx.logger.warn({ err: error }, "slack: the forget-me confirmation could not be shown");
				await actor.notify(t(locale, "profile.confirmNotShown"));
			}
			return;
		}
		case "retention": {
			if (parsed.error) return actor.notify(parsed.error);
			const said = await flows.retention(actor, teamId, parsed.days);
			if (said) await actor.notify(said);
			return;
		}
		case "remind": {
			if (parsed.on === undefined) return actor.notify(t(locale, "profile.remindUsage"));
			return actor.notify(await flows.remind(actor, { community: teamId, channelId }, parsed.on));
		}
	}
}

/** Register the forget-me confirm button. */
export function registerProfileActions(app: App, ctx: HandlerContext): void {
	app.action<BlockAction>(FORGET_ACTION_ID, async ({ ack, body }) => {
		await ack();
		afterAnswer(ctx, "forget-me", () => forgetClicked(ctx, body));
	});
}

/** The forget-me confirm click (after its ack): everything about the clicker goes, and they are told. */
async function forgetClicked(ctx: HandlerContext, body: BlockAction): Promise<void> {
	const teamId = body.team?.id ?? body.user.team_id;
	const channelId = (body.container.channel_id as string | undefined) ?? body.channel?.id;
	const flows = ctx.controller.profile;
	if (!teamId || !channelId || !flows) return;
	const name = body.user.username ?? body.user.name;
	const by: Participant = name ? { id: body.user.id, name } : { id: body.user.id };
	const actor = slackActor(ctx, by, { channelId, userId: by.id });
	try {
		await actor.notify(await flows.forget(actor, teamId));
	} catch (error) {
		ctx.logger.error({ err: error }, "slack: forget-me failed");
		await actor.notify(t(actor.locale ?? DEFAULT_LOCALE, "profile.forgetFailed"));
	}
}
