/**
 * The controller's own replies in every platform's markup: a lesson's status
 * and a community's lesson rules. One wording; each platform passes its
 * style (bold, mentions, escaping, a relative time where it has one).
 */

import { DEFAULT_LOCALE, LANGUAGE_NAMES, type Locale, t } from "../../i18n/index.ts";
import { capsLines } from "./budget-texts.ts";
import type { LessonStatus } from "./controller.ts";
import type { LessonRules } from "./lesson-rules.ts";
import { type NoticeStyle, pendingLabel, phaseLabel } from "./notices.ts";
import { memberLines } from "./votes.ts";

const bold = (style: NoticeStyle, text: string) => (style.bold ?? ((t: string) => `**${t}**`))(text);
/** Whitespace collapsed, cut to `max` characters. */
export const oneLine = (text: string, max: number) => text.replace(/\s+/g, " ").trim().slice(0, max);

/** `/lesson status` in `locale` (default the lesson's own): the topic and learner, the phase, open questions, the tokens, the assessment and the map. */
export function statusText(
	{ summary, picture }: LessonStatus,
	style: NoticeStyle,
	link?: string,
	locale: Locale = summary.language ?? DEFAULT_LOCALE,
): string {
	const esc = style.escape ?? ((t: string) => t);
	const mention = style.mention ?? ((id: string) => `<@${id}>`);
	const started = Date.parse(summary.createdAt);
	const since = style.time && Number.isFinite(started) ? t(locale, "status.since", { time: style.time(started) }) : "";
	const lines = [
		t(locale, "status.line", {
			topic: bold(style, esc(oneLine(summary.topic, 200))),
			mode: t(locale, summary.mode === "group" ? "status.mode.group" : "status.mode.solo"),
			learner: mention(summary.learner.id),
			since,
			link: link ?? "",
		}),
		summary.phase === "ended"
			? t(locale, "status.ended")
			: t(locale, "status.now", {
					phase: phaseLabel(summary.phase, locale),
					pending: pendingLabel(summary.pending.length, locale),
				}),
	];
	if (summary.language !== undefined && summary.language !== DEFAULT_LOCALE)
		lines.push(t(locale, "status.language", { language: LANGUAGE_NAMES[summary.language].native }));
	const u = summary.usage;
	lines.push(t(locale, "status.tokens", { input: u.inputTokens, cached: u.cachedInputTokens, output: u.outputTokens }));
	lines.push(...memberLines(summary.members, style, locale));
	if (summary.assessment?.summary)
		lines.push(t(locale, "status.assessment", { summary: esc(oneLine(summary.assessment.summary, 500)) }));
	if (!summary.plan) lines.push(t(locale, "status.noMap"));
	else if (picture) {
		lines.push(`🗺️ ${esc(picture.caption)}`);
		// Without a picture the notice shows (none drawn, or a platform whose notices carry none), the outline.
		if (!picture.png || style.noticePictures === false) lines.push(`\`\`\`\n${esc(picture.outline)}\n\`\`\``);
	}
	return lines.join("\n");
}

/** `/lesson config`: where lessons may run, the daily limit, the default mode, the token caps and prices, the curated topics (`place`: "server", "workspace"). */
export function rulesText(
	rules: LessonRules,
	style: NoticeStyle,
	place = "server",
	locale: Locale = DEFAULT_LOCALE,
): string {
	const channel = style.channel ?? ((id: string) => `<#${id}>`);
	const esc = style.escape ?? ((text: string) => text);
	const channels = rules.channels.length > 0 ? rules.channels.map(channel).join(", ") : t(locale, "rules.everyChannel");
	const limit =
		rules.lessonsPerDay > 0 ? t(locale, "rules.perMember", { count: rules.lessonsPerDay }) : t(locale, "rules.noLimit");
	return [
		bold(style, t(locale, "rules.title")),
		t(locale, "rules.channels", { channels }),
		t(locale, "rules.limit", { limit }),
		t(locale, "rules.defaultMode", { mode: rules.defaultMode }),
		t(locale, rules.voteNames ? "rules.votesNamed" : "rules.votesAnonymous", { seconds: rules.voteSeconds }),
		t(locale, rules.membersAddMaterial ? "rules.libraryMembers" : "rules.libraryAdmins"),
		...capsLines(rules, place, locale),
		// Shown once set (Discord's `topics` option); a platform without autocomplete never sets any.
		...(rules.topics.length > 0
			? [t(locale, "rules.topics", { topics: rules.topics.map((topic) => esc(topic)).join(", ") })]
			: []),
	].join("\n");
}
