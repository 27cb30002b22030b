/**
 * `/lesson` on Discord: the interaction's options parsed into a LessonCommand
 * (lesson/commands.ts runs it, once for every platform) and its reply
 * delivered privately: help at once as an ephemeral reply, everything else
 * deferred (ephemeral) before any store or model work, then the deferred
 * reply edited (a picture or file attached, the forget-me card with its button).
 */

import { ChannelType, type ChatInputCommandInteraction, MessageFlags } from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { toDiscordMessages } from "../../render/index.ts";
import { type CommandReply, type CommandWhere, type LessonCommand, runCommand } from "../lesson/commands.ts";
import type { LessonController } from "../lesson/controller.ts";
import { isLessonMode, type LessonRulesChange, parsePriceSetting, parseTopicsSetting } from "../lesson/lesson-rules.ts";
import type { LessonPlace, PlatformPort } from "../lesson/port.ts";
import { actorOf } from "./actor.ts";
import { LIBRARY_GROUP, OPTION } from "./commands.ts";
import { parseLibraryCommand } from "./library-command.ts";
import { attachmentFile } from "./messages.ts";
import { interactionLocale, NOTICES } from "./notices.ts";
import { describeRestError } from "./rest-messages.ts";
import { DM_COMMUNITY, encodeDiscordThreadId } from "./thread-id.ts";
import { participantOf } from "./who.ts";

/** The subcommands a member may run in their DM with the bot (the app user-installed): what is theirs alone. */
const DM_COMMANDS: ReadonlySet<LessonCommand["kind"]> = new Set(["review", "progress", "remind", "forget-me"]);

// A command run in a DM has the DM community (thread-id.ts). A Discord learner's profile is keyed by the user
// alone (`discord:<user>`, learnerKeyOf), so a review or progress there reads the same items as in any server.

/** What the command handler needs. */
export interface CommandContext {
	controller: LessonController;
	port: PlatformPort;
	logger: Logger;
}

/**
 * Where a lesson opens from the command's channel: a new thread under a text or announcement channel, or (for
 * start, `inThread`) this public thread itself; a review or reminder opens under a thread's parent.
 */
function placeOf(
	interaction: ChatInputCommandInteraction,
	guildId: string,
	inThread: boolean,
): LessonPlace | undefined {
	const channel = interaction.channel;
	if (!channel) return { community: guildId, channelId: interaction.channelId }; // not cached: a channel, most likely
	const publicThread = channel.type === ChannelType.PublicThread || channel.type === ChannelType.AnnouncementThread;
	if (channel.isThread() && channel.parentId && (publicThread || !inThread))
		return {
			community: guildId,
			channelId: channel.parentId,
			...(inThread ? { threadId: encodeDiscordThreadId({ guildId, threadId: channel.id }) } : {}),
		};
	if (channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement)
		return { community: guildId, channelId: channel.id };
	return undefined;
}

/** The config options as a rules change, or what is wrong with them. */
function configOf(interaction: ChatInputCommandInteraction, locale: Locale): LessonCommand {
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
	const serverTokens = o.getInteger(OPTION.serverTokens);
	if (serverTokens !== null) change.serverTokensPerDay = Math.max(0, serverTokens);
	const memberTokens = o.getInteger(OPTION.memberTokens);
	if (memberTokens !== null) change.memberTokensPerDay = Math.max(0, memberTokens);
	const voteSeconds = o.getInteger(OPTION.voteSeconds);
	if (voteSeconds !== null) change.voteSeconds = voteSeconds;
	const voteNames = o.getBoolean(OPTION.voteNames);
	if (voteNames !== null) change.voteNames = voteNames;
	const topics = o.getString(OPTION.topics);
	if (topics !== null) {
		const parsed = parseTopicsSetting(topics, locale);
		if (!Array.isArray(parsed)) return { kind: "config", error: parsed.error };
		change.topics = parsed;
	}
	const membersAdd = o.getBoolean(OPTION.membersAddMaterial);
	if (membersAdd !== null) change.membersAddMaterial = membersAdd;
	const price = o.getString(OPTION.price);
	if (price !== null) {
		const parsed = parsePriceSetting(price, locale);
		if ("error" in parsed) return { kind: "config", error: parsed.error };
		change.price = parsed;
	}
	return { kind: "config", change };
}

/** The subcommand and its options as a LessonCommand; anything unknown becomes help. */
export function parseDiscordCommand(interaction: ChatInputCommandInteraction, locale: Locale): LessonCommand {
	const sub = interaction.options.getSubcommand(false);
	const o = interaction.options;
	if (o.getSubcommandGroup(false) === LIBRARY_GROUP)
		return parseLibraryCommand(interaction) ?? { kind: "help", unknown: `${LIBRARY_GROUP} ${sub ?? ""}`.slice(0, 40) };
	switch (sub) {
		case "start": {
			const forUser = o.getUser(OPTION.for);
			if (forUser?.bot) return { kind: "invalid", message: t(locale, NOTICES.notForBots) };
			const mode = o.getString(OPTION.mode);
			const language = o.getString(OPTION.language);
			const library = o.getString(OPTION.library);
			// An attached file (Discord hosts it on its CDN; the controller downloads it from there only).
			const file = o.getAttachment(OPTION.material);
			const material = file ? { file: attachmentFile(file) } : undefined;
			return {
				kind: "start",
				topic: o.getString(OPTION.topic) ?? "",
				...(isLessonMode(mode) ? { mode } : {}),
				...(forUser ? { learner: participantOf(forUser, o.getMember(OPTION.for)) } : {}),
				...(language !== null ? { language } : {}),
				...(material ? { material } : {}),
				...(library !== null ? { library } : {}),
			};
		}
		case "end":
		case "status":
		case "usage":
		case "review":
		case "progress":
		case "report":
		case "dashboard":
		case "forget-me":
		case "help":
			return { kind: sub };
		case "config":
			return configOf(interaction, locale);
		case "remind": {
			const on = o.getBoolean(OPTION.on);
			return on === null ? { kind: "remind" } : { kind: "remind", on };
		}
		case "retention": {
			const days = o.getInteger(OPTION.days);
			return days === null ? { kind: "retention" } : { kind: "retention", days };
		}
		default:
			return { kind: "help", unknown: (sub ?? "").slice(0, 40) };
	}
}

/** The reply as Discord's message body: mentions off, a picture or file attached, a card's components. */
function bodyOf(reply: CommandReply) {
	const quiet = { allowedMentions: { parse: [] as [] } };
	if ("card" in reply) {
		// A Components V2 card (the flag in the deferred reply's edit); no content.
		const [message] = toDiscordMessages(reply.card);
		return { ...quiet, flags: MessageFlags.IsComponentsV2 as const, components: message?.components ?? [], files: [] };
	}
	const content = reply.text.slice(0, 2000);
	if ("picture" in reply)
		return {
			...quiet,
			content,
			files: [{ attachment: reply.picture.png, name: "plan.png", description: reply.picture.caption.slice(0, 1024) }],
		};
	if ("file" in reply)
		return {
			...quiet,
			content,
			files: [{ attachment: reply.file.data, name: reply.file.name, description: reply.file.title.slice(0, 1024) }],
		};
	return { ...quiet, content, files: [] };
}

/** Handle a `/lesson` command (not yet acknowledged). */
export async function lessonCommand(ctx: CommandContext, interaction: ChatInputCommandInteraction): Promise<void> {
	const locale = interactionLocale(interaction) ?? DEFAULT_LOCALE;
	const command = parseDiscordCommand(interaction, locale);
	const guildId = interaction.guildId;
	if (command.kind === "help") {
		if (command.unknown !== undefined)
			ctx.logger.warn({ subcommand: command.unknown }, "discord: unknown /lesson subcommand");
		const actor = actorOf(interaction, "reply", ctx.logger);
		const nowhere: CommandWhere = {
			community: guildId ?? "",
			place: { community: guildId ?? "", channelId: interaction.channelId },
			lesson: async () => undefined,
		};
		const reply = await runCommand(ctx.controller, ctx.port, actor, nowhere, command);
		if (reply) await interaction.reply({ ...bodyOf(reply), flags: MessageFlags.Ephemeral });
		return;
	}
	// In the member's DM with the bot (the app user-installed) the reply needs no privacy: nobody else is there.
	await interaction.deferReply(guildId ? { flags: MessageFlags.Ephemeral } : {});
	const actor = actorOf(interaction, "editReply", ctx.logger);
	if (!guildId) {
		// A DM runs what is the member's own (review, progress, reminders, forget-me); lessons stay in guild threads.
		if (!DM_COMMANDS.has(command.kind)) return actor.notify(t(locale, NOTICES.notInGuild));
		const dm: CommandWhere = {
			community: DM_COMMUNITY,
			place: { community: DM_COMMUNITY, channelId: interaction.channelId },
			lesson: async () => undefined,
		};
		const reply = await runCommand(ctx.controller, ctx.port, actor, dm, command);
		if (reply)
			await interaction.editReply(bodyOf(reply)).catch((error: unknown) => {
				ctx.logger.warn({ err: describeRestError(error) }, "discord: a command's reply in a DM could not be sent");
			});
		return;
	}
	const place = placeOf(interaction, guildId, command.kind === "start");
	const needsPlace = command.kind === "start" || command.kind === "review" || command.kind === "remind";
	if (!place && needsPlace) return actor.notify(t(locale, NOTICES.badChannel));
	// A command run in a lesson's thread is about that lesson.
	const here = encodeDiscordThreadId({ guildId, threadId: interaction.channelId });
	const where: CommandWhere = {
		community: guildId,
		place: place ?? { community: guildId, channelId: interaction.channelId },
		thread: here,
		lesson: async () => here,
	};
	const reply = await runCommand(ctx.controller, ctx.port, actor, where, command);
	if (!reply) return;
	try {
		await interaction.editReply(bodyOf(reply));
	} catch (error) {
		ctx.logger.warn({ err: describeRestError(error) }, "discord: a command's reply could not be sent");
	}
}
