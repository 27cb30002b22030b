/**
 * Clicks on cards (block_actions): a button choice, a select, the "Answer" button that
 * opens the free-text modal, and the parent message's End button. Each is acked at once;
 * the component id is a claim the tutor checks against the session's pending calls, so a
 * stale or double click records nothing and its clicker gets an ephemeral notice.
 */

import type { App, BlockAction, BlockElementAction } from "@slack/bolt";
import type { View } from "@slack/types";
import type { LearnerEvent, Participant } from "../../core/contracts/events.ts";
import { decodeSessionId, encodeSessionId } from "../../core/session-id.ts";
import { type ComponentId, decodeComponentId, slackAnswerModal } from "../../render/index.ts";
import { refusalFromSummary } from "../shared/answer-gate.ts";
import { afterPendingIo } from "../shared/within.ts";
import { type HandlerContext, notify, slackRefusal } from "./context.ts";
import { END_ACTION_ID, noticeView } from "./messages.ts";

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

/**
 * The "Answer" button: views.open first (its trigger_id dies 3 s after the click, so only
 * memory is consulted before it), then the real check against the tutor; a refusal, or the
 * question text memory lacked (after a restart), replaces the open modal via views.update.
 */
async function openModal(
	ctx: HandlerContext,
	body: BlockAction,
	place: ClickPlace,
	sessionId: string,
	id: ComponentId,
): Promise<void> {
	const early = ctx.gate.refusalFromMemory(sessionId, id.toolCallId, place.userId);
	if (early)
		return notify(
			ctx,
			place,
			slackRefusal({ code: early, message: "" }, "answer", ctx.gate.lesson(sessionId)?.learnerId),
		);
	const remembered = ctx.gate.questionText(sessionId, id.toolCallId);
	const metadata = encodeModalMetadata({ sessionId, toolCallId: id.toolCallId });
	let viewId: string | undefined;
	try {
		const opened = await ctx.client.views.open({
			trigger_id: body.trigger_id,
			view: slackAnswerModal(id.toolCallId, remembered ?? "", metadata),
		});
		viewId = opened.view?.id;
	} catch (error) {
		ctx.logger.warn({ err: error, sessionId }, "slack: views.open failed");
		return notify(ctx, place, "The answer box could not open (Slack allows 3 seconds). Please click *Answer* again.");
	}
	// The modal is up: now the store and the tutor may take their time.
	const [ref, summary] = await Promise.all([
		remembered === undefined ? ctx.state.card(sessionId, id.toolCallId) : Promise.resolve(undefined),
		ctx.tutor.getSession(sessionId),
	]);
	if (summary)
		ctx.gate.rememberLesson(sessionId, {
			mode: summary.mode,
			learnerId: summary.learner.id,
			ended: summary.phase === "ended",
		});
	const code = refusalFromSummary(summary, id.toolCallId, place.userId);
	let view: View | undefined;
	if (code) view = noticeView(slackRefusal({ code, message: "" }, "answer", summary?.learner.id));
	else if (remembered === undefined && ref?.question) {
		ctx.gate.rememberQuestion(sessionId, id.toolCallId, ref.question);
		view = slackAnswerModal(id.toolCallId, ref.question, metadata);
	}
	if (!view || !viewId) return;
	try {
		await ctx.client.views.update({ view_id: viewId, view });
	} catch (error) {
		// The person may have closed the modal already; a refusal still reaches them.
		ctx.logger.warn({ err: error, sessionId }, "slack: views.update failed");
		if (code) await notify(ctx, place, slackRefusal({ code, message: "" }, "answer", summary?.learner.id));
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
	if (!result.ok) await notify(ctx, place, slackRefusal(result, "answer", await learnerOf(ctx, sessionId)));
}

/** The learner of a lesson, from memory or the store (for notices, after the ack). */
async function learnerOf(ctx: HandlerContext, sessionId: string): Promise<string | undefined> {
	const known = ctx.gate.lesson(sessionId)?.learnerId;
	if (known) return known;
	const lesson = await ctx.state.lesson(sessionId).catch(() => undefined);
	if (lesson) ctx.gate.rememberLesson(sessionId, { mode: lesson.mode, learnerId: lesson.learnerId });
	return lesson?.learnerId;
}

async function onEnd(ctx: HandlerContext, body: BlockAction): Promise<void> {
	const place = placeOf(body);
	// The End button sits on the parent message: its ts is the lesson thread's ts.
	const parentTs = place?.messageTs;
	const sessionId = place && parentTs ? sessionOf(place, parentTs) : undefined;
	if (!place || !sessionId) return;
	const lesson = await ctx.state.lesson(sessionId);
	const where = { ...place, threadTs: parentTs };
	if (!lesson) return notify(ctx, where, slackRefusal({ code: "unknown-session", message: "" }));
	const admin = await ctx.admins.isAdmin(place.userId);
	if (lesson.learnerId !== place.userId && !admin)
		return notify(ctx, where, slackRefusal({ code: "not-allowed", message: "" }, "end", lesson.learnerId));
	const result = await ctx.tutor.handle(sessionId, { type: "end", by: place.by, privileged: admin });
	if (!result.ok) await notify(ctx, where, slackRefusal(result, "end", lesson.learnerId));
}

/** Register the card and End-button actions on the app. */
export function registerActions(app: App, ctx: HandlerContext): void {
	app.action<BlockAction>(/^lh:(pick|select|open):/, async ({ ack, body, action }) => {
		await ack();
		await afterPendingIo();
		try {
			await onComponent(ctx, body, action);
		} catch (error) {
			ctx.logger.error({ err: error }, "slack: handling a click failed");
		}
	});
	app.action<BlockAction>(END_ACTION_ID, async ({ ack, body }) => {
		await ack();
		await afterPendingIo();
		try {
			await onEnd(ctx, body);
		} catch (error) {
			ctx.logger.error({ err: error }, "slack: handling End failed");
		}
	});
}
