/**
 * `/lesson end`, `/lesson status` and `/lesson help`, and the dispatch of
 * `/lesson` subcommands. Every subcommand is deferred (ephemeral) before any
 * store or model work.
 */

import { type ChatInputCommandInteraction, MessageFlags } from "discord.js";
import { encodeSessionId } from "../../core/session-id.ts";
import { pendingLabel, phaseLabel } from "../shared/notices.ts";
import { configCommand } from "./config-command.ts";
import type { AdapterContext } from "./context.ts";
import { startLessonCommand } from "./lesson-start.ts";
import { HELP_TEXT, NOTICES, refusalNotice } from "./notices.ts";
import { isAdmin, participantOf } from "./who.ts";

function sessionIdOf(interaction: ChatInputCommandInteraction): string | undefined {
	if (!interaction.guildId) return undefined;
	return encodeSessionId({ platform: "discord", guildId: interaction.guildId, threadId: interaction.channelId });
}

async function endCommand(ctx: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
	await interaction.deferReply({ flags: MessageFlags.Ephemeral });
	const sessionId = sessionIdOf(interaction);
	if (!sessionId) return void (await interaction.editReply(NOTICES.notInGuild));
	const by = participantOf(interaction.user, interaction.member);
	const result = await ctx.tutor.handle(sessionId, {
		type: "end",
		by,
		privileged: isAdmin(interaction.memberPermissions),
	});
	if (!result.ok && result.code === "unknown-session")
		return void (await interaction.editReply(NOTICES.notALessonThread));
	const learnerId = (await ctx.state.lesson(interaction.channelId))?.learnerId;
	await interaction.editReply({
		content: result.ok ? "Ending the lesson." : refusalNotice(result, "end", learnerId),
		allowedMentions: { parse: [] },
	});
}

async function statusCommand(ctx: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
	await interaction.deferReply({ flags: MessageFlags.Ephemeral });
	const sessionId = sessionIdOf(interaction);
	const session = sessionId ? await ctx.tutor.getSession(sessionId) : undefined;
	if (!session) return void (await interaction.editReply(NOTICES.notALessonThread));
	const started = Date.parse(session.createdAt);
	const since = Number.isFinite(started) ? ` · started <t:${Math.floor(started / 1000)}:R>` : "";
	const lines = [
		`**${session.topic.replace(/\s+/g, " ").slice(0, 200)}** · ${session.mode} lesson for <@${session.learner.id}>${since}`,
		session.phase === "ended"
			? "This lesson has ended."
			: `Now: ${phaseLabel(session.phase)} · ${pendingLabel(session.pending.length)}`,
	];
	if (!session.plan) {
		lines.push("No lesson map yet: it is drawn once the first questions are answered.");
		return void (await interaction.editReply({ content: lines.join("\n"), allowedMentions: { parse: [] } }));
	}
	const picture = await ctx.renderer.renderPlan(session.plan.tree, session.plan.statuses);
	lines.push(`🗺️ ${picture.caption}`);
	if (picture.png) {
		await interaction.editReply({
			content: lines.join("\n").slice(0, 2000),
			files: [{ attachment: picture.png, name: "plan.png", description: picture.caption.slice(0, 1024) }],
			allowedMentions: { parse: [] },
		});
	} else {
		lines.push(picture.outline);
		await interaction.editReply({ content: lines.join("\n").slice(0, 2000), allowedMentions: { parse: [] } });
	}
}

/** Handle a `/lesson` command (not yet acknowledged). */
export async function lessonCommand(ctx: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
	const sub = interaction.options.getSubcommand(false);
	switch (sub) {
		case "start":
			return startLessonCommand(ctx, interaction);
		case "end":
			return endCommand(ctx, interaction);
		case "status":
			return statusCommand(ctx, interaction);
		case "config":
			return configCommand(ctx, interaction);
		case "help":
			return void (await interaction.reply({ content: HELP_TEXT, flags: MessageFlags.Ephemeral }));
		default:
			ctx.logger.warn({ subcommand: sub }, "discord: unknown /lesson subcommand");
			return void (await interaction.reply({ content: HELP_TEXT, flags: MessageFlags.Ephemeral }));
	}
}
