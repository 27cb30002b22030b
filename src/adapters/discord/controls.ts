/**
 * Clicks, selects and modal submits on lesson cards, decoded into controller
 * calls. The first response comes before any store or model work: a deferred
 * update for picks, selects and submits; for an "Answer" button the modal
 * itself (or a notice), after the controller's bounded pre-check. Component
 * ids are a claim the tutor checks against the session's pending calls.
 */

import {
	type ButtonInteraction,
	type MessageComponentInteraction,
	MessageFlags,
	type ModalSubmitInteraction,
	type StringSelectMenuInteraction,
} from "discord.js";
import type { HandleResult } from "../../core/contracts/events.ts";
import { HELP_KINDS } from "../../core/contracts/help.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { decodeComponentId, discordAnswerModal, encodeComponentId } from "../../render/index.ts";
import type { LessonController } from "../lesson/controller.ts";
import { DEFAULT_LOCALE, t } from "../lesson/i18n.ts";
import type { AnswerForm } from "../lesson/port.ts";
import { actorOf } from "./actor.ts";
import { deferUpdate } from "./interaction-rest.ts";
import { interactionLocale, NOTICES } from "./notices.ts";
import type { InteractionReplies } from "./port.ts";
import { encodeDiscordThreadId } from "./thread-id.ts";

/** What the control handlers need. */
export interface ControlsContext {
	controller: LessonController;
	logger: Logger;
	/** Clicks whose interactions carry the turn they start (the port's); without it turns post in the channel. */
	replies?: InteractionReplies;
}

type Interaction = MessageComponentInteraction | ModalSubmitInteraction;

function threadOf(interaction: Interaction): string | undefined {
	if (!interaction.guildId || !interaction.channelId) return undefined;
	return encodeDiscordThreadId({ guildId: interaction.guildId, threadId: interaction.channelId });
}

/**
 * Run a deferred-update click: while it runs, the thread's output goes through this interaction (the card as
 * `@original`, the rest as follow-ups: see port.ts); a refused click is not used.
 */
async function asClick(
	ctx: ControlsContext,
	interaction: MessageComponentInteraction | ModalSubmitInteraction,
	threadId: string,
	run: () => Promise<HandleResult>,
): Promise<HandleResult> {
	const messageId = interaction.message?.id;
	const click = messageId
		? ctx.replies?.note(threadId, messageId, { applicationId: interaction.applicationId, token: interaction.token })
		: undefined;
	const result = await run();
	if (click && !result.ok) ctx.replies?.forget(threadId, click);
	return result;
}

/** An adapter notice in the clicker's own language, as an ephemeral reply. */
const ephemeral = (interaction: Interaction, key: (typeof NOTICES)[keyof typeof NOTICES]) => ({
	content: t(interactionLocale(interaction) ?? DEFAULT_LOCALE, key),
	flags: MessageFlags.Ephemeral as const,
});

/** A button: "pick" answers, "help" asks for help (Hint, Try again, …), "open" shows the answer modal (as the first response). */
export async function onButton(ctx: ControlsContext, interaction: ButtonInteraction): Promise<void> {
	const id = decodeComponentId(interaction.customId);
	const threadId = threadOf(interaction);
	if (!threadId) return void (await interaction.reply(ephemeral(interaction, NOTICES.notInGuild)));
	if (id?.verb === "open") {
		const actor = {
			...actorOf(interaction, "reply", ctx.logger),
			openForm: async (form: AnswerForm) =>
				interaction.showModal(discordAnswerModal(form.toolCallId, form.question, form.locale)),
		};
		return ctx.controller.openForm(actor, threadId, id.toolCallId);
	}
	if (id?.verb === "help") {
		const kind = HELP_KINDS[id.choice ?? -1];
		if (!kind) return void (await interaction.reply(ephemeral(interaction, NOTICES.unknownComponent)));
		await deferUpdate(interaction);
		const actor = actorOf(interaction, "followUp", ctx.logger);
		return void (await asClick(ctx, interaction, threadId, () =>
			ctx.controller.help(actor, threadId, id.toolCallId, kind),
		));
	}
	if (id?.verb !== "pick" || id.choice === undefined)
		return void (await interaction.reply(ephemeral(interaction, NOTICES.unknownComponent)));
	await deferUpdate(interaction);
	const actor = actorOf(interaction, "followUp", ctx.logger);
	const choice = id.choice;
	await asClick(ctx, interaction, threadId, () => ctx.controller.choose(actor, threadId, id.toolCallId, choice));
}

/** A string select: its value is the chosen option's 0-based index. */
export async function onSelect(ctx: ControlsContext, interaction: StringSelectMenuInteraction): Promise<void> {
	const id = decodeComponentId(interaction.customId);
	const threadId = threadOf(interaction);
	if (!threadId) return void (await interaction.reply(ephemeral(interaction, NOTICES.notInGuild)));
	if (id?.verb !== "select") return void (await interaction.reply(ephemeral(interaction, NOTICES.unknownComponent)));
	const raw = interaction.values[0] ?? "";
	if (!/^\d{1,4}$/.test(raw)) return void (await interaction.reply(ephemeral(interaction, NOTICES.invalidChoice)));
	await deferUpdate(interaction);
	const actor = actorOf(interaction, "followUp", ctx.logger);
	await asClick(ctx, interaction, threadId, () => ctx.controller.choose(actor, threadId, id.toolCallId, Number(raw)));
}

/** The typed answer of a modal: its text input (by id), else the first text input it has. */
function typedAnswer(interaction: ModalSubmitInteraction, toolCallId: string): string {
	try {
		return interaction.fields.getTextInputValue(encodeComponentId({ verb: "text", toolCallId }));
	} catch {
		for (const field of interaction.fields.fields.values())
			if ("value" in field && typeof field.value === "string") return field.value;
		return "";
	}
}

/** A modal submit: the typed answer to a free-answer quiz or a free-text ask. */
export async function onModalSubmit(ctx: ControlsContext, interaction: ModalSubmitInteraction): Promise<void> {
	const id = decodeComponentId(interaction.customId);
	const threadId = threadOf(interaction);
	if (!threadId) return void (await interaction.reply(ephemeral(interaction, NOTICES.notInGuild)));
	if (id?.verb !== "modal") return void (await interaction.reply(ephemeral(interaction, NOTICES.unknownComponent)));
	// From a card: update it (the answered state follows); from elsewhere: an ephemeral reply says what happened.
	const fromMessage = interaction.isFromMessage();
	if (fromMessage) await deferUpdate(interaction);
	else await interaction.deferReply({ flags: MessageFlags.Ephemeral });
	const actor = actorOf(interaction, fromMessage ? "followUp" : "editReply", ctx.logger);
	const submit = () =>
		ctx.controller.submitForm(actor, threadId, id.toolCallId, typedAnswer(interaction, id.toolCallId));
	// Not from a card: its deferred reply is ephemeral, and a first follow-up would replace it, so the thread's
	// output goes through the channel.
	const result = fromMessage ? await asClick(ctx, interaction, threadId, submit) : await submit();
	if (result.ok && !fromMessage) await actor.notify(t(actor.locale ?? DEFAULT_LOCALE, "start.recorded"));
}
