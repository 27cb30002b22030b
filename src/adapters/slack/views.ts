/**
 * The free-text answer modal's view_submission. An empty answer is refused inside the
 * modal (`response_action: "errors"`, a pure check, so still an immediate ack); anything
 * else is acked (the modal closes) and then handed to the tutor as a reply.
 */

import type { App, ViewOutput, ViewSubmitAction } from "@slack/bolt";
import { decodeSessionId } from "../../core/session-id.ts";
import { decodeComponentId } from "../../render/index.ts";
import { afterPendingIo } from "../shared/within.ts";
import { decodeModalMetadata } from "./actions.ts";
import { type HandlerContext, notify, slackRefusal } from "./context.ts";

/** The typed answer and the block holding it (for error placement). */
export interface TypedAnswer {
	blockId: string;
	toolCallId: string;
	text: string;
}

/** Find the modal's text input (action id `lh:text:<toolCallId>`); undefined when there is none. */
export function typedAnswerOf(view: Pick<ViewOutput, "state">): TypedAnswer | undefined {
	for (const [blockId, actions] of Object.entries(view.state?.values ?? {})) {
		for (const [actionId, state] of Object.entries(actions ?? {})) {
			const id = decodeComponentId(actionId);
			if (id?.verb === "text") return { blockId, toolCallId: id.toolCallId, text: state?.value ?? "" };
		}
	}
	return undefined;
}

/** Register the answer modal's submission handler. */
export function registerViews(app: App, ctx: HandlerContext): void {
	app.view<ViewSubmitAction>(/^lh:modal:/, async ({ ack, body, view }) => {
		const answer = typedAnswerOf(view);
		const meta = decodeModalMetadata(view.private_metadata);
		if (answer && answer.text.trim() === "") {
			await ack({ response_action: "errors", errors: { [answer.blockId]: "Type an answer before submitting." } });
			return;
		}
		await ack();
		await afterPendingIo();
		try {
			const callbackId = decodeComponentId(view.callback_id);
			const address = meta ? decodeSessionId(meta.sessionId) : undefined;
			const teamId = body.team?.id ?? body.user.team_id;
			const matches = address?.platform === "slack" && address.teamId === teamId;
			if (
				!answer ||
				!meta ||
				!matches ||
				callbackId?.toolCallId !== meta.toolCallId ||
				answer.toolCallId !== meta.toolCallId
			) {
				ctx.logger.warn({ callbackId: view.callback_id }, "slack: a modal submission did not match its question");
				return;
			}
			const by = { id: body.user.id, ...(body.user.name ? { name: body.user.name } : {}) };
			const result = await ctx.tutor.handle(meta.sessionId, {
				type: "reply",
				toolCallId: meta.toolCallId,
				text: answer.text.trim(),
				by,
			});
			if (!result.ok && address?.platform === "slack")
				await notify(
					ctx,
					{ channelId: address.channelId, userId: by.id, threadTs: address.threadTs },
					slackRefusal(result, "answer", ctx.gate.lesson(meta.sessionId)?.learnerId),
				);
		} catch (error) {
			ctx.logger.error({ err: error }, "slack: handling a modal submission failed");
		}
	});
}
