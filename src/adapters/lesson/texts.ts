/**
 * The controller's own replies in every platform's markup: a lesson's status
 * and a community's lesson rules. One wording; each platform passes its
 * style (bold, mentions, escaping, a relative time where it has one).
 */

import { capsLines, tokens } from "./budget-texts.ts";
import type { LessonStatus } from "./controller.ts";
import type { LessonRules } from "./lesson-rules.ts";
import { type NoticeStyle, pendingLabel, phaseLabel } from "./notices.ts";
import { memberLines } from "./votes.ts";

const bold = (style: NoticeStyle, text: string) => (style.bold ?? ((t: string) => `**${t}**`))(text);
const oneLine = (text: string, max: number) => text.replace(/\s+/g, " ").trim().slice(0, max);

/** `/lesson status`: the topic and learner, the phase, open questions, the assessment and the map. */
export function statusText({ summary, picture }: LessonStatus, style: NoticeStyle, link?: string): string {
	const esc = style.escape ?? ((t: string) => t);
	const mention = style.mention ?? ((id: string) => `<@${id}>`);
	const started = Date.parse(summary.createdAt);
	const since = style.time && Number.isFinite(started) ? ` · started ${style.time(started)}` : "";
	const lines = [
		`${bold(style, esc(oneLine(summary.topic, 200)))} · ${summary.mode} lesson for ${mention(summary.learner.id)}${since}${link ?? ""}`,
		summary.phase === "ended"
			? "This lesson has ended."
			: `Now: ${phaseLabel(summary.phase)} · ${pendingLabel(summary.pending.length)}`,
	];
	const u = summary.usage;
	lines.push(
		`Tokens: ${tokens(u.inputTokens)} input (${tokens(u.cachedInputTokens)} cached) + ${tokens(u.outputTokens)} output`,
	);
	lines.push(...memberLines(summary.members, style));
	if (summary.assessment?.summary) lines.push(`Assessment: ${esc(oneLine(summary.assessment.summary, 500))}`);
	if (!summary.plan) lines.push("No lesson map yet: it is drawn once the first questions are answered.");
	else if (picture) {
		lines.push(`🗺️ ${esc(picture.caption)}`);
		// Without a picture the notice shows (none drawn, or a platform whose notices carry none), the outline.
		if (!picture.png || style.noticePictures === false) lines.push(`\`\`\`\n${esc(picture.outline)}\n\`\`\``);
	}
	return lines.join("\n");
}

/** `/lesson config`: where lessons may run, the daily limit, the default mode, the token caps and prices (`place`: "server", "workspace"). */
export function rulesText(rules: LessonRules, style: NoticeStyle, place = "server"): string {
	const channel = style.channel ?? ((id: string) => `<#${id}>`);
	const channels = rules.channels.length > 0 ? rules.channels.map(channel).join(", ") : "every channel";
	const limit =
		rules.lessonsPerDay > 0 ? `${rules.lessonsPerDay} per member per day (admins exempt)` : "no daily limit";
	return [
		bold(style, "Lessons here"),
		`• Channels: ${channels}`,
		`• Limit: ${limit}`,
		`• Default mode: ${rules.defaultMode}`,
		`• Group votes: open ${rules.voteSeconds} s after the first vote; the tally ${rules.voteNames ? "names" : "does not name"} voters`,
		...capsLines(rules, place),
	].join("\n");
}
