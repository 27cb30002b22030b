/**
 * The person behind a Discord interaction as the controller's Actor: who
 * they are, whether they may administer lessons (Manage Server, from the
 * interaction's own permission bits), and how to tell them something
 * privately (a notice, or a card with working controls): as the first
 * response (`reply`), after a deferred update (`followUp`), or in the
 * deferred ephemeral reply (`editReply`). In the member's DM with the bot
 * nobody else can see the channel, so there nothing is ephemeral: a review
 * there posts in the DM itself. Cards go as Components V2 messages.
 */

import { type Interaction, MessageFlags } from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";
import { toDiscordMessages } from "../../render/index.ts";
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
	// No guild: the bot's DM (or a group DM the user-installed app was used in): private already.
	const inDm = interaction.guildId === null;
	const notice = inDm ? undefined : MessageFlags.Ephemeral;
	const v2 = inDm ? MessageFlags.IsComponentsV2 : ([MessageFlags.Ephemeral, MessageFlags.IsComponentsV2] as const);
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
				else await interaction[route]({ ...body, flags: notice });
			} catch (error) {
				logger.warn({ err: describeRestError(error) }, "discord: a notice could not be sent");
			}
		},
		// A card only they see, its controls working (a private review's question): in the same response as notices.
		async show(shown) {
			for (const [i, m] of toDiscordMessages(shown).entries()) {
				const files = (m.files ?? []).map((f, k) => ({
					attachment: f.data,
					name: f.name,
					...(m.attachments?.[k]?.description ? { description: m.attachments[k]?.description } : {}),
				}));
				const body = { components: m.components, allowedMentions: { parse: [] }, files };
				try {
					// A deferred reply takes the V2 flag in its edit (its ephemeral flag came with the deferral).
					if (i === 0 && route === "editReply")
						await interaction.editReply({ ...body, flags: MessageFlags.IsComponentsV2 });
					else if (i === 0 && route === "reply") await interaction.reply({ ...body, flags: v2 });
					else await interaction.followUp({ ...body, flags: v2 });
				} catch (error) {
					logger.warn({ err: describeRestError(error) }, "discord: a private card could not be sent");
					return;
				}
			}
		},
	};
}
