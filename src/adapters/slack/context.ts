/**
 * What every Slack handler shares (the Web API client, the adapter state, the tutor,
 * the admin check), and the ephemeral notice helper used for "who may act" replies.
 */

import type { webApi } from "@slack/bolt";
import type { Logger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import type { PlanRenderer } from "../../render/index.ts";
import type { AdminCheck } from "./admins.ts";
import { clip } from "./messages.ts";
import type { SlackState } from "./state.ts";

/** Dependencies of the command, action, view and event handlers. */
export interface HandlerContext {
	client: webApi.WebClient;
	state: SlackState;
	tutor: Tutor;
	renderer: PlanRenderer;
	logger: Logger;
	admins: AdminCheck;
	now: () => Date;
}

/** An ephemeral notice to one user (in the thread when given). Never throws. */
export async function notify(
	ctx: HandlerContext,
	target: { channelId: string; userId: string; threadTs?: string | undefined },
	text: string,
): Promise<void> {
	try {
		await ctx.client.chat.postEphemeral({
			channel: target.channelId,
			user: target.userId,
			text: clip(text, 3000),
			...(target.threadTs ? { thread_ts: target.threadTs } : {}),
		});
	} catch (error) {
		ctx.logger.warn(
			{ err: error, channelId: target.channelId, userId: target.userId },
			"slack: ephemeral notice failed",
		);
	}
}
