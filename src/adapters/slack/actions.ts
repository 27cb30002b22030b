/**
 * Clicks on cards (block_actions): a button choice, a select, the "Answer" button that
 * opens the free-text modal, and the parent message's End button. Each is acked at once;
 * the component id is a claim the tutor checks against the session's pending calls, so a
 * stale or double click records nothing and its clicker gets an ephemeral notice.
 */

import type { App, BlockAction, BlockElementAction } from "@slack/bolt";
import type { LearnerEvent, Participant } from "../../core/contracts/events.ts";
import type { SessionSummary } from "../../core/contracts/tutor.ts";
import { decodeSessionId, encodeSessionId } from "../../core/session-id.ts";
import { type ComponentId, decodeComponentId, escapeMrkdwn, slackAnswerModal } from "../../render/index.ts";
import { type HandlerContext, notify } from "./context.ts";
import { END_ACTION_ID } from "./messages.ts";
import type { CardRef } from "./state.ts";

/** private_metadata of the answer modal: which session and question it answers. */
export interface ModalMetadata {
	sessionId: string;
	toolCallId: string;
}

/** Encode the modal's private_metadata. */
export function encodeModalMetadata(meta: ModalMetadata): string {
	return JSON.stringify({ s: meta.sessionId, t: meta.toolCallId });
}

/** Decode the modal's private_metadata; undefined for anything else. */
export function decodeModalMetadata(raw: unknown): ModalMetadata | undefined {
	if (typeof raw !== "string") return undefined;
	try {
		const v: unknown = JSON.parse(raw);
		if (typeof v !== "object" || v === null) return undefined;
		const { s, t } = v as { s?: unknown; t?: unknown };
		if (typeof s !== "string" || typeof t !== "string" || decodeSessionId(s)?.platform !== "slack") return undefined;
		return { sessionId: s, toolCallId: t };
	} catch {
		return undefined;
	}
}

/** Where a click happened. */
interface ClickPlace {
	teamId: string;
	channelId: string;
	userId: string;
	/** The thread the clicked message is in (the lesson), or the clicked message itself when it is a parent. */
	threadTs: string | undefined;
	messageTs: string | undefined;
	by: Participant;
}

function placeOf(body: BlockAction): ClickPlace | undefined {
	const teamId = body.team?.id ?? body.user.team_id;
	const channelId = (body.container.channel_id as string | undefined) ?? body.channel?.id;
	if (!teamId || !channelId) return undefined;
	const messageTs = (body.container.message_ts as string | undefined) ?? body.message?.ts;
	const threadTs = (body.message?.thread_ts as string | undefined) ?? (body.container.thread_ts as string | undefined);
	const by: Participant = { id: body.user.id };
	const name = body.user.username ?? body.user.name;
	if (name) by.name = name;
	return { teamId, channelId, userId: body.user.id, threadTs, messageTs, by };
}

const sessionOf = (place: ClickPlace, threadTs: string): string | undefined => {
	try {
		return encodeSessionId({ platform: "slack", teamId: place.teamId, channelId: place.channelId, threadTs });
	} catch {
		return undefined;
	}
};

/** Resolve `work` or give undefined after `ms` (a views.open trigger_id lives 3 s; never wait on the store that long). */
async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<undefined>((resolve) => {
		timer = setTimeout(() => resolve(undefined), ms);
	});
	try {
		return await Promise.race([work, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

function openRefusal(summary: SessionSummary, toolCallId: string, userId: string): string | undefined {
	if (summary.phase === "ended") return "This lesson has ended.";
	if (!summary.pending.some((p) => p.toolCallId === toolCallId))
		return "This question is no longer open (it was answered or replaced).";
	if (summary.mode === "solo" && summary.learner.id !== userId)
		return `Only <@${summary.learner.id}> answers in this lesson. Start your own with \`/lesson start <topic>\`.`;
	return undefined;
}

async function openModal(
	ctx: HandlerContext,
	body: BlockAction,
	place: ClickPlace,
	sessionId: string,
	id: ComponentId,
): Promise<void> {
	const found = await within(
		Promise.all([ctx.state.card(sessionId, id.toolCallId), ctx.tutor.getSession(sessionId)] as const),
		1500,
	);
	const [ref, summary]: [CardRef | undefined, SessionSummary | undefined] = found ?? [undefined, undefined];
	if (found && !summary)
		return notify(ctx, { ...place, threadTs: place.threadTs }, "This lesson is not known (any more).");
	const refusal = summary ? openRefusal(summary, id.toolCallId, place.userId) : undefined;
	if (refusal) return notify(ctx, { ...place, threadTs: place.threadTs }, refusal);
	const view = slackAnswerModal(
		id.toolCallId,
		ref?.question ?? "Your answer",
		encodeModalMetadata({ sessionId, toolCallId: id.toolCallId }),
	);
	try {
		await ctx.client.views.open({ trigger_id: body.trigger_id, view });
	} catch (error) {
		ctx.logger.warn({ err: error, sessionId }, "slack: views.open failed");
		await notify(ctx, place, "The answer box could not open (Slack allows 3 seconds). Please click *Answer* again.");
	}
}

function learnerEvent(action: BlockElementAction, id: ComponentId, by: Participant): LearnerEvent | undefined {
	if (id.verb === "pick" && id.choice !== undefined)
		return { type: "answer", toolCallId: id.toolCallId, value: id.choice, by };
	if (id.verb === "select" && action.type === "static_select") {
		const index = Number(action.selected_option?.value);
		if (!Number.isInteger(index) || index < 0) return undefined;
		return { type: "answer", toolCallId: id.toolCallId, value: index, by };
	}
	return undefined;
}

async function onComponent(ctx: HandlerContext, body: BlockAction, action: BlockElementAction): Promise<void> {
	const place = placeOf(body);
	const id = decodeComponentId(action.action_id);
	if (!place || !id) return void ctx.logger.warn({ actionId: action.action_id }, "slack: unrecognized action");
	const sessionId = place.threadTs ? sessionOf(place, place.threadTs) : undefined;
	if (!sessionId) return notify(ctx, place, "This control does not belong to a lesson thread.");
	if (id.verb === "open") return openModal(ctx, body, place, sessionId, id);
	const event = learnerEvent(action, id, place.by);
	if (!event) return notify(ctx, place, "That choice could not be read; please pick again.");
	const result = await ctx.tutor.handle(sessionId, event);
	if (!result.ok) await notify(ctx, place, escapeMrkdwn(result.message));
}

async function onEnd(ctx: HandlerContext, body: BlockAction): Promise<void> {
	const place = placeOf(body);
	// The End button sits on the parent message: its ts is the lesson thread's ts.
	const parentTs = place?.messageTs;
	const sessionId = place && parentTs ? sessionOf(place, parentTs) : undefined;
	if (!place || !sessionId) return;
	const lesson = await ctx.state.lesson(sessionId);
	if (!lesson) return notify(ctx, place, "This lesson is not known (any more).");
	const admin = await ctx.admins.isAdmin(place.userId);
	if (lesson.learnerId !== place.userId && !admin)
		return notify(
			ctx,
			{ ...place, threadTs: parentTs },
			`Only <@${lesson.learnerId}> or an admin can end this lesson.`,
		);
	const result = await ctx.tutor.handle(sessionId, { type: "end", by: place.by, privileged: admin });
	if (!result.ok) await notify(ctx, { ...place, threadTs: parentTs }, escapeMrkdwn(result.message));
}

/** Register the card and End-button actions on the app. */
export function registerActions(app: App, ctx: HandlerContext): void {
	app.action<BlockAction>(/^lh:(pick|select|open):/, async ({ ack, body, action }) => {
		await ack();
		try {
			await onComponent(ctx, body, action);
		} catch (error) {
			ctx.logger.error({ err: error }, "slack: handling a click failed");
		}
	});
	app.action<BlockAction>(END_ACTION_ID, async ({ ack, body }) => {
		await ack();
		try {
			await onEnd(ctx, body);
		} catch (error) {
			ctx.logger.error({ err: error }, "slack: handling End failed");
		}
	});
}
