/**
 * Clicks, selects and modal submits on lesson cards, decoded into controller
 * calls. A pick, select or submit is acknowledged (a deferred update) once the
 * tutor has recorded or refused it, at the latest after RECORD_BEFORE_ACK_MS
 * (held-ack.ts): a process that dies before recording leaves the click
 * unacknowledged (Discord says it failed; the learner clicks again) rather
 * than acknowledged and lost. For an "Answer" button the first response is the
 * modal itself (or a notice), after the controller's bounded pre-check.
 * Component ids name a pending call; the tutor checks them against the session's pending calls.
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
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import { decodeComponentId, discordAnswerModal, encodeComponentId } from "../../render/index.ts";
import type { LessonController } from "../lesson/controller.ts";
import { type HeldAck, holdAck } from "../lesson/held-ack.ts";
import type { Actor, AnswerForm, PlatformPort } from "../lesson/port.ts";
import { isProfileButton } from "../lesson/profile-flows.ts";
import { actorOf, type NoticeRoute } from "./actor.ts";
import { uploadedFiles } from "./form-files.ts";
import { deferUpdate } from "./interaction-rest.ts";
import { interactionLocale, NOTICES } from "./notices.ts";
import type { InteractionReplies } from "./port.ts";
import { describeRestError } from "./rest-messages.ts";
import { DM_COMMUNITY, encodeDiscordThreadId } from "./thread-id.ts";

/** What the control handlers need. */
export interface ControlsContext {
	controller: LessonController;
	/** The port the controller posts through (its words for command replies: commands.ts). */
	port: PlatformPort;
	logger: Logger;
	/** Clicks whose interactions carry the turn they start (the port's); without it turns post in the channel. */
	replies?: InteractionReplies;
}

type Interaction = MessageComponentInteraction | ModalSubmitInteraction;

function threadOf(interaction: Interaction): string | undefined {
	if (!interaction.channelId) return undefined;
	if (!interaction.guildId) {
		// In a DM only the member's own controls work (a review, Review now, forget-me): they need no lesson thread.
		const id = decodeComponentId("customId" in interaction ? interaction.customId : undefined);
		return isProfileButton(id?.toolCallId)
			? encodeDiscordThreadId({ guildId: DM_COMMUNITY, threadId: interaction.channelId })
			: undefined;
	}
	return encodeDiscordThreadId({ guildId: interaction.guildId, threadId: interaction.channelId });
}

/**
 * A click acknowledged by `ack` once recorded: its actor's notices (ephemeral, through `route`) wait for the
 * acknowledgement, and the tutor's verdict opens it.
 */
function heldClick(
	ctx: ControlsContext,
	interaction: ButtonInteraction | StringSelectMenuInteraction | ModalSubmitInteraction,
	route: NoticeRoute,
	ack: () => Promise<void>,
): { held: HeldAck; actor: Actor } {
	const held = holdAck(ack, (error) =>
		ctx.logger.warn({ err: describeRestError(error), interactionId: interaction.id }, "discord: a click's ack failed"),
	);
	const inner = actorOf(interaction, route, ctx.logger);
	const actor: Actor = {
		...inner,
		notify: async (content, picture) => {
			if (await held.send()) await inner.notify(content, picture);
		},
		show: async (card) => {
			if (await held.send()) await inner.show?.(card);
		},
		recorded: () => void held.send(),
	};
	return { held, actor };
}

/**
 * Run a deferred-update click: while it runs, the thread's output goes through this interaction (the card as
 * `@original`, the rest as follow-ups, once acknowledged: see port.ts); a refused click is not used.
 */
async function asClick(
	ctx: ControlsContext,
	interaction: MessageComponentInteraction | ModalSubmitInteraction,
	threadId: string,
	held: HeldAck,
	run: () => Promise<HandleResult>,
): Promise<HandleResult> {
	const messageId = interaction.message?.id;
	const reply = { applicationId: interaction.applicationId, token: interaction.token, acked: held.sent };
	// A private review's control answers in its own ephemeral replies: a lesson's output never goes through it.
	const id = decodeComponentId("customId" in interaction ? interaction.customId : undefined);
	const own = messageId && !isProfileButton(id?.toolCallId);
	const click = own ? ctx.replies?.note(threadId, messageId, reply) : undefined;
	try {
		const result = await run();
		if (click && !result.ok) ctx.replies?.forget(threadId, click);
		return result;
	} finally {
		await held.send();
	}
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
				interaction.showModal(discordAnswerModal(form.toolCallId, form.question, form.locale, form.pictures)),
		};
		return ctx.controller.openForm(actor, threadId, id.toolCallId);
	}
	if (id?.verb === "help") {
		const kind = HELP_KINDS[id.choice ?? -1];
		if (!kind) return void (await interaction.reply(ephemeral(interaction, NOTICES.unknownComponent)));
		const { held, actor } = heldClick(ctx, interaction, "followUp", () => deferUpdate(interaction));
		return void (await asClick(ctx, interaction, threadId, held, () =>
			ctx.controller.help(actor, threadId, id.toolCallId, kind),
		));
	}
	if (id?.verb !== "pick" || id.choice === undefined)
		return void (await interaction.reply(ephemeral(interaction, NOTICES.unknownComponent)));
	const { held, actor } = heldClick(ctx, interaction, "followUp", () => deferUpdate(interaction));
	const choice = id.choice;
	await asClick(ctx, interaction, threadId, held, () => ctx.controller.choose(actor, threadId, id.toolCallId, choice));
}

/** A string select: its value is the chosen option's 0-based index. */
export async function onSelect(ctx: ControlsContext, interaction: StringSelectMenuInteraction): Promise<void> {
	const id = decodeComponentId(interaction.customId);
	const threadId = threadOf(interaction);
	if (!threadId) return void (await interaction.reply(ephemeral(interaction, NOTICES.notInGuild)));
	if (id?.verb !== "select") return void (await interaction.reply(ephemeral(interaction, NOTICES.unknownComponent)));
	const raw = interaction.values[0] ?? "";
	if (!/^\d{1,4}$/.test(raw)) return void (await interaction.reply(ephemeral(interaction, NOTICES.invalidChoice)));
	const { held, actor } = heldClick(ctx, interaction, "followUp", () => deferUpdate(interaction));
	await asClick(ctx, interaction, threadId, held, () =>
		ctx.controller.choose(actor, threadId, id.toolCallId, Number(raw)),
	);
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

/** A modal submit: the typed answer to a free-answer quiz or a free-text ask, with any pictures uploaded in it. */
export async function onModalSubmit(ctx: ControlsContext, interaction: ModalSubmitInteraction): Promise<void> {
	const id = decodeComponentId(interaction.customId);
	const threadId = threadOf(interaction);
	if (!threadId) return void (await interaction.reply(ephemeral(interaction, NOTICES.notInGuild)));
	if (id?.verb !== "modal") return void (await interaction.reply(ephemeral(interaction, NOTICES.unknownComponent)));
	// From a card: update it (the answered state follows); from elsewhere: an ephemeral reply says what happened.
	const fromMessage = interaction.isFromMessage();
	const { held, actor } = fromMessage
		? heldClick(ctx, interaction, "followUp", () => deferUpdate(interaction))
		: heldClick(ctx, interaction, "editReply", async () => {
				await interaction.deferReply({ flags: MessageFlags.Ephemeral });
			});
	const submit = () =>
		ctx.controller.submitForm(
			actor,
			threadId,
			id.toolCallId,
			typedAnswer(interaction, id.toolCallId),
			uploadedFiles(interaction, id.toolCallId),
		);
	// Not from a card: its deferred reply is ephemeral, and a first follow-up would replace it, so the thread's
	// output goes through the channel.
	const result = fromMessage
		? await asClick(ctx, interaction, threadId, held, submit)
		: await submit().finally(() => held.send());
	if (result.ok && !fromMessage) await actor.notify(t(actor.locale ?? DEFAULT_LOCALE, "start.recorded"));
}
