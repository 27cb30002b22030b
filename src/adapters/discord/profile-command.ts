/**
 * `/lesson review|progress|report|forget-me|remind` on Discord: the
 * definitions and their handlers over the controller's profile flows. Every
 * reply is ephemeral (progress is private to the learner; the report goes to
 * the admin who asked, as a CSV attachment); forget-me shows a confirm button
 * (a "pick" on a reserved id, routed like any card button).
 */

import {
	type APIApplicationCommandSubcommandOption,
	ApplicationCommandOptionType,
	ChannelType,
	type ChatInputCommandInteraction,
	MessageFlags,
} from "discord.js";
import { DEFAULT_RETENTION_DAYS, MAX_RETENTION_DAYS } from "../../agent/index.ts";
import { toDiscordMessages } from "../../render/index.ts";
import { DEFAULT_LOCALE, t } from "../lesson/i18n.ts";
import type { LessonPlace } from "../lesson/port.ts";
import { actorOf } from "./actor.ts";
import type { ControlsContext } from "./controls.ts";
import { described } from "./localized.ts";
import { NOTICES } from "./notices.ts";
import { describeRestError } from "./rest-messages.ts";

/** The profile subcommands' names. */
export const PROFILE_SUBCOMMANDS = ["review", "progress", "report", "forget-me", "remind", "retention"] as const;
/** One of them. */
export type ProfileSubcommand = (typeof PROFILE_SUBCOMMANDS)[number];

/** Whether a subcommand is a profile one. */
export function isProfileSubcommand(sub: string | null): sub is ProfileSubcommand {
	return (PROFILE_SUBCOMMANDS as readonly string[]).includes(sub ?? "");
}

/** Their definitions (appended to /lesson's). */
export const profileSubcommands: APIApplicationCommandSubcommandOption[] = [
	{
		type: ApplicationCommandOptionType.Subcommand,
		name: "review",
		...described("cmd.review"),
	},
	{
		type: ApplicationCommandOptionType.Subcommand,
		name: "progress",
		...described("cmd.progress"),
	},
	{
		type: ApplicationCommandOptionType.Subcommand,
		name: "report",
		...described("cmd.report"),
	},
	{
		type: ApplicationCommandOptionType.Subcommand,
		name: "forget-me",
		...described("cmd.forgetMe"),
	},
	{
		type: ApplicationCommandOptionType.Subcommand,
		name: "remind",
		...described("cmd.remind"),
		options: [
			{
				type: ApplicationCommandOptionType.Boolean,
				name: "on",
				...described("cmd.remind.on"),
				required: true,
			},
		],
	},
	{
		type: ApplicationCommandOptionType.Subcommand,
		name: "retention",
		...described("cmd.retention", { days: DEFAULT_RETENTION_DAYS }),
		options: [
			{
				type: ApplicationCommandOptionType.Integer,
				name: "days",
				...described("cmd.retention.days"),
				min_value: 1,
				max_value: MAX_RETENTION_DAYS,
			},
		],
	},
];

/** The channel a review thread opens under (a thread's parent), or undefined where none can. */
function placeOf(interaction: ChatInputCommandInteraction, guildId: string): LessonPlace | undefined {
	const channel = interaction.channel;
	if (!channel) return { community: guildId, channelId: interaction.channelId };
	if (channel.isThread() && channel.parentId) return { community: guildId, channelId: channel.parentId };
	if (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement)
		return { community: guildId, channelId: channel.id };
	return undefined;
}

/** Handle a profile subcommand (not yet acknowledged). */
export async function profileCommand(
	ctx: ControlsContext,
	interaction: ChatInputCommandInteraction,
	sub: ProfileSubcommand,
): Promise<void> {
	await interaction.deferReply({ flags: MessageFlags.Ephemeral });
	const actor = actorOf(interaction, "editReply", ctx.logger);
	const guildId = interaction.guildId;
	if (!guildId) return actor.notify(NOTICES.notInGuild);
	const flows = ctx.controller.profile;
	const locale = actor.locale ?? DEFAULT_LOCALE;
	if (!flows) return actor.notify(t(locale, "profile.disabled"));
	const send = async (body: Parameters<ChatInputCommandInteraction["editReply"]>[0]) => {
		try {
			await interaction.editReply(body);
		} catch (error) {
			ctx.logger.warn({ err: describeRestError(error) }, "discord: a profile reply could not be sent");
		}
	};
	switch (sub) {
		case "review": {
			const place = placeOf(interaction, guildId);
			if (!place) return actor.notify(NOTICES.badChannel);
			const threadId = await flows.review.start(actor, place);
			if (threadId) await actor.notify(t(locale, "profile.reviewReadyAt", { thread: `<#${threadId.split(":")[2]}>` }));
			return;
		}
		case "progress": {
			const shown = await flows.progress(actor, guildId);
			if (!shown) return;
			const png = shown.picture?.png;
			return send({
				content: shown.text.slice(0, 2000),
				allowedMentions: { parse: [] },
				files: png ? [{ attachment: png, name: "progress.png", description: shown.picture?.caption }] : [],
			});
		}
		case "report": {
			const report = await flows.report(actor, guildId);
			if (!report) return;
			return send({
				content: `${report.rows.length} ${report.rows.length === 1 ? "lesson" : "lessons"} in the report.`,
				allowedMentions: { parse: [] },
				files: [{ attachment: Buffer.from(report.csv, "utf8"), name: `lessons-${guildId}.csv` }],
			});
		}
		case "forget-me": {
			const [message] = toDiscordMessages(flows.forgetCard(locale));
			if (!message) return;
			return send({
				content: message.content,
				components: message.components ?? [],
				allowedMentions: { parse: [] },
			});
		}
		case "retention": {
			const said = await flows.retention(actor, guildId, interaction.options.getInteger("days") ?? undefined);
			if (said) await actor.notify(said);
			return;
		}
		case "remind": {
			const place = placeOf(interaction, guildId);
			if (!place) return actor.notify(NOTICES.badChannel);
			return actor.notify(await flows.remind(actor, place, interaction.options.getBoolean("on") === true));
		}
	}
}
