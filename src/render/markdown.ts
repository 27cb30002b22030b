/**
 * Markdown -> Slack mrkdwn (slackify-markdown), made safe for model-authored
 * text: slackify passes raw `<...>` through, and in mrkdwn `<!channel>`,
 * `<@U123>` or `<https://x|y>` are live syntax. We keep the links slackify
 * itself produced and escape every other `&`, `<`, `>`.
 */

import slackifyMarkdown from "slackify-markdown";

// Links slackify emits: <url|text> or <url>, http(s)/mailto only.
const SLACK_LINK = /<(?:https?:\/\/|mailto:)[^\s<>|]+(?:\|[^<>\n]*)?>/g;

/** Escapes text for a Slack mrkdwn field (no formatting is interpreted as a mention or link). */
export function escapeMrkdwn(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Escapes `&<>` outside slackify's own links, keeping existing `&amp;`/`&lt;`/`&gt;` and line-start quotes. */
function escapeOutsideLinks(mrkdwn: string): string {
	let out = "";
	let last = 0;
	const escapeText = (s: string): string =>
		s
			.replace(/&(?!amp;|lt;|gt;)/g, "&amp;")
			.replace(/</g, "&lt;")
			// `> ` at a line start is a mrkdwn quote; every other `>` is text.
			.replace(/>/g, (gt, offset: number, all: string) =>
				(offset === 0 || all[offset - 1] === "\n") && all[offset + 1] === " " ? gt : "&gt;",
			);
	for (const m of mrkdwn.matchAll(SLACK_LINK)) {
		const index = m.index ?? 0;
		out += escapeText(mrkdwn.slice(last, index)) + m[0];
		last = index + m[0].length;
	}
	return out + escapeText(mrkdwn.slice(last));
}

/** Converts markdown to Slack mrkdwn; mentions and raw HTML in the input become plain text. */
export function markdownToMrkdwn(markdown: string): string {
	if (markdown.trim() === "") return "";
	let converted: string;
	try {
		converted = slackifyMarkdown(markdown);
	} catch {
		converted = markdown; // slackify should not throw, but a display path never crashes
	}
	return escapeOutsideLinks(converted.replace(/\\\n/g, "\n")).trim();
}
