/**
 * What every Slack handler shares (the Web API client, the lesson controller,
 * the admin check), and the person behind a request as the controller's
 * Actor: private notices go out as ephemeral messages (in the thread when
 * known), or through the command's response_url.
 */

import type { webApi } from "@slack/bolt";
import type { Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { Locale } from "../../i18n/index.ts";
import type { LessonController } from "../lesson/controller.ts";
import type { Actor, PlatformPort } from "../lesson/port.ts";
import type { AdminCheck } from "./admins.ts";
import { clip } from "./messages.ts";

/** Dependencies of the command, control and event handlers. */
export interface HandlerContext {
	client: webApi.WebClient;
	controller: LessonController;
	/** The port the controller posts through (its words for command replies: lesson/commands.ts). */
	port: PlatformPort;
	logger: Logger;
	admins: AdminCheck;
}

/** Where an ephemeral notice goes. */
export interface NoticeTarget {
	channelId: string;
	userId: string;
	threadTs?: string | undefined;
}

/** An ephemeral notice to one user (in the thread when given). Never throws. */
export async function notify(ctx: HandlerContext, target: NoticeTarget, text: string): Promise<void> {
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

/** The Actor of a Slack request; `reply` replaces the ephemeral notice (a command's response_url). */
export function slackActor(
	ctx: HandlerContext,
	by: Participant,
	target: NoticeTarget,
	reply?: (text: string) => Promise<void>,
	locale?: Locale,
): Actor {
	return {
		by,
		...(locale ? { locale } : {}),
		isAdmin: () => ctx.admins.isAdmin(by.id),
		notify: (text) => (reply ? reply(text) : notify(ctx, target, text)),
	};
}
