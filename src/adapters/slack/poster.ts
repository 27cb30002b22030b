/**
 * Tutor events → Slack calls in the lesson's thread: cards via chat.postMessage, the
 * answered state via chat.update of the card's own messages, the plan picture via
 * files.uploadV2 when it changed (a text outline when there is no PNG), and the ended state on the
 * parent message. Called one event at a time per session (see serial-queue.ts).
 */

import type { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import type { TutorEvent } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { decodeSessionId } from "../../core/session-id.ts";
import {
	answeredCard,
	cardFromEvent,
	escapeMrkdwn,
	markdownToMrkdwn,
	type PlanPicture,
	type PlanRenderer,
	type SlackMessage,
	splitMessage,
	toSlackMessages,
} from "../../render/index.ts";
import { closingLine } from "../shared/notices.ts";
import { createPlanReposter } from "../shared/plan-reposts.ts";
import { clip, endedParentMessage, type SlackBody } from "./messages.ts";
import type { SlackState } from "./state.ts";

/** What the poster needs. */
export interface PosterDeps {
	client: webApi.WebClient;
	state: SlackState;
	renderer: PlanRenderer;
	logger: Logger;
}

type Thread = { sessionId: string; channelId: string; threadTs: string };

/** Turns tutor events into Slack calls. */
export interface Poster {
	/** Post what `event` says into its thread (a question or explanation under `lead`). Must not throw (failures are logged). */
	handle(event: TutorEvent, lead?: string): Promise<void>;
}

const textBody = (text: string): SlackBody[] =>
	splitMessage(text, 3000).map((part) => ({
		text: clip(part, 3000),
		blocks: [{ type: "section", text: { type: "mrkdwn", text: part } } satisfies KnownBlock],
	}));

/** Create the poster. */
export function createPoster(deps: PosterDeps): Poster {
	const { client, state, renderer, logger } = deps;

	const post = async (thread: Thread, message: SlackMessage | SlackBody): Promise<string | undefined> => {
		const base = { channel: thread.channelId, thread_ts: thread.threadTs, unfurl_links: false, unfurl_media: false };
		try {
			const res = await client.chat.postMessage({
				...base,
				text: message.text,
				blocks: message.blocks as KnownBlock[],
			});
			return res.ts;
		} catch (error) {
			logger.error({ err: error, sessionId: thread.sessionId }, "slack: posting a message failed; trying plain text");
			try {
				const res = await client.chat.postMessage({
					...base,
					text: clip(message.text || "(message could not be shown)", 3000),
				});
				return res.ts;
			} catch (again) {
				logger.error({ err: again, sessionId: thread.sessionId }, "slack: posting plain text failed too");
				return undefined;
			}
		}
	};

	const messagesOf = (event: TutorEvent, lead?: string): (SlackMessage | SlackBody)[] => {
		try {
			const card = cardFromEvent(event);
			if (card && lead !== undefined && (card.kind === "question" || card.kind === "explain"))
				return toSlackMessages({ ...card, lead });
			if (card?.kind === "text" && event.type === "ended")
				return toSlackMessages({ ...card, text: closingLine(card.text, "`/lesson start <topic>`") });
			if (card) return toSlackMessages(card);
		} catch (error) {
			logger.error({ err: error, type: event.type }, "slack: rendering a card failed; posting text");
		}
		switch (event.type) {
			case "text":
				return textBody(markdownToMrkdwn(event.text));
			case "error":
				return textBody(`:warning: ${escapeMrkdwn(event.message)}`);
			case "ended":
				return textBody("The lesson has ended.");
			case "quiz":
			case "ask":
				return textBody(markdownToMrkdwn(event.input.question));
			case "explain":
				return textBody(markdownToMrkdwn(event.input.body));
			default:
				return [];
		}
	};

	const postCard = async (thread: Thread, event: TutorEvent, lead?: string): Promise<string[]> => {
		const posted: string[] = [];
		for (const message of messagesOf(event, lead)) {
			const ts = await post(thread, message);
			if (ts) posted.push(ts);
		}
		return posted;
	};

	const updateAnswered = async (thread: Thread, event: Extract<TutorEvent, { type: "answered" }>): Promise<void> => {
		const ref = await state.card(thread.sessionId, event.toolCallId);
		const lead = typeof ref?.lead === "string" ? ref.lead : undefined;
		let next: (SlackMessage | SlackBody)[];
		try {
			next = toSlackMessages({ ...answeredCard(event), ...(lead !== undefined ? { lead } : {}) });
		} catch (error) {
			logger.error({ err: error }, "slack: rendering the answered card failed");
			next = textBody(`Answered by <@${event.result.by.id}>: ${escapeMrkdwn(clip(event.result.answer, 500))}`);
		}
		if (!ref || ref.ts.length === 0) {
			for (const m of next) await post(thread, m);
			return;
		}
		// Align from the end: the controls sit in a card's last message, so that one must become the answered state.
		const pairs = Math.min(ref.ts.length, next.length);
		const extra = next.slice(0, next.length - pairs);
		for (let k = 1; k <= pairs; k++) {
			const ts = ref.ts[ref.ts.length - k]!;
			const message = next[next.length - k]!;
			try {
				await client.chat.update({
					channel: ref.channelId,
					ts,
					text: message.text,
					blocks: message.blocks as KnownBlock[],
				});
			} catch (error) {
				logger.warn(
					{ err: error, sessionId: thread.sessionId, ts },
					"slack: updating the answered card failed; posting it",
				);
				await post(thread, message);
			}
		}
		for (const m of extra) await post(thread, m);
	};

	const reposter = createPlanReposter({ renderer, store: state.planKeys, logger, name: "slack" });

	/** The picture uploaded into the thread, else the outline as text; true once anything was posted. */
	const postPicture = async (thread: Thread, picture: PlanPicture): Promise<boolean> => {
		if (picture.png) {
			try {
				await client.files.uploadV2({
					channel_id: thread.channelId,
					thread_ts: thread.threadTs,
					file: picture.png,
					filename: "lesson-plan.png",
					title: clip(picture.caption || "Lesson plan", 250),
					initial_comment: clip(picture.caption, 1000),
					alt_text: clip(picture.outline || picture.caption, 1000),
				});
				return true;
			} catch (error) {
				logger.error({ err: error, sessionId: thread.sessionId }, "slack: plan upload failed; posting the outline");
			}
		}
		const text = `${escapeMrkdwn(picture.caption)}\n\`\`\`\n${escapeMrkdwn(picture.outline)}\n\`\`\``;
		let posted = false;
		for (const m of textBody(text)) posted = (await post(thread, m)) !== undefined || posted;
		return posted;
	};

	const markEnded = async (thread: Thread, event: Extract<TutorEvent, { type: "ended" }>): Promise<void> => {
		const lesson = await state.lesson(thread.sessionId);
		if (!lesson || lesson.ended) return;
		const how =
			event.reason === "completed"
				? "with the recap"
				: `by <@${event.by?.id ?? lesson.learnerId}>${event.reason === "ended-by-admin" ? " (admin)" : ""}`;
		const body = endedParentMessage(lesson.topic, lesson.learnerId, how);
		try {
			await client.chat.update({
				channel: thread.channelId,
				ts: thread.threadTs,
				text: body.text,
				blocks: body.blocks,
			});
		} catch (error) {
			logger.warn({ err: error, sessionId: thread.sessionId }, "slack: could not mark the parent message ended");
		}
		await state.saveLesson({ ...lesson, ended: true });
	};

	return {
		async handle(event, lead) {
			const address = decodeSessionId(event.sessionId);
			if (address?.platform !== "slack") return;
			const thread: Thread = { sessionId: event.sessionId, channelId: address.channelId, threadTs: address.threadTs };
			try {
				switch (event.type) {
					case "typing":
						return; // Slack has no typing indicator for bots in channel threads.
					case "plan":
						await reposter.onPlan(event, (picture) => postPicture(thread, picture));
						return;
					case "answered":
						return await updateAnswered(thread, event);
					case "ended":
						await postCard(thread, event);
						return await markEnded(thread, event);
					case "quiz":
					case "ask": {
						const ts = await postCard(thread, event, lead);
						// Only a lead that shares the controls' message is re-shown when that message becomes the answered state.
						const ref = {
							channelId: thread.channelId,
							ts,
							question: event.input.question,
							...(lead !== undefined && ts.length === 1 ? { lead } : {}),
						};
						return await state.saveCard(thread.sessionId, event.toolCallId, ref);
					}
					default:
						await postCard(thread, event, lead);
				}
			} catch (error) {
				logger.error(
					{ err: error, sessionId: event.sessionId, type: event.type },
					"slack: handling a tutor event failed",
				);
			}
		},
	};
}
