/**
 * A learner's App Home tab (a Slack `home` view for views.publish,
 * https://docs.slack.dev/reference/methods/views.publish): their progress per topic (learned /
 * shaky / not yet, items due), the reviews due now with a **Review now** button, or when the
 * next one is due. Built within Block Kit's limits: a Home tab holds at most 100 blocks, a
 * section 3,000 characters, so at most HOME_TOPICS topics are listed (the count of the rest
 * follows), ten to a section.
 */

import type { HomeView, KnownBlock } from "@slack/types";
import { DEFAULT_LOCALE, type Locale, t, tn } from "../../i18n/index.ts";
import { escapeMrkdwn } from "../markdown.ts";
import type { ProgressTopic } from "../progress-image.ts";
import { fitLine, fitText, SLACK_LIMITS as S } from "./limits.ts";

/** Topics listed on the tab (most recent first); the rest are counted. */
export const HOME_TOPICS = 30;
const TOPICS_PER_SECTION = 10;
const TOPIC_CHARS = 120;

/** What the Home tab shows. */
export interface HomeContent {
	topics: readonly ProgressTopic[];
	/** Review items due now. */
	due: number;
	/** When the next review is due, in words (shown when none is due now). */
	whenNext?: string;
	/** The action id of the Review now button (the adapter's). */
	reviewActionId: string;
	locale?: Locale;
}

const section = (mrkdwn: string): KnownBlock => ({
	type: "section",
	text: { type: "mrkdwn", text: fitText(mrkdwn, S.sectionTextChars) || "…" },
});

/** The Home tab's view (type `home`), at most 100 blocks. Never throws. */
export function slackHomeView(content: HomeContent): HomeView {
	const locale = content.locale ?? DEFAULT_LOCALE;
	const blocks: KnownBlock[] = [
		{ type: "header", text: { type: "plain_text", text: fitLine(t(locale, "home.title"), S.headerTextChars) } },
		{ type: "context", elements: [{ type: "mrkdwn", text: escapeMrkdwn(t(locale, "home.intro")) }] },
		{ type: "divider" },
	];
	if (content.due > 0)
		blocks.push(
			{
				type: "section",
				text: { type: "mrkdwn", text: `*${escapeMrkdwn(tn(locale, "reminder.due", content.due))}*` },
				accessory: {
					type: "button",
					action_id: content.reviewActionId,
					style: "primary",
					text: { type: "plain_text", text: fitLine(t(locale, "home.reviewButton"), S.buttonTextChars) },
					value: "review",
				},
			},
			{ type: "context", elements: [{ type: "mrkdwn", text: escapeMrkdwn(t(locale, "home.reviewHint")) }] },
		);
	else
		blocks.push(
			section(
				escapeMrkdwn(
					content.whenNext ? t(locale, "home.dueNone", { when: content.whenNext }) : t(locale, "home.nothingDue"),
				),
			),
		);
	blocks.push({ type: "divider" });
	if (content.topics.length === 0) {
		blocks.push(section(escapeMrkdwn(t(locale, "progress.none"))));
		return { type: "home", blocks };
	}
	blocks.push({
		type: "header",
		text: { type: "plain_text", text: fitLine(t(locale, "home.progressHeading"), S.headerTextChars) },
	});
	const shown = content.topics.slice(0, HOME_TOPICS);
	for (let i = 0; i < shown.length; i += TOPICS_PER_SECTION) {
		const lines = shown.slice(i, i + TOPICS_PER_SECTION).map((topic) =>
			escapeMrkdwn(
				t(locale, "progress.topic", {
					topic: fitLine(topic.topic, TOPIC_CHARS),
					learned: topic.learned,
					shaky: topic.shaky,
					notYet: topic.notYet,
					due: topic.due > 0 ? t(locale, "progress.topicDue", { count: topic.due }) : "",
				}),
			),
		);
		blocks.push(section(lines.join("\n")));
	}
	if (content.topics.length > shown.length)
		blocks.push({
			type: "context",
			elements: [
				{
					type: "mrkdwn",
					text: escapeMrkdwn(t(locale, "progress.moreTopics", { count: content.topics.length - shown.length })),
				},
			],
		});
	return { type: "home", blocks };
}
