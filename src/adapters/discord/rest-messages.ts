/**
 * Posting and editing messages over discord.js's REST client. @discordjs/rest
 * already queues per route and waits out 429s (retry-after) and retries 5xx;
 * what is left here is turning any remaining failure into a log line and an
 * `undefined`, so one failed post never stops a lesson.
 */

import { type APIMessage, DiscordAPIError, HTTPError, type RawFile, type REST, Routes } from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";
import { carriesControlsOf, type DiscordMessage } from "../../render/index.ts";

/** A message body we send: a rendered card, or a notice. */
export type MessageBody = Partial<DiscordMessage> & {
	content?: string;
	attachments?: Array<{ id: number; filename: string; description?: string }>;
};

const NO_MENTIONS = { parse: [] as [] };

/** A compact, loggable description of a REST failure (status, Discord's code and message). */
export function describeRestError(error: unknown): Record<string, unknown> {
	if (error instanceof DiscordAPIError)
		return { status: error.status, code: error.code, message: error.message, url: error.url };
	if (error instanceof HTTPError) return { status: error.status, message: error.message, url: error.url };
	return { message: error instanceof Error ? error.message : String(error) };
}

/** Whether a REST failure means the message is gone (deleted, or the channel is). */
export function isUnknownTarget(error: unknown): boolean {
	return error instanceof DiscordAPIError && (error.code === 10008 || error.code === 10003);
}

/** Post a message; its id, or undefined when Discord refused it (logged). */
export async function postMessage(
	rest: REST,
	logger: Logger,
	channelId: string,
	body: MessageBody,
	files?: RawFile[],
): Promise<string | undefined> {
	try {
		const message = (await rest.post(Routes.channelMessages(channelId), {
			body: { allowed_mentions: NO_MENTIONS, ...body },
			...(files && files.length > 0 ? { files } : {}),
		})) as APIMessage;
		return message.id;
	} catch (error) {
		logger.error({ err: describeRestError(error), channelId }, "discord: posting a message failed");
		return undefined;
	}
}

/** Edit a message; "ok", "gone" (deleted: post anew) or "failed" (logged). */
export async function editMessage(
	rest: REST,
	logger: Logger,
	channelId: string,
	messageId: string,
	body: MessageBody,
): Promise<"ok" | "gone" | "failed"> {
	try {
		await rest.patch(Routes.channelMessage(channelId, messageId), { body: { allowed_mentions: NO_MENTIONS, ...body } });
		return "ok";
	} catch (error) {
		if (isUnknownTarget(error)) return "gone";
		logger.error({ err: describeRestError(error), channelId, messageId }, "discord: editing a message failed");
		return "failed";
	}
}

/** A click's way back: its application and interaction token (valid 15 minutes after the click). */
export interface InteractionWebhook {
	applicationId: string;
	token: string;
	/** Settles once the interaction is acknowledged (false: it was not, so its webhook is not usable); absent: it is. */
	acked?: Promise<boolean>;
}

/**
 * Post a message as a follow-up of an interaction (in the interaction's channel: the lesson thread). Interaction
 * webhooks do not count against the bot's global rate limit. Its id, or undefined when Discord refused it (logged).
 */
export async function postFollowUp(
	rest: REST,
	logger: Logger,
	hook: InteractionWebhook,
	body: MessageBody,
	files?: RawFile[],
): Promise<string | undefined> {
	try {
		const message = (await rest.post(Routes.webhook(hook.applicationId, hook.token), {
			auth: false,
			query: new URLSearchParams({ wait: "true" }),
			body: { allowed_mentions: NO_MENTIONS, ...body },
			...(files && files.length > 0 ? { files } : {}),
		})) as APIMessage;
		return message.id;
	} catch (error) {
		logger.warn({ err: describeRestError(error) }, "discord: a follow-up failed; posting in the channel");
		return undefined;
	}
}

/** Edit the message a deferred click came from (`@original`); "ok", "gone" (deleted) or "failed" (logged). */
export async function editOriginal(
	rest: REST,
	logger: Logger,
	hook: InteractionWebhook,
	body: MessageBody,
): Promise<"ok" | "gone" | "failed"> {
	try {
		await rest.patch(Routes.webhookMessage(hook.applicationId, hook.token, "@original"), {
			auth: false,
			body: { allowed_mentions: NO_MENTIONS, ...body },
		});
		return "ok";
	} catch (error) {
		if (error instanceof DiscordAPIError && error.code === 10008) return "gone";
		logger.warn(
			{ err: describeRestError(error) },
			"discord: editing the clicked card failed; editing it in the channel",
		);
		return "failed";
	}
}

/** How many of a thread's newest messages are searched for a card a dead process posted (Discord's page size). */
export const FIND_CARD_MESSAGES = 100;

/**
 * The ids (oldest first) of the thread's newest messages whose components are controls of `toolCallId`;
 * undefined when Discord could not be asked (logged).
 */
export async function findMessagesWithControls(
	rest: REST,
	logger: Logger,
	channelId: string,
	toolCallId: string,
): Promise<string[] | undefined> {
	try {
		const page = await rest.get(Routes.channelMessages(channelId), {
			query: new URLSearchParams({ limit: String(FIND_CARD_MESSAGES) }),
		});
		if (!Array.isArray(page)) return undefined;
		return page
			.filter((m): m is APIMessage => typeof (m as APIMessage | null)?.id === "string")
			.filter((m) => carriesControlsOf(m.components, toolCallId))
			.map((m) => m.id)
			.reverse();
	} catch (error) {
		logger.warn({ err: describeRestError(error), channelId }, "discord: reading the thread's messages failed");
		return undefined;
	}
}
