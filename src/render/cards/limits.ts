/**
 * Platform limits the card mappers build within (design.md "Platform mapping
 * and hard limits"; Discord and Slack API references).
 */

/** Discord message and component limits. */
export const DISCORD_LIMITS = {
	contentChars: 2000,
	rowsPerMessage: 5,
	buttonsPerRow: 5,
	buttonLabelChars: 80,
	selectOptions: 25,
	selectOptionLabelChars: 100,
	selectOptionDescriptionChars: 100,
	selectPlaceholderChars: 150,
	customIdChars: 100,
	modalTitleChars: 45,
	modalComponents: 5,
	textInputLabelChars: 45,
	textInputPlaceholderChars: 100,
	textInputMaxLength: 4000,
	textDisplayChars: 4000,
	labelDescriptionChars: 100,
	/** A file upload takes 0..10 files (discord-api-docs, Component Reference: File Upload). */
	fileUploadMaxFiles: 10,
} as const;

/** Slack Block Kit limits. */
export const SLACK_LIMITS = {
	blocksPerMessage: 50,
	sectionTextChars: 3000,
	headerTextChars: 150,
	contextElements: 10,
	contextTextChars: 2000,
	actionsElements: 25,
	buttonTextChars: 75,
	buttonValueChars: 2000,
	staticSelectOptions: 100,
	optionTextChars: 75,
	optionValueChars: 150,
	placeholderChars: 150,
	actionIdChars: 255,
	modalTitleChars: 24,
	modalButtonChars: 24,
	modalBlocks: 100,
	inputLabelChars: 2000,
	privateMetadataChars: 3000,
	plainTextInputMaxLength: 3000,
	/** The top-level `text` fallback we send (Slack truncates far above this). */
	fallbackTextChars: 3000,
} as const;

/** Longest typed answer we accept in a modal (the engine stores it as the tool result). */
export const ANSWER_MAX_CHARS = 1500;

/** Cuts to `max` UTF-16 units on a code point boundary, with an ellipsis when cut; newlines become spaces. */
export function fitLine(text: string, max: number): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return fitText(flat, max);
}

/** Cuts to `max` UTF-16 units on a code point boundary, with an ellipsis when cut (keeps newlines). */
export function fitText(text: string, max: number): string {
	if (text.length <= max) return text;
	let out = "";
	for (const ch of text) {
		if (out.length + ch.length > max - 1) break;
		out += ch;
	}
	return `${out.trimEnd()}…`;
}

/** Closes a code fence the text leaves open (model-authored parts are joined: one must not swallow the next). */
export function closeFences(text: string): string {
	const fences = text.match(/^\s{0,3}(```|~~~)/gm)?.length ?? 0;
	return fences % 2 === 1 ? `${text}\n\`\`\`` : text;
}

/** fitText for markdown (at most `max` characters); a code fence left open, by the text or the cut, gets closed. */
export function fitMarkdown(text: string, max: number): string {
	if (text.length <= max) {
		const closed = closeFences(text);
		if (closed.length <= max) return closed;
	}
	return closeFences(fitText(text, max - 4));
}
