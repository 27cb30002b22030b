/**
 * The Discord modal behind an "Answer" button: the question as a text
 * display, then a labelled paragraph text input. Submitted values come back
 * under the text input's custom_id (`lh:text:<toolCallId>`). When the answer
 * may bring pictures of the learner's working, a second label holds an
 * optional file upload (`lh:file:<toolCallId>`): its submit names the uploaded
 * attachments by id, resolved in the interaction's `data.resolved.attachments`
 * (discord-api-docs, Component Reference: Label (type 18), File Upload (type 19)).
 */

import { type APIModalInteractionResponseCallbackData, ComponentType, TextInputStyle } from "discord-api-types/v10";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { encodeComponentId } from "../component-id.ts";
import { ANSWER_MAX_CHARS, DISCORD_LIMITS as D, fitLine, fitMarkdown } from "./limits.ts";

/** The pictures a modal may take: at most `count`, `maxBytes` each. */
export interface ModalPictures {
	count: number;
	maxBytes: number;
}

const megabytes = (bytes: number): string => `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;

/**
 * The modal a free-answer click opens (show it as the FIRST response to the click); with `pictures`, it also
 * takes an optional upload of pictures. Throws ComponentIdError for an over-long tool call id.
 */
export function discordAnswerModal(
	toolCallId: string,
	question: string,
	locale: Locale = DEFAULT_LOCALE,
	pictures?: ModalPictures,
): APIModalInteractionResponseCallbackData {
	const text = question.trim();
	const count = pictures ? Math.min(Math.max(1, Math.floor(pictures.count)), D.fileUploadMaxFiles) : 0;
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
			...(pictures
				? [
						{
							type: ComponentType.Label as const,
							label: fitLine(t(locale, "form.fileLabel"), D.textInputLabelChars),
							description: fitLine(
								t(locale, "form.fileHint", { count: String(count), max: megabytes(pictures.maxBytes) }),
								D.labelDescriptionChars,
							),
							component: {
								type: ComponentType.FileUpload as const,
								custom_id: encodeComponentId({ verb: "file", toolCallId }),
								// Optional: Discord requires min_values 0 with required false (a required upload needs >= 1).
								min_values: 0,
								max_values: count,
								required: false,
								// The picker shows images first; the bytes are still checked when read (extensions prove nothing).
								file_types: ["image" as const],
							},
						},
					]
				: []),
		],
	};
}
