/**
 * Discord's platform port: cards as messages over REST (the answered state
 * an edit of the card's last message, where its controls sit), the plan
 * picture as a PNG attachment (the outline as text when there is none),
 * typing, and a lesson's thread: a new public (or announcement) thread named
 * after the topic, or the thread the command ran in, opened with the intro.
 *
 * A turn started by a click goes out through that click's interaction (see
 * lesson/click-replies.ts): the clicked card is edited as `@original`, what
 * follows is posted as follow-ups. Interaction routes do not count against
 * the bot's global limit of 50 requests a second; channel routes do, and are
 * the fallback (an expired or failed token, a turn started by a typed message).
 */

import {
	type APIThreadChannel,
	ChannelType,
	type Client,
	type RawFile,
	Routes,
	ThreadAutoArchiveDuration,
} from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";
import {
	type Card,
	type DiscordMessage,
	discordPictureMessage,
	type PlanPicture,
	toDiscordMessages,
	withoutAttachments,
} from "../../render/index.ts";
import { type ClickReplies, type ClickReply, createClickReplies } from "../lesson/click-replies.ts";
import type { PlatformPort } from "../lesson/port.ts";
import { interactionRest } from "./interaction-rest.ts";
import { DISCORD_STYLE, helpText, introText } from "./notices.ts";
import {
	describeRestError,
	editMessage,
	editOriginal,
	findMessagesWithControls,
	type InteractionWebhook,
	type MessageBody,
	postFollowUp,
	postMessage,
} from "./rest-messages.ts";
import { type DiscordThread, decodeDiscordThreadId, encodeDiscordThreadId } from "./thread-id.ts";

const CONTENT_MAX = 2000;
const THREAD_NAME_MAX = 100;

/** "Typing…" shows only once a turn has posted nothing for this long (a fast turn sends no typing call). */
export const TYPING_DELAY_MS = 1_500;

/** How long a click's interaction token is used (Discord keeps it 15 minutes; a margin for a slow turn). */
export const INTERACTION_REPLY_MS = 14 * 60_000;

/** The clicks of each thread whose interactions carry the turn's output (one registry per adapter). */
export type InteractionReplies = ClickReplies<InteractionWebhook>;
type InteractionClick = ClickReply<InteractionWebhook>;

/** A registry of interaction replies, for createDiscordPort and the control handlers. */
export const createInteractionReplies = (): InteractionReplies =>
	createClickReplies<InteractionWebhook>(INTERACTION_REPLY_MS);

/** A thread name from a topic: one line, at most 100 characters, never empty. */
export function threadName(topic: string): string {
	const chars = [...(topic.replace(/\s+/g, " ").trim() || "Lesson")];
	if (chars.length <= THREAD_NAME_MAX) return chars.join("");
	return `${chars
		.slice(0, THREAD_NAME_MAX - 1)
		.join("")
		.trimEnd()}…`;
}

/**
 * Discord's port over a discord.js client (REST for everything it posts); `replies`: the clicks whose
 * interactions carry their turn's output (default: none are, everything goes through channel routes).
 */
export function createDiscordPort(
	client: Client,
	logger: Logger,
	replies: InteractionReplies = createInteractionReplies(),
): PlatformPort<DiscordThread> {
	const rest = client.rest;
	// Interaction webhooks go through the interaction REST (see interaction-rest.ts): outside the global limit.
	const hooks = interactionRest(client);
	const channelOf = (threadId: string) => decodeDiscordThreadId(threadId)?.threadId ?? "";

	/** `click` once its interaction is acknowledged (a click is acknowledged after its event is recorded); else undefined. */
	async function acked(threadId: string, click: InteractionClick | undefined): Promise<InteractionClick | undefined> {
		if (!click || (await (click.reply.acked ?? true))) return click;
		replies.forget(threadId, click);
		return undefined;
	}

	/** Post through the newest click of the thread while its token is good, else in the channel. */
	async function send(threadId: string, body: MessageBody, files?: RawFile[]): Promise<string | undefined> {
		const click = await acked(threadId, replies.latest(threadId));
		if (click) {
			const id = await postFollowUp(hooks, logger, click.reply, body, files);
			if (id) return id;
			replies.forget(threadId, click);
		}
		return postMessage(rest, logger, channelOf(threadId), body, files);
	}

	/** Post one V2 message; its pictures refused (too big, no permission to attach): the text alone (it carries the TeX). */
	async function sendCard(threadId: string, message: DiscordMessage): Promise<string | undefined> {
		const { files, ...body } = message;
		const id = await send(threadId, body, files);
		if (id || files === undefined) return id;
		const { files: _none, ...text } = withoutAttachments(message);
		return send(threadId, text);
	}

	async function postCard(threadId: string, card: Card): Promise<string[]> {
		const ids: string[] = [];
		for (const message of toDiscordMessages(card)) {
			const id = await sendCard(threadId, message);
			if (id) ids.push(id);
		}
		return ids;
	}

	return {
		name: "discord",
		// The modal must BE the first response, within 3 s of the click; "typing" shows about 10 s per call.
		limits: { formPrecheckMs: 1_500, typingRefreshMs: 8_000, typingDelayMs: TYPING_DELAY_MS, replyChars: CONTENT_MAX },
		style: DISCORD_STYLE,
		// A review is the member's own: in ephemeral replies, not a public thread.
		reviewsPrivately: true,
		helpText,
		// A channel mention is its own link (and names the thread), whatever the label.
		threadLink: async (threadId) => {
			const address = decodeDiscordThreadId(threadId);
			return address ? `<#${address.threadId}>` : undefined;
		},
		encodeThreadId: encodeDiscordThreadId,
		decodeThreadId: decodeDiscordThreadId,
		postCard,
		findCard: (threadId, toolCallId) => findMessagesWithControls(rest, logger, channelOf(threadId), toolCallId),
		async editCard(threadId, messageIds, card) {
			const [first] = toDiscordMessages(card);
			const target = messageIds.at(-1); // the controls ride on the last message of a card
			if (!first || !target) return false;
			// No `attachments` in the edit: the card's pictures (formulas, the choices) stay on the message. The edit
			// sends the IS_COMPONENTS_V2 flag again and no `content` (Discord cannot remove the flag).
			const { files: _files, attachments: _attachments, ...edit } = withoutAttachments(first);
			// Clicked: the card is the click's `@original` (a deleted one or a dead token: the channel route decides).
			const click = await acked(threadId, replies.onMessage(threadId, target));
			if (click) {
				const outcome = await editOriginal(hooks, logger, click.reply, edit);
				if (outcome === "ok") return true;
				if (outcome === "failed") replies.forget(threadId, click);
			}
			const outcome = await editMessage(rest, logger, channelOf(threadId), target, edit);
			return outcome !== "gone";
		},
		async postPicture(threadId, picture: PlanPicture) {
			const caption = `🗺️ ${picture.caption}`;
			if (picture.png) {
				// The map inside a card, its alt text the gallery item's description (Discord allows 1,024 characters).
				const { files, ...body } = discordPictureMessage({ caption, alt: picture.alt, png: picture.png });
				if (await send(threadId, body, files)) return true;
			}
			const outline: Card = { kind: "text", tone: "plain", text: `${caption}\n\n${picture.outline}` };
			return (await postCard(threadId, outline)).length > 0;
		},
		startTyping: async (threadId) => void (await rest.post(Routes.channelTyping(channelOf(threadId)))),
		async openThread(place, intro) {
			let threadId = place.threadId ? channelOf(place.threadId) : "";
			if (threadId) {
				// A thread the bot did not create: join it so its messages reach the bot for sure.
				await rest.put(Routes.threadMembers(threadId, "@me")).catch((error: unknown) => {
					logger.warn({ err: describeRestError(error), threadId }, "discord: joining the lesson thread failed");
				});
			} else {
				// Discord creates announcement threads (type 10) under announcement channels, public threads (11) elsewhere.
				const parent = await client.channels.fetch(place.channelId).catch(() => null);
				const type =
					parent?.type === ChannelType.GuildAnnouncement ? ChannelType.AnnouncementThread : ChannelType.PublicThread;
				try {
					const thread = (await rest.post(Routes.threads(place.channelId), {
						body: { name: threadName(intro.topic), type, auto_archive_duration: ThreadAutoArchiveDuration.OneDay },
						reason: `learnharness lesson for ${intro.learner.id}`,
					})) as APIThreadChannel;
					threadId = thread.id;
				} catch (error) {
					logger.warn(
						{ err: describeRestError(error), channelId: place.channelId },
						"discord: creating a thread failed",
					);
					return {
						ok: false,
						message:
							"I could not open a thread here. Check that I may create public threads and send messages in threads in this channel.",
					};
				}
			}
			await postMessage(rest, logger, threadId, {
				content: introText(intro),
				allowed_mentions: { parse: [], users: [intro.learner.id] },
			});
			return { ok: true, threadId: encodeDiscordThreadId({ guildId: place.community, threadId }) };
		},
		async closeThread(threadId, place) {
			if (place.threadId) return; // not ours to delete
			await rest.delete(Routes.channel(channelOf(threadId))).catch((error: unknown) => {
				logger.warn({ err: describeRestError(error), threadId }, "discord: deleting an unused thread failed");
			});
		},
	};
}
