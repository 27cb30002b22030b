/**
 * The adapter's own Slack messages (not cards): the lesson's parent message with its End
 * button, help, status, config and notices. Every text is escaped and bounded so it
 * stays within Block Kit limits whatever a topic contains.
 */

import type { KnownBlock } from "@slack/types";
import type { LessonMode } from "../../core/contracts/events.ts";
import { escapeMrkdwn } from "../../render/index.ts";
import type { NoticeStyle } from "../lesson/notices.ts";

/** Notices on Slack: the command's start form, mrkdwn escaping, `<@id>` and `<#id>` mentions. */
export const SLACK_STYLE: NoticeStyle = {
	startHint: "`/lesson start <topic>`",
	escape: escapeMrkdwn,
	bold: (text) => `*${text}*`,
	noticePictures: false,
};

/** action_id of the parent message's End button (ours, not a render component id). */
export const END_ACTION_ID = "lh-slack:end";

/** A message body: fallback text plus blocks. */
export interface SlackBody {
	text: string;
	blocks: KnownBlock[];
}

/** Cut text to `max` characters on a word boundary when possible, with an ellipsis. */
export function clip(text: string, max: number): string {
	if (text.length <= max) return text;
	const cut = text.slice(0, max - 1);
	const space = cut.lastIndexOf(" ");
	return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

const section = (text: string): KnownBlock => ({ type: "section", text: { type: "mrkdwn", text: clip(text, 3000) } });
const context = (text: string): KnownBlock => ({
	type: "context",
	elements: [{ type: "mrkdwn", text: clip(text, 3000) }],
});

/** The parent message a lesson's thread hangs from. */
export function parentMessage(topic: string, learnerId: string, mode: LessonMode): SlackBody {
	const title = escapeMrkdwn(clip(topic, 200));
	const who = mode === "group" ? `<@${learnerId}> and anyone in the thread` : `<@${learnerId}>`;
	return {
		text: `Lesson: ${title}`,
		blocks: [
			section(`:books: *Lesson: ${title}*\nFor ${who} (${mode}). The lesson runs in this thread: answer there.`),
			{
				type: "actions",
				elements: [
					{
						type: "button",
						action_id: END_ACTION_ID,
						text: { type: "plain_text", text: "End lesson" },
						style: "danger",
						value: "end",
					},
				],
			},
		],
	};
}

/** The parent message once the lesson ended (the End button gone). */
export function endedParentMessage(topic: string, learnerId: string, how: string): SlackBody {
	return {
		text: `Lesson ended: ${escapeMrkdwn(clip(topic, 200))}`,
		blocks: [
			section(`:books: *Lesson: ${escapeMrkdwn(clip(topic, 200))}* (<@${learnerId}>)`),
			context(`Ended ${how}.`),
		],
	};
}

/** `/lesson help`. */
export function helpText(command: string): string {
	return [
		`*${command} start <topic>*: start a lesson (add \`--group\` for a study group that votes on each quiz, \`--solo\` for you only).`,
		`Admins: *${command} start <@member> <topic>* starts one for a member.`,
		`*${command} end*: end your lesson in this channel (or use the lesson's *End lesson* button).`,
		`*${command} status*: where your lesson in this channel stands.`,
		`*${command} config*: workspace settings (admins): \`channels #a #b\` or \`channels all\`, \`limit <n per day>\`, \`mode solo|group\`, \`vote_seconds <10-600>\`, \`vote_names on|off\`.`,
		"You can also mention me with a topic to start a lesson, and reply in the lesson thread to talk to the tutor.",
	].join("\n");
}
