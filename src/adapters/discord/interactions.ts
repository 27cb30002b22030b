/**
 * The interaction router: one try/catch around every handler so a bug, a
 * REST error or an odd payload becomes a log line and, where Discord still
 * lets us answer, an ephemeral notice; never an unhandled rejection.
 */

import { type Interaction, MessageFlags } from "discord.js";
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import { DELIVERY_TTL_MS } from "../lesson/deliveries.ts";
import { onAutocomplete } from "./autocomplete.ts";
import { LESSON_COMMAND } from "./commands.ts";
import { type ControlsContext, onButton, onModalSubmit, onSelect } from "./controls.ts";
import { lessonCommand } from "./lesson-command.ts";
import { interactionLocale, NOTICES } from "./notices.ts";
import { describeRestError } from "./rest-messages.ts";

async function route(ctx: ControlsContext, interaction: Interaction): Promise<void> {
	if (interaction.isChatInputCommand()) {
		if (interaction.commandName === LESSON_COMMAND) await lessonCommand(ctx, interaction);
		else ctx.logger.debug({ command: interaction.commandName }, "discord: ignoring an unknown command");
	} else if (interaction.isAutocomplete()) await onAutocomplete(ctx, interaction);
	else if (interaction.isButton()) await onButton(ctx, interaction);
	else if (interaction.isStringSelectMenu()) await onSelect(ctx, interaction);
	else if (interaction.isModalSubmit()) await onModalSubmit(ctx, interaction);
}

/** Tell the person something failed, in whatever way Discord still allows; never throws. */
async function notifyFailure(ctx: ControlsContext, interaction: Interaction): Promise<void> {
	if (!interaction.isRepliable()) return;
	try {
		const content = t(interactionLocale(interaction) ?? DEFAULT_LOCALE, NOTICES.internalError);
		if (!interaction.deferred && !interaction.replied)
			await interaction.reply({ content, flags: MessageFlags.Ephemeral });
		else if (interaction.isChatInputCommand() || (interaction.isModalSubmit() && !interaction.isFromMessage()))
			await interaction.editReply({ content }); // their deferred reply is ours to edit
		else await interaction.followUp({ content, flags: MessageFlags.Ephemeral });
	} catch (error) {
		ctx.logger.warn({ err: describeRestError(error) }, "discord: could not report a failure to the user");
	}
}

/**
 * How long the duplicate check may hold an interaction's first response (Discord allows 3 s).
 * Unlike Slack's, it comes before the response: two processes on one token both receive every
 * interaction, and the one that answers must be the one that does the work.
 */
const CLAIM_WAIT_MS = 500;

/** The INTERACTION_CREATE listener. */
export function createInteractionListener(ctx: ControlsContext): (interaction: Interaction) => void {
	return (interaction) => {
		const started = Date.now();
		const key = `discord:interaction:${interaction.id}`;
		const claims = ctx.controller.deliveries;
		// Discord never redelivers an interaction: a copy another process claimed is dropped whether or not that
		// process recorded it, so the claim is final at once (no pending step, no confirming write).
		claims
			.claimFinal(key, DELIVERY_TTL_MS.interaction, CLAIM_WAIT_MS)
			.then(async (verdict) => {
				if (verdict !== "first") return;
				await route(ctx, interaction);
			})
			.catch(async (error: unknown) => {
				ctx.logger.error(
					{
						err: error,
						rest: describeRestError(error),
						interactionId: interaction.id,
						type: interaction.type,
					},
					"discord: interaction handler failed",
				);
				await notifyFailure(ctx, interaction);
			})
			.finally(() =>
				ctx.logger.debug({ interactionId: interaction.id, ms: Date.now() - started }, "discord: interaction handled"),
			)
			.catch(() => {});
	};
}
