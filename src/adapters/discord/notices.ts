/**
 * Discord's words: how notices are styled (the shared wording lives in
 * lesson/notices.ts), the intro a lesson thread opens with, the adapter's own
 * replies and the help text.
 */

import { DEFAULT_LOCALE, type Locale, type MessageKey, resolveLocale, t } from "../../i18n/index.ts";
import type { NoticeStyle } from "../lesson/notices.ts";
import type { LessonIntro } from "../lesson/port.ts";

/** Notices on Discord: `/lesson start`, Manage Server admins, `<@id>` and `<#id>` mentions. */
export const DISCORD_STYLE: NoticeStyle = {
	startHint: "`/lesson start`",
	reviewHint: "`/lesson review`",
	adminHint: (locale) => t(locale, "discord.adminHint"),
	time: (ms) => `<t:${Math.floor(ms / 1000)}:R>`,
};

/** The language a Discord interaction's person uses, when we have it (`interaction.locale`, e.g. "de", "es-ES"). */
export function interactionLocale(interaction: { locale?: string | null }): Locale | undefined {
	return resolveLocale(interaction.locale);
}

/** The first message of a lesson thread, in the lesson's language. */
export function introText({ topic, learner, mode, startedBy, language }: LessonIntro): string {
	const locale = language ?? DEFAULT_LOCALE;
	const forWhom =
		learner.id === startedBy.id
			? `<@${learner.id}>`
			: t(locale, "discord.startedBy", { learner: `<@${learner.id}>`, startedBy: `<@${startedBy.id}>` });
	const who =
		mode === "solo" ? t(locale, "discord.introSolo", { learner: `<@${learner.id}>` }) : t(locale, "discord.introGroup");
	return [
		t(locale, "discord.intro", { topic: topic.replace(/\s+/g, " ").trim().slice(0, 300), forWhom }),
		`${who} ${t(locale, "discord.introHow")}`,
	].join("\n");
}

/** Adapter-side refusals and replies: catalogue keys (`t(locale, NOTICES.x)`). */
export const NOTICES = {
	notInGuild: "discord.notInGuild",
	unknownComponent: "discord.unknownComponent",
	notForBots: "discord.notForBots",
	badChannel: "discord.badChannel",
	internalError: "discord.internalError",
	invalidChoice: "discord.invalidChoice",
} as const satisfies Record<string, MessageKey>;

/** The help text of `/lesson help`, in `locale`. */
export function helpText(locale: Locale = DEFAULT_LOCALE): string {
	return (
		[
			"discord.help.title",
			"discord.help.start",
			"discord.help.answer",
			"discord.help.type",
			"discord.help.mode",
			"discord.help.language",
			"discord.help.status",
			"discord.help.profile",
			"discord.help.config",
			"discord.help.library",
		] as const
	)
		.map((key) => t(locale, key))
		.join("\n");
}
