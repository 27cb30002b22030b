/**
 * The App Home tab: when a member opens it (`app_home_opened`, tab `home`), the bot publishes
 * their progress per topic, the reviews due now with **Review now**, or when the next is due
 * (`views.publish`; the view is render's `slackHomeView`). **Review now** starts the same review
 * as `/lesson review` (the profile flows' review), in a thread of the member's direct messages
 * with the bot (typed answers there arrive as `message.im` events), and the tab is published
 * again. A failure is logged; the event is answered at once (publishing runs after it).
 */

import type { App, BlockAction } from "@slack/bolt";
import type { Participant } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, type Locale } from "../../i18n/index.ts";
import { slackHomeView } from "../../render/index.ts";
import { type HandlerContext, slackActor } from "./context.ts";
import { HOME_REVIEW_ACTION_ID } from "./messages.ts";

/** Publish `userId`'s Home tab in `teamId`; false when it could not be (logged). Never rejects. */
export async function publishHome(ctx: HandlerContext, teamId: string, userId: string): Promise<boolean> {
	try {
		const locale: Locale = (await ctx.admins.locale(userId)) ?? DEFAULT_LOCALE;
		const overview = (await ctx.controller.profile?.overview({ id: userId }, teamId, locale)) ?? { topics: [], due: 0 };
		await ctx.client.views.publish({
			user_id: userId,
			view: slackHomeView({ ...overview, reviewActionId: HOME_REVIEW_ACTION_ID, locale }),
		});
		return true;
	} catch (error) {
		ctx.logger.warn({ err: error, userId }, "slack: the Home tab could not be published");
		return false;
	}
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** Register the Home tab's event and its Review now button. */
export function registerHome(app: App, ctx: HandlerContext): void {
	app.event("app_home_opened", async ({ body, event }) => {
		const e = event as unknown as Record<string, unknown>;
		const teamId = str((body as unknown as Record<string, unknown>).team_id);
		const userId = str(e.user);
		if (e.tab !== "home" || !teamId || !userId) return;
		// Answered now; the tab is published after (its reads and views.publish never hold Slack's 3 s).
		void publishHome(ctx, teamId, userId);
	});

	app.action<BlockAction>(HOME_REVIEW_ACTION_ID, async ({ ack, body }) => {
		await ack();
		const teamId = body.team?.id ?? body.user.team_id;
		const flows = ctx.controller.profile;
		if (!teamId || !flows) return;
		const name = body.user.username ?? body.user.name;
		const by: Participant = name ? { id: body.user.id, name } : { id: body.user.id };
		try {
			// The review's thread opens in the member's DM with the bot: private, and typed answers reach us there.
			const channelId = (await ctx.client.conversations.open({ users: by.id })).channel?.id;
			if (!channelId) return;
			const locale = await ctx.admins.locale(by.id);
			const actor = slackActor(ctx, by, { channelId, userId: by.id }, undefined, locale);
			await flows.review.start(actor, { community: teamId, channelId });
		} catch (error) {
			ctx.logger.warn({ err: error, userId: by.id }, "slack: Review now from the Home tab failed");
		}
		await publishHome(ctx, teamId, by.id);
	});
}
