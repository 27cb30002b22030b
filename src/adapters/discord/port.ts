/**
 * Discord's platform port: cards as messages over REST (the answered state
 * an edit of the card's last message, where its controls sit), the plan
 * picture as a PNG attachment (the outline as text when there is none),
 * typing, and a lesson's thread: a new public (or announcement) thread named
 * after the topic, or the thread the command ran in, opened with the intro.
 */

import { type APIThreadChannel, ChannelType, type Client, Routes, ThreadAutoArchiveDuration } from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";
import { type Card, type PlanPicture, splitMessage, toDiscordMessages } from "../../render/index.ts";
import type { PlatformPort } from "../lesson/port.ts";
import { DISCORD_STYLE, introText } from "./notices.ts";
import { describeRestError, editMessage, postMessage } from "./rest-messages.ts";
import { type DiscordThread, decodeDiscordThreadId, encodeDiscordThreadId } from "./thread-id.ts";

const CONTENT_MAX = 2000;
const THREAD_NAME_MAX = 100;

/** A thread name from a topic: one line, at most 100 characters, never empty. */
export function threadName(topic: string): string {
	const chars = [...(topic.replace(/\s+/g, " ").trim() || "Lesson")];
	if (chars.length <= THREAD_NAME_MAX) return chars.join("");
	return `${chars
		.slice(0, THREAD_NAME_MAX - 1)
		.join("")
		.trimEnd()}…`;
}

/** Discord's port over a discord.js client (REST for everything it posts). */
export function createDiscordPort(client: Client, logger: Logger): PlatformPort<DiscordThread> {
	const rest = client.rest;
	const channelOf = (threadId: string) => decodeDiscordThreadId(threadId)?.threadId ?? "";

	async function postCard(threadId: string, card: Card): Promise<string[]> {
		const ids: string[] = [];
		for (const { files, ...body } of toDiscordMessages(card)) {
			let id = await postMessage(rest, logger, channelOf(threadId), body, files);
			// Pictures refused (too big, no permission to attach): the text alone still carries the TeX.
			if (!id && files !== undefined) {
				const { attachments: _dropped, ...text } = body;
				id = await postMessage(rest, logger, channelOf(threadId), text);
			}
			if (id) ids.push(id);
		}
		return ids;
	}

	return {
		name: "discord",
		// The modal must BE the first response, within 3 s of the click; "typing" shows about 10 s per call.
		limits: { formPrecheckMs: 1_500, typingRefreshMs: 8_000 },
		style: DISCORD_STYLE,
		encodeThreadId: encodeDiscordThreadId,
		decodeThreadId: decodeDiscordThreadId,
		postCard,
		async editCard(threadId, messageIds, card) {
			const [first] = toDiscordMessages(card);
			const target = messageIds.at(-1); // the controls ride on the last message of a card
			if (!first || !target) return false;
			// No `attachments` in the edit: the card's pictures (formulas, the choices) stay on the message.
			const { files: _files, attachments: _attachments, ...message } = first;
			const outcome = await editMessage(rest, logger, channelOf(threadId), target, { components: [], ...message });
			return outcome !== "gone";
		},
		async postPicture(threadId, picture: PlanPicture) {
			const channelId = channelOf(threadId);
			const caption = picture.caption.slice(0, CONTENT_MAX);
			if (picture.png) {
				const body = {
					content: `🗺️ ${caption}`.slice(0, CONTENT_MAX),
					// The description is the picture's alt text for screen readers (Discord allows 1,024 characters).
					attachments: [{ id: 0, filename: "plan.png", description: (picture.alt || caption).slice(0, 1024) }],
				};
				const file = { name: "plan.png", data: picture.png, contentType: "image/png" };
				if (await postMessage(rest, logger, channelId, body, [file])) return true;
			}
			let posted = false;
			for (const chunk of splitMessage(`🗺️ ${caption}\n\n${picture.outline}`, CONTENT_MAX))
				posted = (await postMessage(rest, logger, channelId, { content: chunk })) !== undefined || posted;
			return posted;
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
