/**
 * The Discord modal behind an "Answer" button: the question as a text
 * display, then a labelled paragraph text input. Submitted values come back
 * under the text input's custom_id (`lh:text:<toolCallId>`).
 */

import { type APIModalInteractionResponseCallbackData, ComponentType, TextInputStyle } from "discord-api-types/v10";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { encodeComponentId } from "../component-id.ts";
import { ANSWER_MAX_CHARS, DISCORD_LIMITS as D, fitLine, fitMarkdown } from "./limits.ts";

/** The modal a free-answer click opens (show it as the FIRST response to the click). Throws ComponentIdError for an over-long tool call id. */
export function discordAnswerModal(
	toolCallId: string,
	question: string,
	locale: Locale = DEFAULT_LOCALE,
): APIModalInteractionResponseCallbackData {
	const text = question.trim();
	return {
		custom_id: encodeComponentId({ verb: "modal", toolCallId }),
		title: fitLine(t(locale, "form.title"), D.modalTitleChars),
		components: [
			...(text !== ""
				? [{ type: ComponentType.TextDisplay as const, content: fitMarkdown(text, Math.min(D.textDisplayChars, 2000)) }]
				: []),
			{
				type: ComponentType.Label,
				label: t(locale, "form.label"),
				description: t(locale, "form.hint"),
				component: {
					type: ComponentType.TextInput,
					custom_id: encodeComponentId({ verb: "text", toolCallId }),
					style: TextInputStyle.Paragraph,
					required: true,
					min_length: 1,
					max_length: ANSWER_MAX_CHARS,
				},
			},
		],
	};
}
