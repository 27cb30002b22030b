/**
 * Clicks, selects and modal submits on lesson cards. The first response comes
 * before any store or model work: a deferred update for picks, selects and
 * submits, the modal itself for an "Answer" button (checked against memory
 * only). Component ids are a claim (decoded, then checked by the tutor against
 * the session's pending calls); a refusal becomes an ephemeral notice and
 * records nothing.
 */

import {
	type ButtonInteraction,
	type MessageComponentInteraction,
	MessageFlags,
	type ModalSubmitInteraction,
	type StringSelectMenuInteraction,
} from "discord.js";
import type { HandleResult, LearnerEvent } from "../../core/contracts/events.ts";
import { encodeSessionId } from "../../core/session-id.ts";
import { decodeComponentId, discordAnswerModal, encodeComponentId } from "../../render/index.ts";
import type { Refusal } from "../shared/notices.ts";
import type { AdapterContext } from "./context.ts";
import { NOTICES, refusalNotice } from "./notices.ts";
import { participantOf } from "./who.ts";

type Interaction = MessageComponentInteraction | ModalSubmitInteraction;

function sessionIdOf(interaction: Interaction): string | undefined {
	if (!interaction.guildId || !interaction.channelId) return undefined;
	return encodeSessionId({ platform: "discord", guildId: interaction.guildId, threadId: interaction.channelId });
}

const ephemeral = (content: string) => ({
	content,
	flags: MessageFlags.Ephemeral as const,
	allowedMentions: { parse: [] },
});

/** Teach the gate this thread's lesson (after the ack) so the next "Answer" click can be checked before its modal. */
async function warmGate(ctx: AdapterContext, sessionId: string, threadId: string): Promise<void> {
	if (ctx.gate.lesson(sessionId)) return;
	const lesson = await ctx.state.lesson(threadId).catch(() => undefined);
	if (lesson) ctx.gate.rememberLesson(sessionId, { mode: lesson.mode, learnerId: lesson.learnerId });
}

/** The refusal notice, naming the learner when the gate knows them. */
function noticeFor(ctx: AdapterContext, sessionId: string, result: Refusal): string {
	return refusalNotice(result, "answer", ctx.gate.lesson(sessionId)?.learnerId);
}

/** Hand a learner event to the tutor (after the ack) and tell the person when it was refused. */
async function deliver(
	ctx: AdapterContext,
	interaction: Interaction,
	sessionId: string,
	event: LearnerEvent,
): Promise<HandleResult> {
	const result = await ctx.tutor.handle(sessionId, event);
	await warmGate(ctx, sessionId, interaction.channelId ?? "");
	if (!result.ok) {
		ctx.logger.info({ sessionId, code: result.code, userId: interaction.user.id }, "discord: answer refused");
		await interaction.followUp(ephemeral(noticeFor(ctx, sessionId, result)));
	}
	return result;
}

/** A button: "pick" answers, "open" shows the answer modal (as the first response). */
export async function onButton(ctx: AdapterContext, interaction: ButtonInteraction): Promise<void> {
	const id = decodeComponentId(interaction.customId);
	const sessionId = sessionIdOf(interaction);
	if (!sessionId) return void (await interaction.reply(ephemeral(NOTICES.notInGuild)));
	if (id?.verb === "open") {
		// Memory only: a store read could cost the 3 s the modal (the first response) must meet.
		const code = ctx.gate.refusalFromMemory(sessionId, id.toolCallId, interaction.user.id);
		if (code) return void (await interaction.reply(ephemeral(noticeFor(ctx, sessionId, { code, message: "" }))));
		const question = ctx.gate.questionText(sessionId, id.toolCallId) ?? "";
		return void (await interaction.showModal(discordAnswerModal(id.toolCallId, question)));
	}
	if (id?.verb !== "pick" || id.choice === undefined)
		return void (await interaction.reply(ephemeral(NOTICES.unknownComponent)));
	await interaction.deferUpdate();
	const by = participantOf(interaction.user, interaction.member);
	await deliver(ctx, interaction, sessionId, { type: "answer", toolCallId: id.toolCallId, value: id.choice, by });
}

/** A string select: its value is the chosen option's 0-based index. */
export async function onSelect(ctx: AdapterContext, interaction: StringSelectMenuInteraction): Promise<void> {
	const id = decodeComponentId(interaction.customId);
	const sessionId = sessionIdOf(interaction);
	if (!sessionId) return void (await interaction.reply(ephemeral(NOTICES.notInGuild)));
	if (id?.verb !== "select") return void (await interaction.reply(ephemeral(NOTICES.unknownComponent)));
	const raw = interaction.values[0] ?? "";
	const index = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
	if (!Number.isInteger(index)) return void (await interaction.reply(ephemeral(NOTICES.invalidChoice)));
	await interaction.deferUpdate();
	const by = participantOf(interaction.user, interaction.member);
	await deliver(ctx, interaction, sessionId, { type: "answer", toolCallId: id.toolCallId, value: index, by });
}

/** The typed answer of a modal: its text input (by id), else the first text input it has. */
function typedAnswer(interaction: ModalSubmitInteraction, toolCallId: string): string | undefined {
	try {
		return interaction.fields.getTextInputValue(encodeComponentId({ verb: "text", toolCallId }));
	} catch {
		for (const field of interaction.fields.fields.values()) {
			if ("value" in field && typeof field.value === "string") return field.value;
		}
		return undefined;
	}
}

/** A modal submit: the typed answer to a free-answer quiz or a free-text ask. */
export async function onModalSubmit(ctx: AdapterContext, interaction: ModalSubmitInteraction): Promise<void> {
	const id = decodeComponentId(interaction.customId);
	const sessionId = sessionIdOf(interaction);
	if (!sessionId) return void (await interaction.reply(ephemeral(NOTICES.notInGuild)));
	if (id?.verb !== "modal") return void (await interaction.reply(ephemeral(NOTICES.unknownComponent)));
	const fromMessage = interaction.isFromMessage();
	if (fromMessage) await interaction.deferUpdate();
	else await interaction.deferReply({ flags: MessageFlags.Ephemeral });
	const text = (typedAnswer(interaction, id.toolCallId) ?? "").trim();
	if (text === "") {
		await (fromMessage
			? interaction.followUp(ephemeral(NOTICES.emptyAnswer))
			: interaction.editReply(NOTICES.emptyAnswer));
		return;
	}
	const by = participantOf(interaction.user, interaction.member);
	if (fromMessage) {
		await deliver(ctx, interaction, sessionId, { type: "reply", toolCallId: id.toolCallId, text, by });
		return;
	}
	const result = await ctx.tutor.handle(sessionId, { type: "reply", toolCallId: id.toolCallId, text, by });
	await interaction.editReply(result.ok ? "Answer recorded." : noticeFor(ctx, sessionId, result));
}
