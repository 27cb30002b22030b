/**
 * `/lesson config` (admins, Manage Server): the channels lessons may use,
 * lessons per member per day, and the default mode. Without options it shows
 * the current settings.
 */

import { type ChatInputCommandInteraction, MessageFlags } from "discord.js";
import type { LessonMode } from "../../core/contracts/events.ts";
import { OPTION } from "./commands.ts";
import type { AdapterContext } from "./context.ts";
import { NOTICES } from "./notices.ts";
import { DEFAULT_GUILD_CONFIG } from "./state.ts";
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
	let config: GuildConfig = o.getBoolean(OPTION.reset)
		? { ...DEFAULT_GUILD_CONFIG }
		: await ctx.state.guildConfig(guildId);
	const allow = o.getChannel(OPTION.allowChannel);
	const disallow = o.getChannel(OPTION.disallowChannel);
	const perDay = o.getInteger(OPTION.lessonsPerDay);
	const mode = o.getString(OPTION.defaultMode) as LessonMode | null;
	const changed = o.getBoolean(OPTION.reset) !== null || allow || disallow || perDay !== null || mode !== null;
	if (allow && !config.channels.includes(allow.id)) config = { ...config, channels: [...config.channels, allow.id] };
	if (disallow) config = { ...config, channels: config.channels.filter((id) => id !== disallow.id) };
	if (perDay !== null) config = { ...config, lessonsPerDay: Math.max(0, Math.min(100, perDay)) };
	if (mode === "solo" || mode === "group") config = { ...config, defaultMode: mode };
	if (changed) {
		await ctx.state.setGuildConfig(guildId, config);
		ctx.logger.info({ guildId, config }, "discord: guild config changed");
	}
	await interaction.editReply({
		content: `${changed ? "Saved.\n" : ""}${describeGuildConfig(config)}`,
		allowedMentions: { parse: [] },
	});
}
