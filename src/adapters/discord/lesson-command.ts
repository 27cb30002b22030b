/**
 * `/lesson start|end|status|help|config|usage`, decoded into controller calls.
 * Every subcommand is deferred (ephemeral) before any store or model work;
 * help is answered at once. What each says back is Discord-styled here.
 */

import { ChannelType, type ChatInputCommandInteraction, MessageFlags } from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";
import { usageText } from "../lesson/budget-texts.ts";
import type { LessonController } from "../lesson/controller.ts";
import { DEFAULT_LOCALE, resolveLocale, t } from "../lesson/i18n.ts";
import { isLessonMode, type LessonRulesChange, parsePriceSetting } from "../lesson/lesson-rules.ts";
import type { LessonPlace } from "../lesson/port.ts";
import { rulesText, statusText } from "../lesson/texts.ts";
import { actorOf } from "./actor.ts";
import { OPTION } from "./commands.ts";
import { DISCORD_STYLE, helpText, interactionLocale, NOTICES } from "./notices.ts";
import { threadName } from "./port.ts";
import { isProfileSubcommand, profileCommand } from "./profile-command.ts";
import { encodeDiscordThreadId } from "./thread-id.ts";
import { participantOf } from "./who.ts";

/** What the command handler needs. */
export interface CommandContext {
	controller: LessonController;
	logger: Logger;
}

/** Where `/lesson start` puts the lesson: a new thread under a text or announcement channel, or this public thread. */
function placeOf(interaction: ChatInputCommandInteraction, guildId: string): LessonPlace | undefined {
	const channel = interaction.channel;
	if (!channel) return { community: guildId, channelId: interaction.channelId }; // not cached: a channel, most likely
	const publicThread = channel.type === ChannelType.PublicThread || channel.type === ChannelType.AnnouncementThread;
	if (channel.isThread() && channel.parentId && publicThread)
		return {
			community: guildId,
			channelId: channel.parentId,
			threadId: encodeDiscordThreadId({ guildId, threadId: channel.id }),
		};
	if (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement)
		return { community: guildId, channelId: channel.id };
	return undefined;
}

async function start(ctx: CommandContext, interaction: ChatInputCommandInteraction, guildId: string): Promise<void> {
	const actor = actorOf(interaction, "editReply", ctx.logger);
	const mine = actor.locale ?? DEFAULT_LOCALE;
	const forUser = interaction.options.getUser(OPTION.for);
	if (forUser?.bot) return actor.notify(t(mine, NOTICES.notForBots));
	const place = placeOf(interaction, guildId);
	if (!place) return actor.notify(t(mine, NOTICES.badChannel));
	// The explicit option wins over the starter's Discord language (a choice, so always supported).
	const language = resolveLocale(interaction.options.getString(OPTION.language));
	const mode = interaction.options.getString(OPTION.mode);
	const topic = interaction.options.getString(OPTION.topic) ?? "";
	const learner = forUser ? participantOf(forUser, interaction.options.getMember(OPTION.for)) : undefined;
	const opened = await ctx.controller.start(actor, place, {
		topic,
		...(isLessonMode(mode) ? { mode } : {}),
		...(learner ? { learner } : {}),
		...(language ? { language } : {}),
	});
	if (!opened.ok) return;
	const threadId = opened.threadId.split(":")[2];
	const forWhom =
		learner && learner.id !== actor.by.id ? t(mine, "discord.readyFor", { learner: `<@${learner.id}>` }) : "";
	const modeWord = t(mine, opened.intro.mode === "group" ? "status.mode.group" : "status.mode.solo");
	await actor.notify(
		t(mine, "discord.ready", { mode: modeWord, topic: threadName(topic), forWhom, thread: `<#${threadId}>` }),
	);
}

function configChange(interaction: ChatInputCommandInteraction): LessonRulesChange | { error: string } {
	const o = interaction.options;
	const locale = interactionLocale(interaction) ?? DEFAULT_LOCALE;
	const change: LessonRulesChange = {};
	if (o.getBoolean(OPTION.reset)) change.reset = true;
	const allow = o.getChannel(OPTION.allowChannel);
	if (allow) change.allowChannel = allow.id;
	const disallow = o.getChannel(OPTION.disallowChannel);
	if (disallow) change.disallowChannel = disallow.id;
	const perDay = o.getInteger(OPTION.lessonsPerDay);
	if (perDay !== null) change.lessonsPerDay = Math.max(0, Math.min(100, perDay));
	const mode = o.getString(OPTION.defaultMode);
	if (isLessonMode(mode)) change.defaultMode = mode;
	const serverTokens = o.getInteger(OPTION.serverTokens);
	if (serverTokens !== null) change.serverTokensPerDay = Math.max(0, serverTokens);
	const memberTokens = o.getInteger(OPTION.memberTokens);
	if (memberTokens !== null) change.memberTokensPerDay = Math.max(0, memberTokens);
	const voteSeconds = o.getInteger(OPTION.voteSeconds);
	if (voteSeconds !== null) change.voteSeconds = voteSeconds;
	const voteNames = o.getBoolean(OPTION.voteNames);
	if (voteNames !== null) change.voteNames = voteNames;
	const price = o.getString(OPTION.price);
	if (price !== null) {
		const parsed = parsePriceSetting(price, locale);
		if ("error" in parsed) return parsed;
		change.price = parsed;
	}
	return change;
}

/** Handle a `/lesson` command (not yet acknowledged). */
export async function lessonCommand(ctx: CommandContext, interaction: ChatInputCommandInteraction): Promise<void> {
	const sub = interaction.options.getSubcommand(false);
	if (isProfileSubcommand(sub)) return profileCommand(ctx, interaction, sub);
	if (sub !== "start" && sub !== "end" && sub !== "status" && sub !== "config" && sub !== "usage") {
		if (sub !== "help") ctx.logger.warn({ subcommand: sub }, "discord: unknown /lesson subcommand");
		const content = helpText(interactionLocale(interaction) ?? DEFAULT_LOCALE);
		return void (await interaction.reply({ content, flags: MessageFlags.Ephemeral }));
	}
	await interaction.deferReply({ flags: MessageFlags.Ephemeral });
	const actor = actorOf(interaction, "editReply", ctx.logger);
	const mine = actor.locale ?? DEFAULT_LOCALE;
	const guildId = interaction.guildId;
	if (!guildId) return actor.notify(t(mine, NOTICES.notInGuild));
	const here = encodeDiscordThreadId({ guildId, threadId: interaction.channelId });
	switch (sub) {
		case "start":
			return start(ctx, interaction, guildId);
		case "end":
			return void (await ctx.controller.end(actor, here));
		case "status": {
			const status = await ctx.controller.status(actor, here);
			if (status) await actor.notify(statusText(status, DISCORD_STYLE), status.picture);
			return;
		}
		case "config": {
			const change = configChange(interaction);
			const shown = await ctx.controller.config(actor, guildId, "error" in change ? undefined : change);
			const head = "error" in change ? `${change.error}\n\n` : shown?.saved ? `${t(mine, "rules.saved")}\n` : "";
			if (shown) await actor.notify(`${head}${rulesText(shown.rules, DISCORD_STYLE, "server", mine)}`);
			return;
		}
		case "usage": {
			const report = await ctx.controller.usage(actor, guildId);
			if (report) await actor.notify(usageText(report, DISCORD_STYLE, mine));
		}
	}
}
