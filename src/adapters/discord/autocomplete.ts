/**
 * Autocomplete on Discord: `/lesson start topic:` offers, as the learner types,
 * the topics lesson/topic-suggestions.ts suggests (due reviews, unfinished
 * lessons, the server's curated topics); `/lesson start library:` and
 * `/lesson material remove name:` offer the server's library names. Discord sends
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
import {
	SUGGESTION_LIMIT,
	SUGGESTION_WAIT_MS,
	suggestionLabel,
	type TopicSuggestion,
} from "../lesson/topic-suggestions.ts";
import { within } from "../lesson/within.ts";
import { LESSON_COMMAND, LIBRARY_GROUP, OPTION } from "./commands.ts";
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
	controller: Pick<LessonController, "suggestTopics" | "library">;
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

/** What is being typed: `/lesson start topic:`, or a library name (`start library:`, `material remove name:`). */
type Focused = { kind: "topic" | "library"; typed: string };

/** The focused option we suggest for and its typed text; undefined for anything else. */
function focusedOption(interaction: AutocompleteInteraction): Focused | undefined {
	try {
		if (interaction.commandName !== LESSON_COMMAND) return undefined;
		const group = interaction.options.getSubcommandGroup(false);
		const sub = interaction.options.getSubcommand(false);
		const focused = interaction.options.getFocused(true); // throws when the payload marks no option focused
		if (typeof focused.value !== "string") return undefined;
		if (group === null && sub === "start" && focused.name === OPTION.topic)
			return { kind: "topic", typed: focused.value };
		if (group === null && sub === "start" && focused.name === OPTION.library)
			return { kind: "library", typed: focused.value };
		if (group === LIBRARY_GROUP && sub === "remove" && focused.name === OPTION.name)
			return { kind: "library", typed: focused.value };
		return undefined;
	} catch {
		return undefined;
	}
}

/** The library's names as choices (each within Discord's bounds), read within the suggestions' time budget. */
async function libraryChoices(ctx: AutocompleteContext, community: string, typed: string): Promise<TopicChoice[]> {
	const library = ctx.controller.library;
	if (!library || typed.length > CHOICE_MAX_CHARS) return [];
	const names = await within(
		library.names(community, typed, SUGGESTION_LIMIT).catch((error: unknown) => {
			ctx.logger.warn({ err: error }, "discord: library names for autocomplete failed");
			return [];
		}),
		SUGGESTION_WAIT_MS,
	);
	return (names ?? [])
		.filter((n) => n.length >= 1 && n.length <= CHOICE_MAX_CHARS)
		.map((n) => ({ name: n, value: n }))
		.slice(0, SUGGESTION_LIMIT);
}

/** Answer one autocomplete interaction (another command's gets an empty list). Never rejects. */
export async function onAutocomplete(ctx: AutocompleteContext, interaction: AutocompleteInteraction): Promise<void> {
	const focused = focusedOption(interaction);
	const guildId = interaction.guildId;
	let choices: TopicChoice[] = [];
	if (focused?.kind === "library" && guildId) choices = await libraryChoices(ctx, guildId, focused.typed);
	const typed = focused?.kind === "topic" ? focused.typed : undefined;
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
