/**
 * `/lesson config` (admins, Manage Server): the channels lessons may use,
 * lessons per member per day, and the default mode. Without options it shows
 * the current settings.
 */

import { type ChatInputCommandInteraction, MessageFlags } from "discord.js";
import { applyLessonRulesChange, isLessonMode, type LessonRulesChange } from "../shared/lesson-rules.ts";
import { OPTION } from "./commands.ts";
import type { AdapterContext } from "./context.ts";
import { NOTICES } from "./notices.ts";
import type { GuildConfig } from "./types.ts";
import { isAdmin } from "./who.ts";

/** The settings as a few readable lines. */
export function describeGuildConfig(config: GuildConfig): string {
	const channels =
		config.channels.length > 0 ? config.channels.map((id) => `<#${id}>`).join(", ") : "every text channel";
	const limit =
		config.lessonsPerDay > 0 ? `${config.lessonsPerDay} per member per day (admins exempt)` : "no daily limit";
	return [
		`**Lessons here**`,
		`• Channels: ${channels}`,
		`• Limit: ${limit}`,
		`• Default mode: ${config.defaultMode}`,
	].join("\n");
}

/** Handle `/lesson config` (not yet acknowledged). */
export async function configCommand(ctx: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
	await interaction.deferReply({ flags: MessageFlags.Ephemeral });
	const guildId = interaction.guildId;
	if (!guildId) return void (await interaction.editReply(NOTICES.notInGuild));
	if (!isAdmin(interaction.memberPermissions)) return void (await interaction.editReply(NOTICES.adminsOnly));
	const o = interaction.options;
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
	const changed = o.getBoolean(OPTION.reset) !== null || Object.keys(change).length > 0;
	const current = await ctx.state.guildConfig(guildId);
	const config: GuildConfig = changed ? applyLessonRulesChange(current, change, ctx.state.guildDefaults) : current;
	if (changed) {
		await ctx.state.setGuildConfig(guildId, config);
		ctx.logger.info({ guildId, config }, "discord: guild config changed");
	}
	await interaction.editReply({
		content: `${changed ? "Saved.\n" : ""}${describeGuildConfig(config)}`,
		allowedMentions: { parse: [] },
	});
}
