/**
 * Tutor events -> the lesson thread: cards as messages, the answered state as
 * an edit of the question's message, the plan picture as a PNG attachment
 * (the text outline when there is no picture), typing while the tutor works.
 * Work is queued per session so a thread reads in the tutor's order, and a
 * failure is logged, never thrown back into the engine.
 */

import type { REST } from "discord.js";
import type { TutorEvent } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import { decodeSessionId } from "../../core/session-id.ts";
import {
	type AnsweredEvent,
	answeredCard,
	type Card,
	cardFromEvent,
	type PlanPicture,
	type PlanRenderer,
	splitMessage,
	toDiscordMessages,
} from "../../render/index.ts";
import type { AnswerGate } from "../shared/answer-gate.ts";
import { closingLine } from "../shared/notices.ts";
import { createPlanReposter, type PlanKeyStore } from "../shared/plan-reposts.ts";
import type { SerialQueues } from "../shared/serial-queue.ts";
import { createThreadSequencer, type ThreadPost } from "../shared/thread-sequencer.ts";
import { editMessage, postMessage } from "./rest-messages.ts";
import type { DiscordState } from "./state.ts";
import type { TypingIndicators } from "./typing.ts";

/** The session extra holding the key of the last plan picture posted (survives restarts). */
export const PLAN_KEY_EXTRA = "discord.planKey";
const CONTENT_MAX = 2000;

/** Dependencies of the poster. */
export interface PosterDeps {
	rest: REST;
	tutor: Tutor;
	renderer: PlanRenderer;
	state: DiscordState;
	gate: AnswerGate;
	queues: SerialQueues;
	typing: TypingIndicators;
	logger: Logger;
}

/** Posts tutor events into lesson threads. */
export interface Poster {
	/** The tutor's event sink: queues the event's posts; returns at once, never throws. */
	onEvent(event: TutorEvent): void;
	/** Queue work in a session's order (e.g. the intro before the tutor's first question). */
	enqueue(sessionId: string, task: () => Promise<void>): void;
}

/** The thread a session lives in; undefined for sessions of other platforms or malformed ids. */
export function threadOfSession(sessionId: string): string | undefined {
	const address = decodeSessionId(sessionId);
	return address?.platform === "discord" ? address.threadId : undefined;
}

/** The last posted plan picture's key, kept on the session itself (survives restarts with it). */
function sessionExtraKeys(tutor: Tutor): PlanKeyStore {
	return {
		load: async (sessionId) => (await tutor.getSession(sessionId))?.extra?.[PLAN_KEY_EXTRA],
		save: (sessionId, key) => tutor.setExtra(sessionId, PLAN_KEY_EXTRA, key),
	};
}

/** Create the poster. */
export function createPoster(deps: PosterDeps): Poster {
	const { rest, tutor, renderer, state, gate, queues, typing, logger } = deps;
	const reposter = createPlanReposter({ renderer, store: sessionExtraKeys(tutor), logger, name: "discord" });

	const sequencer = createThreadSequencer();

	async function postCardEvent(channelId: string, event: TutorEvent, lead?: string): Promise<string[]> {
		const base = cardFromEvent(event);
		if (!base) return [];
		let card: Card = base;
		if (lead !== undefined && (base.kind === "question" || base.kind === "explain")) card = { ...base, lead };
		else if (event.type === "ended" && base.kind === "text")
			card = { ...base, text: closingLine(base.text, "`/lesson start`") };
		const ids: string[] = [];
		for (const message of toDiscordMessages(card)) {
			const id = await postMessage(rest, logger, channelId, message);
			if (id) ids.push(id);
		}
		return ids;
	}

	async function postQuestion(
		channelId: string,
		event: Extract<TutorEvent, { type: "quiz" | "ask" }>,
		lead: string | undefined,
	): Promise<void> {
		const messageIds = await postCardEvent(channelId, event, lead);
		if (messageIds.length === 0) return;
		const question = typeof event.input?.question === "string" ? event.input.question : "";
		await state.saveQuestion(event.sessionId, event.toolCallId, {
			channelId,
			messageIds,
			question,
			// Only a lead that shares the controls' message is re-shown when that message becomes the answered state.
			...(lead !== undefined && messageIds.length === 1 ? { lead } : {}),
		});
	}

	async function postAnswered(channelId: string, event: AnsweredEvent): Promise<void> {
		const record = await state.question(event.sessionId, event.toolCallId);
		const lead = typeof record?.lead === "string" ? record.lead : undefined;
		const [message] = toDiscordMessages({ ...answeredCard(event), ...(lead !== undefined ? { lead } : {}) });
		if (!message) return;
		const target = record?.messageIds.at(-1); // the controls ride on the last message of a card
		if (record && target) {
			const outcome = await editMessage(rest, logger, record.channelId, target, { components: [], ...message });
			if (outcome !== "gone") return;
		}
		await postMessage(rest, logger, channelId, message);
	}

	/** The picture as an attachment with its caption, else the outline as text; true once anything was posted. */
	async function postPicture(channelId: string, picture: PlanPicture): Promise<boolean> {
		const caption = picture.caption.slice(0, CONTENT_MAX);
		if (picture.png) {
			const id = await postMessage(
				rest,
				logger,
				channelId,
				{
					content: `🗺️ ${caption}`.slice(0, CONTENT_MAX),
					attachments: [{ id: 0, filename: "plan.png", description: caption.slice(0, 1024) }],
				},
				[{ name: "plan.png", data: picture.png, contentType: "image/png" }],
			);
			if (id) return true;
		}
		let posted = false;
		for (const chunk of splitMessage(`🗺️ ${caption}\n\n${picture.outline}`, CONTENT_MAX)) {
			posted = (await postMessage(rest, logger, channelId, { content: chunk })) !== undefined || posted;
		}
		return posted;
	}

	async function handle(channelId: string, { event, lead }: ThreadPost): Promise<void> {
		switch (event.type) {
			case "quiz":
			case "ask":
				return postQuestion(channelId, event, lead);
			case "answered":
				return postAnswered(channelId, event);
			case "plan":
				await reposter.onPlan(event, (picture) => postPicture(channelId, picture));
				return;
			case "typing":
				return;
			case "ended":
				typing.set(channelId, false);
				await postCardEvent(channelId, event);
				return;
			default:
				await postCardEvent(channelId, event, lead);
		}
	}

	return {
		onEvent(event) {
			try {
				const channelId = typeof event?.sessionId === "string" ? threadOfSession(event.sessionId) : undefined;
				if (!channelId) return; // another platform's session
				// The gate learns at once (not in the queue) so the next click is checked against it.
				gate.observe(event);
				// Typing is immediate: it should show while earlier posts are still queued.
				if (event.type === "typing") typing.set(channelId, event.active === true);
				// The sequencer holds a plan picture or tutor text until it knows what follows (see thread-sequencer.ts).
				for (const post of sequencer.push(event)) {
					if (post.event.type === "typing") continue;
					void queues.run(event.sessionId, () => handle(channelId, post));
				}
			} catch (error) {
				logger.error({ err: error }, "discord: could not queue a tutor event");
			}
		},
		enqueue(sessionId, task) {
			void queues.run(sessionId, task);
		},
	};
}
