/**
 * Slack's platform port: cards via chat.postMessage in the lesson's thread
 * (plain text when Slack refuses the blocks; a solo lesson's explanation
 * streamed to its learner instead: stream.ts), the working status under the
 * thread (status.ts), the answered state via
 * chat.update of the card's own messages, a card's pictures shared in the
 * thread before it (pictures.ts), the plan picture via upload.ts (the
 * outline as text when there is no PNG), and the lesson's parent message:
 * its intro (with the End button), "could not start", "ended".
 *
 * A card someone clicked is updated through the click's response_url
 * (`replace_original`) instead: chat.update is a Tier 3 method (about 50 a
 * minute per workspace), a response_url is no Web API call at all (Slack
 * allows 5 uses in 30 minutes). chat.update stays for cards nobody clicked.
 */

import type { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import type { Logger } from "../../core/contracts/logger.ts";
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import {
	type Card,
	carriesControlsOf,
	escapeMrkdwn,
	type PlanPicture,
	type SlackMessage,
	splitMessage,
	toSlackMessages,
	toSlackStream,
} from "../../render/index.ts";
import { type ClickReplies, createClickReplies } from "../lesson/click-replies.ts";
import type { PlatformPort } from "../lesson/port.ts";
import {
	clip,
	endedParentMessage,
	helpText,
	LESSON_COMMAND,
	parentMessage,
	SLACK_STYLE,
	type SlackBody,
} from "./messages.ts";
import { createSlackPictures } from "./pictures.ts";
import { createSlackStatus, slackError } from "./status.ts";
import { createSlackStreams } from "./stream.ts";
import { decodeSlackThreadId, encodeSlackThreadId, type SlackThread } from "./thread-id.ts";
import { uploadToSlack } from "./upload.ts";

const textBody = (text: string): SlackBody[] =>
	splitMessage(text, 3000).map((part) => ({
		text: clip(part, 3000),
		blocks: [{ type: "section", text: { type: "mrkdwn", text: part } } satisfies KnownBlock],
	}));

/** A click's response_url and how often it was used. */
export interface ResponseUrl {
	url: string;
	uses: number;
}

/** How long a response_url is used (Slack: 30 minutes), and how often (Slack: 5 times). */
export const RESPONSE_URL_MS = 29 * 60_000;
const RESPONSE_URL_USES = 5;
const RESPOND_TIMEOUT_MS = 10_000;
/** conversations.replies pages read when looking for a card a dead process posted (Tier 3: rare, bounded). */
const FIND_CARD_PAGES = 5;
const FIND_CARD_PAGE_SIZE = 200;

/** The clicks of each thread whose response_urls update the clicked cards (one registry per adapter). */
export type SlackClicks = ClickReplies<ResponseUrl>;

/** A registry of clicks, for createSlackPort and the control handlers. */
export const createSlackClicks = (): SlackClicks => createClickReplies<ResponseUrl>(RESPONSE_URL_MS);

/** Replace the clicked message through its response_url; false when Slack refused (or did not answer in time). */
async function replaceOriginal(url: string, body: SlackBody | SlackMessage, logger: Logger): Promise<boolean> {
	try {
		const res = await fetch(url, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ replace_original: true, text: body.text, blocks: body.blocks }),
			signal: AbortSignal.timeout(RESPOND_TIMEOUT_MS),
		});
		const text = await res.text();
		// Slack answers "ok" (or {"ok":true}); an expired or used URL answers 404 with an error.
		if (res.ok && !/"ok"\s*:\s*false/.test(text)) return true;
		logger.warn({ status: res.status, body: text.slice(0, 200) }, "slack: response_url refused; using chat.update");
	} catch (error) {
		logger.warn({ err: error }, "slack: response_url failed; using chat.update");
	}
	return false;
}

/** Slack's port over a Web API client; `clicks`: the clicks whose response_urls update their cards (default none). */
export function createSlackPort(
	client: webApi.WebClient,
	logger: Logger,
	clicks: SlackClicks = createSlackClicks(),
): PlatformPort<SlackThread> {
	const pictures = createSlackPictures(client, logger);
	const stream = createSlackStreams(client, logger);
	const where = (threadId: string) => {
		const a = decodeSlackThreadId(threadId);
		return { channel: a?.channelId ?? "", thread_ts: a?.threadTs ?? "" };
	};

	const post = async (threadId: string, message: SlackMessage | SlackBody): Promise<string | undefined> => {
		const base = { ...where(threadId), unfurl_links: false, unfurl_media: false };
		try {
			return (await client.chat.postMessage({ ...base, text: message.text, blocks: message.blocks as KnownBlock[] }))
				.ts;
		} catch (refused) {
			let error = refused;
			// A card whose pictures Slack refuses ("invalid_blocks": a file not ready or not shared here) keeps its text
			// and its controls: the formulas are in the text as code already.
			const pictureless = message.blocks.filter((b) => !(b.type === "image" && "slack_file" in b));
			if (pictureless.length > 0 && pictureless.length < message.blocks.length)
				try {
					logger.warn({ err: error, sessionId: threadId }, "slack: a card's pictures were refused; posting it without");
					return (await client.chat.postMessage({ ...base, text: message.text, blocks: pictureless as KnownBlock[] }))
						.ts;
				} catch (again) {
					error = again;
				}
			logger.error({ err: error, sessionId: threadId }, "slack: posting a message failed; trying plain text");
			try {
				return (
					await client.chat.postMessage({ ...base, text: clip(message.text || "(message could not be shown)", 3000) })
				).ts;
			} catch (again) {
				logger.error({ err: again, sessionId: threadId }, "slack: posting plain text failed too");
				return undefined;
			}
		}
	};

	/** Shares a message's files (long code) in the thread. */
	const shareFiles = async (threadId: string, message: SlackMessage | SlackBody): Promise<void> => {
		const files = "files" in message ? (message.files ?? []) : [];
		const { channel, thread_ts } = where(threadId);
		for (const f of files) {
			await uploadToSlack(client, {
				channelId: channel,
				threadTs: thread_ts,
				data: f.data,
				filename: f.filename,
				title: f.title,
			}).catch((error: unknown) =>
				logger.warn({ err: error, sessionId: threadId }, "slack: a code file did not upload"),
			);
		}
	};

	/** A message with its pictures shared in the lesson's thread first (pictures.ts). */
	const withImages = (threadId: string, m: SlackMessage | SlackBody): Promise<SlackMessage | SlackBody> => {
		if (!("images" in m)) return Promise.resolve(m);
		const { channel, thread_ts } = where(threadId);
		return pictures.attach(m, { channel, threadTs: thread_ts }, threadId);
	};

	const postAll = async (threadId: string, messages: (SlackMessage | SlackBody)[]): Promise<string[]> => {
		const posted: string[] = [];
		for (const m of messages) {
			const ts = await post(threadId, await withImages(threadId, m));
			if (ts) posted.push(ts);
			await shareFiles(threadId, m);
		}
		return posted;
	};

	/** Update a card's message: through the newest click on it while its response_url is good, else chat.update. */
	const updateCard = async (threadId: string, ts: string, body: SlackBody | SlackMessage): Promise<boolean> => {
		const click = clicks.onMessage(threadId, ts);
		if (click) {
			click.reply.uses++;
			if (click.reply.uses >= RESPONSE_URL_USES) clicks.forget(threadId, click);
			if (await replaceOriginal(click.reply.url, body, logger)) return true;
			clicks.forget(threadId, click);
		}
		return update(where(threadId).channel, ts, body);
	};

	const update = async (channel: string, ts: string, body: SlackBody | SlackMessage): Promise<boolean> => {
		try {
			await client.chat.update({ channel, ts, text: body.text, blocks: body.blocks as KnownBlock[] });
			return true;
		} catch (error) {
			logger.warn({ err: error, channel, ts }, "slack: chat.update failed");
			return false;
		}
	};

	return {
		name: "slack",
		// views.open's trigger_id dies 3 s after the click.
		limits: { formPrecheckMs: 1_500, replyChars: 3_000 },
		style: SLACK_STYLE,
		helpText: (locale) => helpText(LESSON_COMMAND, locale),
		async threadLink(threadId, label) {
			// The permalink of the lesson's parent message (its thread hangs from it); it goes inside <link|label>.
			const address = decodeSlackThreadId(threadId);
			if (!address) return undefined;
			try {
				const res = await client.chat.getPermalink({ channel: address.channelId, message_ts: address.threadTs });
				const link = res.permalink;
				return typeof link === "string" && /^https:\/\/[^\s<>|]+$/.test(link) ? `<${link}|${label}>` : undefined;
			} catch (error) {
				logger.warn({ err: error, channelId: address.channelId }, "slack: chat.getPermalink failed");
				return undefined;
			}
		},
		encodeThreadId: encodeSlackThreadId,
		decodeThreadId: decodeSlackThreadId,
		streams: true,
		workStatus: createSlackStatus(client, logger),
		async postCard(threadId, card: Card, options) {
			// A solo lesson's explanation streams to its learner (chat streaming); anything else, or a refusal, is posted.
			const chunks = options?.streamTo ? toSlackStream(card) : undefined;
			const address = chunks ? decodeSlackThreadId(threadId) : undefined;
			if (chunks && address && options?.streamTo) {
				const streamed = await stream(address, chunks, options.streamTo);
				if (streamed?.unsent) await postAll(threadId, textBody(streamed.unsent));
				if (streamed) return [streamed.ts];
			}
			return postAll(threadId, toSlackMessages(card));
		},
		async findCard(threadId, toolCallId) {
			const { channel, thread_ts } = where(threadId);
			const found: string[] = [];
			let cursor: string | undefined;
			try {
				// The thread oldest first, a page at a time (a lesson's thread is a few hundred messages at most).
				for (let page = 0; page < FIND_CARD_PAGES; page++) {
					const res = await client.conversations.replies({
						channel,
						ts: thread_ts,
						limit: FIND_CARD_PAGE_SIZE,
						...(cursor ? { cursor } : {}),
					});
					for (const m of res.messages ?? [])
						if (typeof m.ts === "string" && carriesControlsOf(m.blocks, toolCallId)) found.push(m.ts);
					cursor = res.response_metadata?.next_cursor || undefined;
					if (!res.has_more || !cursor) return found;
				}
				return found;
			} catch (error) {
				logger.warn({ err: error, sessionId: threadId }, "slack: reading the thread's messages failed");
				return undefined;
			}
		},
		async editCard(threadId, messageIds, card) {
			if (messageIds.length === 0) return false;
			const next = toSlackMessages(card);
			// Align from the end: the controls sit in a card's last message, so that one must become the answered state.
			const pairs = Math.min(messageIds.length, next.length);
			const { channel } = where(threadId);
			for (let k = 1; k <= pairs; k++) {
				const message = next[next.length - k]!;
				// An edit's picture blocks show files already shared here (pictures.ts), never an empty file id.
				if (!(await updateCard(threadId, messageIds[messageIds.length - k]!, pictures.reuse(message, channel))))
					await post(threadId, await withImages(threadId, message));
			}
			await postAll(threadId, next.slice(0, next.length - pairs));
			return true;
		},
		async postDirect(_community, userId, card: Card) {
			// A DM has no lesson thread: its messages are top-level there (a click on them reads as a DM click).
			try {
				const channel = (await client.conversations.open({ users: userId })).channel?.id;
				if (!channel) return false;
				let posted = 0;
				for (const part of toSlackMessages(card)) {
					const m = await pictures.attach(part, { channel });
					const res = await client.chat.postMessage({ channel, text: m.text, blocks: m.blocks as KnownBlock[] });
					if (res.ts) posted++;
				}
				return posted > 0;
			} catch (error) {
				logger.warn({ err: error }, "slack: a direct message could not be sent");
				return false;
			}
		},
		async postPicture(threadId, picture: PlanPicture) {
			if (picture.png) {
				try {
					const { channel, thread_ts } = where(threadId);
					await uploadToSlack(client, {
						channelId: channel,
						threadTs: thread_ts,
						data: picture.png,
						filename: "lesson-plan.png",
						title: picture.caption || "Lesson plan",
						initialComment: clip(picture.caption, 1000),
						alt: picture.alt || picture.outline || picture.caption,
					});
					return true;
				} catch (error) {
					logger.error({ err: error, sessionId: threadId }, "slack: plan upload failed; posting the outline");
				}
			}
			const text = `${escapeMrkdwn(picture.caption)}\n\`\`\`\n${escapeMrkdwn(picture.outline)}\n\`\`\``;
			return (await postAll(threadId, textBody(text))).length > 0;
		},
		async openThread(place, intro) {
			const locale = intro.language ?? DEFAULT_LOCALE;
			// A thread that exists already (the agent pane's app thread): the lesson runs in it, if it is this place's.
			if (place.threadId) {
				const given = decodeSlackThreadId(place.threadId);
				return given && given.teamId === place.community && given.channelId === place.channelId
					? { ok: true, threadId: place.threadId }
					: { ok: false, message: t(locale, "slack.noParent") };
			}
			const parent = parentMessage(intro.topic, intro.learner.id, intro.mode, locale);
			try {
				const res = await client.chat.postMessage({
					channel: place.channelId,
					text: parent.text,
					blocks: parent.blocks,
				});
				if (res.ts)
					return {
						ok: true,
						threadId: encodeSlackThreadId({ teamId: place.community, channelId: place.channelId, threadTs: res.ts }),
					};
				return { ok: false, message: t(locale, "slack.noParent") };
			} catch (error) {
				logger.warn({ err: error, channelId: place.channelId }, "slack: could not post a lesson's parent message");
				const code = slackError(error);
				if (code === "not_in_channel" || code === "channel_not_found" || code === "is_archived")
					return { ok: false, message: t(locale, "slack.cantPost") };
				return { ok: false, message: t(locale, "slack.notAccepted") };
			}
		},
		async closeThread(threadId, place, why) {
			const { channel, thread_ts } = where(threadId);
			// Not our message to edit (the pane's thread): the reason goes into the thread instead.
			if (place.threadId) {
				await postAll(
					threadId,
					textBody(t(DEFAULT_LOCALE, "slack.couldNotStart", { why: escapeMrkdwn(clip(why, 500)) })),
				);
				return;
			}
			await update(channel, thread_ts, {
				text: t(DEFAULT_LOCALE, "slack.couldNotStart", { why: escapeMrkdwn(clip(why, 500)) }),
				blocks: [],
			});
		},
		async lessonEnded(threadId, intro, event) {
			const locale = intro.language ?? DEFAULT_LOCALE;
			const who = `<@${event.by?.id ?? intro.learner.id}>`;
			const how =
				event.reason === "completed"
					? t(locale, "slack.endedRecap")
					: t(locale, event.reason === "ended-by-admin" ? "slack.endedByAdmin" : "slack.endedBy", { who });
			const { channel, thread_ts } = where(threadId);
			await update(channel, thread_ts, endedParentMessage(intro.topic, intro.learner.id, how, locale));
		},
	};
}
