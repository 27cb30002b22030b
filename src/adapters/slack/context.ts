/**
 * What every Slack handler shares (the Web API client, the lesson controller,
 * the admin check), and the person behind a request as the controller's
 * Actor: private notices go out as ephemeral messages (in the thread when
 * known), or through the command's response_url.
 */

import type { webApi } from "@slack/bolt";
import type { Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { LessonController } from "../lesson/controller.ts";
import type { Locale } from "../lesson/i18n.ts";
import type { Actor } from "../lesson/port.ts";
import type { AdminCheck } from "./admins.ts";
import { clip } from "./messages.ts";

/** Dependencies of the command, control and event handlers. */
export interface HandlerContext {
	client: webApi.WebClient;
	controller: LessonController;
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

/** A message's permalink (the lesson thread's, for its parent), or undefined when Slack gives none. Never throws. */
export async function threadLink(
	ctx: HandlerContext,
	channelId: string,
	messageTs: string,
): Promise<string | undefined> {
	try {
		const res = await ctx.client.chat.getPermalink({ channel: channelId, message_ts: messageTs });
		const link = res.permalink;
		// It goes inside <link|label>: only a plain https URL may.
		return typeof link === "string" && /^https:\/\/[^\s<>|]+$/.test(link) ? link : undefined;
	} catch (error) {
		ctx.logger.warn({ err: error, channelId }, "slack: chat.getPermalink failed");
		return undefined;
	}
}
