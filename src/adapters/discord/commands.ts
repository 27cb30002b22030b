/**
 * The `/lesson` command's definition (subcommands start, end, status, help,
 * config, usage and the learner-profile ones) and its registration: to one
 * guild when DISCORD_GUILD_ID is set (instant), else globally. Used at start
 * and by `learnharness register-commands`. What each subcommand does is
 * written once, for every platform: lesson/commands.ts.
 */

import {
	type APIApplication,
	type APIApplicationCommandSubcommandGroupOption,
	type APIApplicationCommandSubcommandOption,
	ApplicationCommandOptionType,
	ApplicationIntegrationType,
	ChannelType,
	InteractionContextType,
	REST,
	type RESTPutAPIApplicationCommandsJSONBody,
	Routes,
} from "discord.js";
import { DEFAULT_RETENTION_DAYS, LIBRARY_NAME_MAX, MAX_RETENTION_DAYS } from "../../agent/index.ts";
import { type Logger, silentLogger } from "../../core/contracts/logger.ts";
import { LANGUAGE_NAMES, LOCALES, t } from "../../i18n/index.ts";
import {
	CURATED_TOPIC_MAX_CHARS,
	MAX_CURATED_TOPICS,
	MAX_VOTE_SECONDS,
	MIN_VOTE_SECONDS,
} from "../lesson/lesson-rules.ts";
import { described, discordLocalizations } from "./localized.ts";
import type { DiscordAdapterConfig } from "./types.ts";

/** The command's name. */
export const LESSON_COMMAND = "lesson";

/** Option names, shared by the definition and the handlers. */
export const OPTION = {
	topic: "topic",
	mode: "mode",
	for: "for",
	allowChannel: "allow-channel",
	disallowChannel: "disallow-channel",
	lessonsPerDay: "lessons-per-day",
	defaultMode: "default-mode",
	reset: "reset",
	serverTokens: "server_tokens_per_day",
	memberTokens: "member_tokens_per_day",
	price: "price",
	language: "language",
	material: "material",
	voteSeconds: "vote_seconds",
	voteNames: "vote_names",
	topics: "topics",
	on: "on",
	days: "days",
	library: "library",
	file: "file",
	name: "name",
	membersAddMaterial: "members_add_material",
} as const;

/** Longest topic accepted (the thread name is cut to Discord's 100 characters). */
export const TOPIC_MAX_CHARS = 200;

/** Longest curated-topics setting: every topic at its longest, with ", " between (lesson-rules.ts). */
const TOPICS_SETTING_MAX_CHARS = MAX_CURATED_TOPICS * (CURATED_TOPIC_MAX_CHARS + 2);

export { discordLocalizations } from "./localized.ts";

const modeChoices = [
	{ name: t("en", "cmd.mode.solo"), name_localizations: discordLocalizations("cmd.mode.solo"), value: "solo" },
	{ name: t("en", "cmd.mode.group"), name_localizations: discordLocalizations("cmd.mode.group"), value: "group" },
];

/** The lesson languages, each named in itself. */
const languageChoices = LOCALES.map((locale) => ({ name: LANGUAGE_NAMES[locale].native, value: locale }));

/** The learner-profile subcommands (review, progress, report, forget-me, remind, retention). */
const profileSubcommands: APIApplicationCommandSubcommandOption[] = [
	{ type: ApplicationCommandOptionType.Subcommand, name: "review", ...described("cmd.review") },
	{ type: ApplicationCommandOptionType.Subcommand, name: "progress", ...described("cmd.progress") },
	{ type: ApplicationCommandOptionType.Subcommand, name: "report", ...described("cmd.report") },
	{ type: ApplicationCommandOptionType.Subcommand, name: "dashboard", ...described("cmd.dashboard") },
	{ type: ApplicationCommandOptionType.Subcommand, name: "forget-me", ...described("cmd.forgetMe") },
	{
		type: ApplicationCommandOptionType.Subcommand,
		name: "remind",
		...described("cmd.remind"),
		options: [
			{ type: ApplicationCommandOptionType.Boolean, name: OPTION.on, ...described("cmd.remind.on"), required: true },
		],
	},
	{
		type: ApplicationCommandOptionType.Subcommand,
		name: "retention",
		...described("cmd.retention", { days: DEFAULT_RETENTION_DAYS }),
		options: [
			{
				type: ApplicationCommandOptionType.Integer,
				name: OPTION.days,
				...described("cmd.retention.days"),
				min_value: 1,
				max_value: MAX_RETENTION_DAYS,
			},
		],
	},
];

/** The subcommand group of the library. */
export const LIBRARY_GROUP = "material";

/** `/lesson material add|list|remove`: the community's library (lesson/library.ts). */
const librarySubcommands: APIApplicationCommandSubcommandGroupOption = {
	type: ApplicationCommandOptionType.SubcommandGroup,
	name: LIBRARY_GROUP,
	...described("cmd.material"),
	options: [
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: "add",
			...described("cmd.material.add"),
			options: [
				{
					type: ApplicationCommandOptionType.Attachment,
					name: OPTION.file,
					...described("cmd.material.add.file"),
					required: true,
				},
				{
					type: ApplicationCommandOptionType.String,
					name: OPTION.name,
					...described("cmd.material.add.name"),
					max_length: LIBRARY_NAME_MAX,
				},
			],
		},
		{ type: ApplicationCommandOptionType.Subcommand, name: "list", ...described("cmd.material.list") },
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: "remove",
			...described("cmd.material.remove"),
			options: [
				{
					type: ApplicationCommandOptionType.String,
					name: OPTION.name,
					...described("cmd.material.remove.name"),
					required: true,
					max_length: LIBRARY_NAME_MAX,
					// The library's names as they are typed (autocomplete.ts).
					autocomplete: true,
				},
			],
		},
	],
};

/** The command definitions, as the REST API takes them. */
export const lessonCommands: RESTPutAPIApplicationCommandsJSONBody = [
	{
		name: LESSON_COMMAND,
		...described("cmd.lesson"),
		// Installable to a server and to a user: in a server everything runs; in the member's DM with the bot (or a
		// private channel) review, progress, reminders and forget-me run, and `/lesson start` is refused
		// (lessons live in guild threads: lesson-command.ts).
		contexts: [InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel],
		integration_types: [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall],
		options: [
			{
				type: ApplicationCommandOptionType.Subcommand,
				name: "start",
				...described("cmd.start"),
				options: [
					{
						type: ApplicationCommandOptionType.String,
						name: OPTION.topic,
						...described("cmd.start.topic"),
						required: true,
						min_length: 1,
						max_length: TOPIC_MAX_CHARS,
						// Suggestions as the learner types (autocomplete.ts); any other text still starts a lesson on it.
						autocomplete: true,
					},
					{
						type: ApplicationCommandOptionType.String,
						name: OPTION.mode,
						...described("cmd.start.mode"),
						choices: modeChoices,
					},
					{
						type: ApplicationCommandOptionType.User,
						name: OPTION.for,
						...described("cmd.start.for"),
					},
					{
						type: ApplicationCommandOptionType.String,
						name: OPTION.language,
						...described("cmd.start.language"),
						choices: languageChoices,
					},
					{
						type: ApplicationCommandOptionType.Attachment,
						name: OPTION.material,
						...described("cmd.start.material"),
					},
					{
						type: ApplicationCommandOptionType.String,
						name: OPTION.library,
						...described("cmd.start.library"),
						max_length: LIBRARY_NAME_MAX,
						autocomplete: true,
					},
				],
			},
			{ type: ApplicationCommandOptionType.Subcommand, name: "end", ...described("cmd.end") },
			{ type: ApplicationCommandOptionType.Subcommand, name: "status", ...described("cmd.status") },
			{ type: ApplicationCommandOptionType.Subcommand, name: "help", ...described("cmd.help") },
			{
				type: ApplicationCommandOptionType.Subcommand,
				name: "config",
				...described("cmd.config"),
				options: [
					{
						type: ApplicationCommandOptionType.Channel,
						name: OPTION.allowChannel,
						...described("cmd.config.allowChannel"),
						channel_types: [ChannelType.GuildText, ChannelType.GuildAnnouncement],
					},
					{
						type: ApplicationCommandOptionType.Channel,
						name: OPTION.disallowChannel,
						...described("cmd.config.disallowChannel"),
						channel_types: [ChannelType.GuildText, ChannelType.GuildAnnouncement],
					},
					{
						type: ApplicationCommandOptionType.Integer,
						name: OPTION.lessonsPerDay,
						...described("cmd.config.lessonsPerDay"),
						min_value: 0,
						max_value: 100,
					},
					{
						type: ApplicationCommandOptionType.String,
						name: OPTION.defaultMode,
						...described("cmd.config.defaultMode"),
						choices: modeChoices,
					},
					{
						type: ApplicationCommandOptionType.Integer,
						name: OPTION.serverTokens,
						...described("cmd.config.serverTokens"),
						min_value: 0,
					},
					{
						type: ApplicationCommandOptionType.Integer,
						name: OPTION.memberTokens,
						...described("cmd.config.memberTokens"),
						min_value: 0,
					},
					{
						type: ApplicationCommandOptionType.String,
						name: OPTION.price,
						...described("cmd.config.price"),
						max_length: 100,
					},
					{
						type: ApplicationCommandOptionType.Integer,
						name: OPTION.voteSeconds,
						...described("cmd.config.voteSeconds", { min: MIN_VOTE_SECONDS, max: MAX_VOTE_SECONDS }),
						min_value: MIN_VOTE_SECONDS,
						max_value: MAX_VOTE_SECONDS,
					},
					{
						type: ApplicationCommandOptionType.Boolean,
						name: OPTION.voteNames,
						...described("cmd.config.voteNames"),
					},
					{
						type: ApplicationCommandOptionType.String,
						name: OPTION.topics,
						...described("cmd.config.topics"),
						max_length: TOPICS_SETTING_MAX_CHARS,
					},
					{
						type: ApplicationCommandOptionType.Boolean,
						name: OPTION.membersAddMaterial,
						...described("cmd.config.membersAddMaterial"),
					},
					{
						type: ApplicationCommandOptionType.Boolean,
						name: OPTION.reset,
						...described("cmd.config.reset"),
					},
				],
			},
			{
				type: ApplicationCommandOptionType.Subcommand,
				name: "usage",
				...described("cmd.usage"),
			},
			librarySubcommands,
			...profileSubcommands,
		],
	},
];

/** Where the commands were registered. */
export interface RegisteredCommands {
	scope: "guild" | "global";
	applicationId: string;
	commands: number;
}

/** Register (bulk overwrite) the /lesson command: to config.guildId when set, else globally. Throws with the API's error. */
export async function registerDiscordCommands(
	config: Pick<DiscordAdapterConfig, "token" | "apiUrl" | "guildId" | "applicationId">,
	logger: Logger = silentLogger,
	rest?: REST,
): Promise<RegisteredCommands> {
	const client = rest ?? new REST(config.apiUrl ? { api: config.apiUrl } : {}).setToken(config.token);
	try {
		const applicationId =
			config.applicationId ?? ((await client.get(Routes.currentApplication())) as APIApplication).id;
		const route = config.guildId
			? Routes.applicationGuildCommands(applicationId, config.guildId)
			: Routes.applicationCommands(applicationId);
		const saved = (await client.put(route, { body: lessonCommands })) as unknown[];
		const scope = config.guildId ? "guild" : "global";
		logger.info(
			{ scope, guildId: config.guildId, applicationId, commands: saved.length },
			"discord: commands registered",
		);
		return { scope, applicationId, commands: saved.length };
	} finally {
		if (!rest) client.clearHashSweeper();
		if (!rest) client.clearHandlerSweeper();
	}
}
