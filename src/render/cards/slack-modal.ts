/**
 * The Slack modal behind an "Answer" button (open it with views.open and the
 * click's trigger_id): the question, then a multiline plain-text input. The
 * submission arrives as view_submission with callback_id `lh:modal:<id>`;
 * the typed text is at `view.state.values[<text id>][<text id>].value`, where
 * <text id> is `lh:text:<id>` (block_id and action_id are the same).
 */

import type { ModalView } from "@slack/types";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { encodeComponentId } from "../component-id.ts";
import { markdownToMrkdwn } from "../markdown.ts";
import { ANSWER_MAX_CHARS, fitLine, fitMarkdown, SLACK_LIMITS as S } from "./limits.ts";

/** The free-answer modal. Throws (a clear Error) when privateMetadata exceeds 3000 chars or the tool call id is too long. */
export function slackAnswerModal(
	toolCallId: string,
	question: string,
	privateMetadata: string,
	locale: Locale = DEFAULT_LOCALE,
): ModalView {
	if (privateMetadata.length > S.privateMetadataChars)
		throw new RangeError(
			`private_metadata is ${privateMetadata.length} characters; Slack allows ${S.privateMetadataChars}`,
		);
	const textId = encodeComponentId({ verb: "text", toolCallId });
	const body = markdownToMrkdwn(question);
	return {
		type: "modal",
		callback_id: encodeComponentId({ verb: "modal", toolCallId }),
		private_metadata: privateMetadata,
		title: { type: "plain_text", text: fitLine(t(locale, "form.title"), S.modalTitleChars) },
		submit: { type: "plain_text", text: t(locale, "form.send") },
		close: { type: "plain_text", text: t(locale, "form.cancel") },
		blocks: [
			...(body !== ""
				? [{ type: "section" as const, text: { type: "mrkdwn" as const, text: fitMarkdown(body, S.sectionTextChars) } }]
				: []),
			{
				type: "input",
				block_id: textId,
				label: { type: "plain_text", text: t(locale, "form.label") },
				element: {
					type: "plain_text_input",
					action_id: textId,
					multiline: true,
					min_length: 1,
					max_length: ANSWER_MAX_CHARS,
				},
			},
		],
	};
}
