/**
 * An explanation card as markdown for Slack's chat streaming (chat.startStream / appendStream /
 * stopStream take standard markdown in `markdown_text`, at most 12,000 characters a call:
 * https://docs.slack.dev/reference/methods/chat.appendStream). The card's lead, its heading in
 * bold, then its body (tables as aligned code, as in a posted card), in chunks split at
 * paragraphs. A card with pictures (its formulas) or long code (shared as files) is not streamed:
 * the normal post shows those.
 */

import { DEFAULT_LOCALE } from "../../i18n/index.ts";
import { longCodeToFiles } from "../code-files.ts";
import { splitMessage } from "../split-message.ts";
import { tablesToCode } from "../tables.ts";
import { explainHeading } from "./layout.ts";
import type { Card } from "./model.ts";
import { SLACK_CODE_FILE_CHARS } from "./slack.ts";

/** Characters per streamed chunk (well under markdown_text's 12,000). */
export const SLACK_STREAM_CHUNK_CHARS = 800;

/**
 * Slack's control sequences (`<!here>`, `<@U…>`, `<#C…>`) broken with a zero-width space, so model text can
 * mention or notify nobody; everything else stays as written.
 */
const inert = (markdown: string): string => markdown.replace(/<([!@#])/g, "<\u200b$1");

/** The card's markdown in chunks to stream, in order; undefined when it is not an explanation or cannot stream. */
export function toSlackStream(card: Card, chunkChars = SLACK_STREAM_CHUNK_CHARS): string[] | undefined {
	if (card.kind !== "explain" || (card.attachments?.length ?? 0) > 0) return undefined;
	const body = tablesToCode(card.body);
	if (longCodeToFiles(body, SLACK_CODE_FILE_CHARS).files.length > 0) return undefined;
	const heading = explainHeading(card.title, card.role, card.locale ?? DEFAULT_LOCALE);
	const parts = [card.lead?.trim(), heading ? `**${heading}**` : undefined, body.trim()].filter(
		(p): p is string => p !== undefined && p !== "",
	);
	if (parts.length === 0) return undefined;
	// Each chunk ends where a paragraph did: the next one starts a paragraph of its own.
	return splitMessage(inert(parts.join("\n\n")), chunkChars).map((chunk, i) => (i === 0 ? chunk : `\n\n${chunk}`));
}
