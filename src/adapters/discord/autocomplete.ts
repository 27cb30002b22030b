/**
 * Autocomplete of `/lesson start topic:` on Discord: as the learner types, the
 * topics lesson/topic-suggestions.ts suggests (due reviews, unfinished
 * lessons, the server's curated topics), as Discord's choices. Discord sends
 * an autocomplete interaction for each change of the focused option and takes
 * one answer, type 8 with at most 25 choices, within 3 s; it cannot be
 * deferred. So the answer is always sent, and soon: anything we do not
 * suggest for (another subcommand or option, a DM, odd input, a store that is
 * slow or down) gets an empty list, never an error.
 * (discord.com/developers/docs/interactions/application-commands#autocomplete)
 */

import type { AutocompleteInteraction } from "discord.js";
import type { Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { DEFAULT_LOCALE } from "../../i18n/index.ts";
import type { LessonController } from "../lesson/controller.ts";
import { SUGGESTION_LIMIT, suggestionLabel, type TopicSuggestion } from "../lesson/topic-suggestions.ts";
import { LESSON_COMMAND, OPTION } from "./commands.ts";
import { interactionLocale } from "./notices.ts";
import { describeRestError } from "./rest-messages.ts";

/** An autocomplete choice as Discord takes it: name 1..100 characters, a string value of at most 100. */
export interface TopicChoice {
	name: string;
	value: string;
}

/** Discord's bounds on a choice's name and value. */
const CHOICE_MAX_CHARS = 100;

/** What the handler needs. */
export interface AutocompleteContext {
	controller: Pick<LessonController, "suggestTopics">;
	logger: Logger;
}

/** The suggestions as Discord's choices (each within Discord's bounds; anything outside them is left out). */
export function topicChoices(suggestions: readonly TopicSuggestion[], locale = DEFAULT_LOCALE): TopicChoice[] {
	return suggestions
		.filter((s) => s.topic.length >= 1 && s.topic.length <= CHOICE_MAX_CHARS)
		.map((s) => ({ name: suggestionLabel(s, locale, CHOICE_MAX_CHARS), value: s.topic }))
		.filter((c) => c.name.length >= 1)
		.slice(0, SUGGESTION_LIMIT);
}

/** The typed text of `/lesson start topic:` when that is the focused option; undefined for anything else. */
function typedTopic(interaction: AutocompleteInteraction): string | undefined {
	try {
		if (interaction.commandName !== LESSON_COMMAND || interaction.options.getSubcommand(false) !== "start")
			return undefined;
		const focused = interaction.options.getFocused(true); // throws when the payload marks no option focused
		return focused.name === OPTION.topic && typeof focused.value === "string" ? focused.value : undefined;
	} catch {
		return undefined;
	}
}

/** Answer one autocomplete interaction (another command's gets an empty list). Never rejects. */
export async function onAutocomplete(ctx: AutocompleteContext, interaction: AutocompleteInteraction): Promise<void> {
	const typed = typedTopic(interaction);
	const guildId = interaction.guildId;
	let choices: TopicChoice[] = [];
	// In a DM `/lesson start` is refused (lessons live in guild threads), so nothing is suggested there.
	if (typed !== undefined && guildId) {
		const user = interaction.user;
		const by: Participant = { id: user.id, ...(user.username ? { name: user.username } : {}) };
		const suggestions = await ctx.controller.suggestTopics(by, guildId, typed).catch((error: unknown) => {
			ctx.logger.warn({ err: error }, "discord: topic suggestions failed");
			return [];
		});
		choices = topicChoices(suggestions, interactionLocale(interaction) ?? DEFAULT_LOCALE);
	}
	try {
		await interaction.respond(choices);
	} catch (error) {
		// Late (the learner typed on and Discord dropped this one) or answered by another process: nothing to tell.
		ctx.logger.debug(
			{ err: describeRestError(error), interactionId: interaction.id },
			"discord: autocomplete not sent",
		);
	}
}
