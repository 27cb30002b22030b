/**
 * The adapter's own Slack messages (not cards): the lesson's parent message with its End
 * button, help, status, config and notices. Every text is escaped and bounded so it
 * stays within Block Kit limits whatever a topic contains.
 */

import type { KnownBlock } from "@slack/types";
import type { LessonMode } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { escapeMrkdwn } from "../../render/index.ts";
import { clipReply } from "../lesson/commands.ts";
import type { NoticeStyle } from "../lesson/notices.ts";

/** The slash command this adapter answers. */
export const LESSON_COMMAND = "/lesson";

/** Notices on Slack: the command's start form, mrkdwn escaping, `<@id>` and `<#id>` mentions, a "workspace". */
export const SLACK_STYLE: NoticeStyle = {
	// Escaped: a bare <topic> is Slack control syntax, and the word would vanish.
	startHint: "`/lesson start &lt;topic&gt;`",
	reviewHint: "`/lesson review`",
	escape: escapeMrkdwn,
	bold: (text) => `*${text}*`,
	place: "workspace",
	noticePictures: false,
};

/** action_id of the parent message's End button (ours, not a render component id). */
export const END_ACTION_ID = "lh-slack:end";

/** action_id of the Home tab's Review now button (home.ts; ours, not a card's component id). */
export const HOME_REVIEW_ACTION_ID = "lh-slack:home-review";

/** A message body: fallback text plus blocks. */
export interface SlackBody {
	text: string;
	blocks: KnownBlock[];
}

/** Cut text to `max` characters on a word boundary when possible, with an ellipsis (the controller's reply cut). */
export const clip = clipReply;

const section = (text: string): KnownBlock => ({ type: "section", text: { type: "mrkdwn", text: clip(text, 3000) } });
const context = (text: string): KnownBlock => ({
	type: "context",
	elements: [{ type: "mrkdwn", text: clip(text, 3000) }],
});

/** The parent message a lesson's thread hangs from. */
export function parentMessage(
	topic: string,
	learnerId: string,
	mode: LessonMode,
	locale: Locale = DEFAULT_LOCALE,
): SlackBody {
	const title = escapeMrkdwn(clip(topic, 200));
	const who = mode === "group" ? t(locale, "slack.parentGroup", { learner: `<@${learnerId}>` }) : `<@${learnerId}>`;
	const modeWord = t(locale, mode === "group" ? "status.mode.group" : "status.mode.solo");
	return {
		text: t(locale, "slack.lesson", { topic: title }),
		blocks: [
			section(t(locale, "slack.parent", { topic: title, who, mode: modeWord })),
			{
				type: "actions",
				elements: [
					{
						type: "button",
						action_id: END_ACTION_ID,
						text: { type: "plain_text", text: t(locale, "slack.endButton") },
						style: "danger",
						value: "end",
					},
				],
			},
		],
	};
}

/** The parent message once the lesson ended (the End button gone). */
export function endedParentMessage(
	topic: string,
	learnerId: string,
	how: string,
	locale: Locale = DEFAULT_LOCALE,
): SlackBody {
	const title = escapeMrkdwn(clip(topic, 200));
	return {
		text: t(locale, "slack.endedText", { topic: title }),
		blocks: [
			section(`:books: *${t(locale, "slack.lesson", { topic: title })}* (<@${learnerId}>)`),
			context(t(locale, "slack.ended", { how })),
		],
	};
}

/** `/lesson help`. */
export function helpText(command: string, locale: Locale = DEFAULT_LOCALE): string {
	return (
		(
			[
				"slack.help.start",
				"slack.help.for",
				"slack.help.language",
				"slack.help.end",
				"slack.help.status",
				"slack.help.profile",
				"slack.help.config",
				"slack.help.library",
				"slack.help.mention",
			] as const
		)
			// Escaped for mrkdwn: `<topic>` and `<@member>` are words to read here, not Slack links or mentions (which
			// made them vanish).
			.map((key) => escapeMrkdwn(t(locale, key, { command })))
			.join("\n")
	);
}
