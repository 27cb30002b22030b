/**
 * Clicks on cards (block_actions: a button choice, a select, the "Answer"
 * button that opens the free-text modal, the parent message's End button) and
 * the modal's view_submission, decoded into controller calls. Each is acked
 * once the tutor has recorded or refused it (bounded: deliveries.ts); the
 * component id names a pending call, which the tutor checks against the
 * session's pending calls, so a stale or double click records nothing.
 */

import type { App, BlockAction, BlockElementAction, ViewOutput, ViewSubmitAction } from "@slack/bolt";
import type { HandleResult, Participant } from "../../core/contracts/events.ts";
import { HELP_KINDS } from "../../core/contracts/help.ts";
import { DEFAULT_LOCALE, type Locale, resolveLocale, t } from "../../i18n/index.ts";
import { decodeComponentId, slackAnswerModal } from "../../render/index.ts";
import type { AnswerForm } from "../lesson/port.ts";
import { isProfileButton } from "../lesson/profile-flows.ts";
import { type HandlerContext, notify, slackActor } from "./context.ts";
import { recordFirst } from "./deliveries.ts";
import { END_ACTION_ID } from "./messages.ts";
import type { SlackClicks } from "./port.ts";
import { decodeSlackThreadId, encodeSlackThreadId } from "./thread-id.ts";

/** Encode the modal's private_metadata: which lesson and question it answers. */
export function encodeModalMetadata(meta: { sessionId: string; toolCallId: string; locale?: Locale }): string {
	return JSON.stringify({ s: meta.sessionId, t: meta.toolCallId, ...(meta.locale ? { l: meta.locale } : {}) });
}

/** Decode the modal's private_metadata; undefined for anything else. */
export function decodeModalMetadata(
	raw: unknown,
): { sessionId: string; toolCallId: string; locale?: Locale } | undefined {
	if (typeof raw !== "string") return undefined;
	try {
		const v: unknown = JSON.parse(raw);
		if (typeof v !== "object" || v === null) return undefined;
		const { s, t, l } = v as { s?: unknown; t?: unknown; l?: unknown };
		if (typeof s !== "string" || typeof t !== "string" || !decodeSlackThreadId(s)) return undefined;
		const locale = resolveLocale(l);
		return { sessionId: s, toolCallId: t, ...(locale ? { locale } : {}) };
	} catch {
		return undefined;
	}
}

/** The modal's text input (action id `lh:text:<toolCallId>`) and its block (for error placement). */
export function typedAnswerOf(
	view: Pick<ViewOutput, "state">,
): { blockId: string; toolCallId: string; text: string } | undefined {
	for (const [blockId, actions] of Object.entries(view.state?.values ?? {})) {
		for (const [actionId, state] of Object.entries(actions ?? {})) {
			const id = decodeComponentId(actionId);
			if (id?.verb === "text") return { blockId, toolCallId: id.toolCallId, text: state?.value ?? "" };
		}
	}
	return undefined;
}

/**
 * The lesson thread of a click (`ts`: the thread's, or the clicked parent message's) and who clicked. `topLevel`:
 * a top-level message may be its own "thread" (a profile button: forget-me's private confirm in a channel).
 */
function clickOf(body: BlockAction, parent: boolean, topLevel = false) {
	const teamId = body.team?.id ?? body.user.team_id;
	const channelId = (body.container.channel_id as string | undefined) ?? body.channel?.id;
	const messageTs = (body.container.message_ts as string | undefined) ?? body.message?.ts;
	// A top-level message in a DM (a reminder's "Review now") is its own "thread": no lesson runs there.
	const inThread = (body.message?.thread_ts as string | undefined) ?? (body.container.thread_ts as string | undefined);
	const alone = topLevel || channelId?.startsWith("D");
	const threadTs = parent ? messageTs : (inThread ?? (alone ? messageTs : undefined));
	if (!teamId || !channelId) return undefined;
	const name = body.user.username ?? body.user.name;
	const by: Participant = name ? { id: body.user.id, name } : { id: body.user.id };
	let threadId: string | undefined;
	try {
		threadId = threadTs ? encodeSlackThreadId({ teamId, channelId, threadTs }) : undefined;
	} catch {
		threadId = undefined;
	}
	// A private confirm's answer goes beside it, not into a "thread" of an ephemeral message.
	const noticeTs = topLevel && !inThread ? undefined : threadTs;
	return { by, threadId, target: { channelId, userId: body.user.id, threadTs: noticeTs } };
}

/** Run a click: while it runs, its card is updated through its response_url (see port.ts); a refused click is not used. */
async function asClick(
	clicks: SlackClicks | undefined,
	body: BlockAction,
	threadId: string,
	run: () => Promise<HandleResult>,
): Promise<HandleResult> {
	const messageTs = (body.container.message_ts as string | undefined) ?? body.message?.ts;
	const url = typeof body.response_url === "string" ? body.response_url : undefined;
	const click = messageTs && url ? clicks?.note(threadId, messageTs, { url, uses: 0 }) : undefined;
	const result = await run();
	if (click && !result.ok) clicks?.forget(threadId, click);
	return result;
}

async function onControl(
	ctx: HandlerContext,
	body: BlockAction,
	action: BlockElementAction,
	clicks: SlackClicks | undefined,
): Promise<void> {
	const id = decodeComponentId(action.action_id);
	const click = clickOf(body, false, isProfileButton(id?.toolCallId));
	if (!click || !id) return void ctx.logger.warn({ actionId: action.action_id }, "slack: unrecognized action");
	const { threadId, target } = click;
	if (!threadId) return notify(ctx, target, t(DEFAULT_LOCALE, "slack.notLessonControl"));
	const actor = slackActor(ctx, click.by, target);
	if (id.verb === "open") {
		const openForm = async (form: AnswerForm) => {
			const metadata = encodeModalMetadata({
				sessionId: threadId,
				toolCallId: form.toolCallId,
				...(form.locale ? { locale: form.locale } : {}),
			});
			try {
				await ctx.client.views.open({
					trigger_id: body.trigger_id,
					view: slackAnswerModal(form.toolCallId, form.question, metadata, form.locale),
				});
			} catch (error) {
				ctx.logger.warn({ err: error, sessionId: threadId }, "slack: views.open failed");
				await actor.notify(t(form.locale ?? DEFAULT_LOCALE, "slack.formTimeout"));
			}
		};
		// The form's submit has no message to answer through: its answered card goes through this click's URL.
		await asClick(clicks, body, threadId, async () => {
			await ctx.controller.openForm({ ...actor, openForm }, threadId, id.toolCallId);
			return { ok: true };
		});
		return;
	}
	if (id.verb === "help") {
		const kind = HELP_KINDS[id.choice ?? -1];
		if (!kind) return notify(ctx, target, t(DEFAULT_LOCALE, "slack.badControl"));
		return void (await asClick(clicks, body, threadId, () =>
			ctx.controller.help(actor, threadId, id.toolCallId, kind),
		));
	}
	const index =
		id.verb === "pick" ? id.choice : Number(action.type === "static_select" ? action.selected_option?.value : "");
	if (!(id.verb === "pick" || id.verb === "select") || index === undefined || !Number.isInteger(index) || index < 0)
		return notify(ctx, target, t(DEFAULT_LOCALE, "slack.badChoice"));
	await asClick(clicks, body, threadId, () => ctx.controller.choose(actor, threadId, id.toolCallId, index));
}

/**
 * Register the card controls, the End button and the answer modal's submission on the app; `clicks` (the port's):
 * a clicked card is updated through the click's response_url.
 */
export function registerControls(app: App, ctx: HandlerContext, clicks?: SlackClicks): void {
	// Each is acknowledged once what it carries is recorded (bounded): see deliveries.ts.
	app.action<BlockAction>(/^lh:(pick|select|open|help):/, async ({ ack, body, action, context }) => {
		await recordFirst(ctx, context, "a click", () => onControl(ctx, body, action, clicks));
		await ack();
	});
	app.action<BlockAction>(END_ACTION_ID, async ({ ack, body, context }) => {
		// The End button sits on the parent message: its ts is the lesson thread's ts.
		const click = clickOf(body, true);
		if (click?.threadId) {
			const { threadId, by, target } = click;
			await recordFirst(ctx, context, "End", () => ctx.controller.end(slackActor(ctx, by, target), threadId));
		}
		await ack();
	});
	app.view<ViewSubmitAction>(/^lh:modal:/, async ({ ack, body, view, context }) => {
		const answer = typedAnswerOf(view);
		if (answer && answer.text.trim() === "")
			return void (await ack({
				response_action: "errors",
				// Slack wants this ack within 3 s: the lesson's language rides in the modal's metadata (no lookup).
				errors: {
					[answer.blockId]: t(decodeModalMetadata(view.private_metadata)?.locale ?? DEFAULT_LOCALE, "form.empty"),
				},
			}));
		await recordFirst(ctx, context, "a modal submission", async () => {
			const meta = decodeModalMetadata(view.private_metadata);
			const address = meta ? decodeSlackThreadId(meta.sessionId) : undefined;
			const teamId = body.team?.id ?? body.user.team_id;
			const matches = address?.teamId === teamId && meta?.toolCallId === answer?.toolCallId;
			if (
				!answer ||
				!meta ||
				!address ||
				!matches ||
				decodeComponentId(view.callback_id)?.toolCallId !== meta.toolCallId
			)
				return void ctx.logger.warn(
					{ callbackId: view.callback_id },
					"slack: a modal submission did not match its question",
				);
			const by: Participant = { id: body.user.id, ...(body.user.name ? { name: body.user.name } : {}) };
			const target = { channelId: address.channelId, userId: by.id, threadTs: address.threadTs };
			await ctx.controller.submitForm(slackActor(ctx, by, target), meta.sessionId, meta.toolCallId, answer.text);
		});
		await ack();
	});
}
