/**
 * What every Slack handler shares (the Web API client, the adapter state, the tutor,
 * the admin check), and the ephemeral notice helper used for "who may act" replies.
 */

import type { webApi } from "@slack/bolt";
import type { Logger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import { escapeMrkdwn, type PlanRenderer } from "../../render/index.ts";
import type { AnswerGate } from "../shared/answer-gate.ts";
import { type Refusal, type RefusedAction, refusalNotice } from "../shared/notices.ts";
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
	/** What may be checked before an ack (memory only): lessons, questions, answered. */
	gate: AnswerGate;
	now: () => Date;
}

const STYLE = { startHint: "`/lesson start <topic>`", escape: escapeMrkdwn };

/** The shared refusal notice in Slack's words; `learnerId` names whose lesson it is, when known. */
export function slackRefusal(refusal: Refusal, action: RefusedAction = "answer", learnerId?: string): string {
	return refusalNotice(refusal, STYLE, { action, ...(learnerId ? { learner: `<@${learnerId}>` } : {}) });
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
