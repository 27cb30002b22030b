/**
 * An explanation streamed into a solo lesson's thread with Slack's chat streaming
 * (https://docs.slack.dev/reference/methods/chat.startStream, …/chat.appendStream,
 * …/chat.stopStream): start with the first chunk, append the rest, stop. Outside a DM Slack
 * wants the one recipient (`recipient_user_id`, `recipient_team_id`): the lesson's learner. The
 * engine hands over a whole explanation (the model's tool call), so the chunks are its
 * paragraphs sent one after another, not tokens as the model writes them. A start Slack refuses
 * leaves the card to the normal post; a workspace that refuses the methods for good (a missing
 * scope, `not_allowed`) is not asked again; text that could not be appended is finished with the
 * stop call, or handed back to be posted.
 */

import type { webApi } from "@slack/bolt";
import type { Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { REFUSED_FOR_GOOD, slackError } from "./status.ts";
import type { SlackThread } from "./thread-id.ts";

/** What a stream did: its message, and text it could not deliver (to post normally). */
export type StreamResult = { ts: string; unsent?: string } | undefined;

/** Streams over a Web API client: undefined when the card should be posted normally instead. Never rejects. */
export function createSlackStreams(
	client: webApi.WebClient,
	logger: Logger,
): (address: SlackThread, chunks: readonly string[], to: Participant) => Promise<StreamResult> {
	const off = new Set<string>();
	return async (address, chunks, to) => {
		const [first, ...rest] = chunks;
		if (first === undefined || off.has(address.teamId)) return undefined;
		const channel = address.channelId;
		let ts: string | undefined;
		try {
			ts = (
				await client.chat.startStream({
					channel,
					thread_ts: address.threadTs,
					recipient_team_id: address.teamId,
					recipient_user_id: to.id,
					markdown_text: first,
				})
			).ts;
		} catch (error) {
			const code = slackError(error);
			if (code && REFUSED_FOR_GOOD.has(code)) off.add(address.teamId);
			logger.warn({ err: error, code, channelId: channel }, "slack: chat.startStream refused; posting instead");
			return undefined;
		}
		if (!ts) return undefined;
		for (const [i, chunk] of rest.entries()) {
			try {
				await client.chat.appendStream({ channel, ts, markdown_text: chunk });
			} catch (error) {
				logger.warn({ err: error, channelId: channel }, "slack: chat.appendStream failed; finishing the stream");
				const left = rest.slice(i).join("");
				try {
					await client.chat.stopStream({ channel, ts, markdown_text: left });
					return { ts };
				} catch {
					return { ts, unsent: left };
				}
			}
		}
		try {
			await client.chat.stopStream({ channel, ts });
		} catch (error) {
			// The text is all there (only its end was not marked): logged, not posted again.
			logger.warn({ err: error, channelId: channel }, "slack: chat.stopStream failed");
		}
		return { ts };
	};
}
