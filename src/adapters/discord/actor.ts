/**
 * The person behind a Discord interaction as the controller's Actor: who
 * they are, whether they may administer lessons (Manage Server, from the
 * interaction's own permission bits), and how to tell them something
 * privately: as the first response (`reply`), after a deferred update
 * (`followUp`), or in the deferred ephemeral reply (`editReply`).
 */

import { type Interaction, MessageFlags } from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";
import type { Actor } from "../lesson/port.ts";
import { interactionLocale } from "./notices.ts";
import { describeRestError } from "./rest-messages.ts";
import { isAdmin, participantOf } from "./who.ts";

/** How a notice reaches the person: which response it is to their interaction. */
export type NoticeRoute = "reply" | "followUp" | "editReply";

type Repliable = Extract<Interaction, { reply: unknown }>;

/** An Actor for a repliable interaction; its notices are ephemeral and mention no one. */
export function actorOf(interaction: Repliable, route: NoticeRoute, logger: Logger): Actor {
	const locale = interactionLocale(interaction);
	return {
		by: participantOf(interaction.user, interaction.member),
		...(locale ? { locale } : {}),
		isAdmin: async () => isAdmin(interaction.memberPermissions),
		async notify(content, picture) {
			const files = picture?.png
				? [{ attachment: picture.png, name: "plan.png", description: picture.caption.slice(0, 1024) }]
				: [];
			const body = { content: content.slice(0, 2000), allowedMentions: { parse: [] }, files };
			try {
				if (route === "editReply") await interaction.editReply(body);
				else await interaction[route]({ ...body, flags: MessageFlags.Ephemeral });
			} catch (error) {
				logger.warn({ err: describeRestError(error) }, "discord: a notice could not be sent");
			}
		},
	};
}
