/**
 * Group lessons on every platform, the controller's words: the private
 * acknowledgement of a vote, and the per-member lines of `/lesson status`.
 * (The tally card itself is drawn in src/render/cards/tally.ts.)
 */

import type { VoteAck } from "../../core/contracts/events.ts";
import type { MemberResult } from "../../core/votes.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import type { NoticeStyle } from "./notices.ts";

/** Members listed in `/lesson status` (the rest are counted). */
export const STATUS_MAX_MEMBERS = 20;

const oneLine = (text: string, max: number) => {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
};

/** The private acknowledgement of a vote: what was chosen, and that it may change until the tally. */
export function voteAckText(vote: VoteAck, style: NoticeStyle, locale: Locale = DEFAULT_LOCALE): string {
	const esc = style.escape ?? ((text: string) => text);
	const choice = vote.letter ? `${vote.letter} (${esc(oneLine(vote.answer, 80))})` : esc(oneLine(vote.answer, 120));
	return t(locale, vote.changed ? "vote.ackChanged" : "vote.ack", { choice });
}

/** `/lesson status` in a group lesson: each member's results (answered, right) in this lesson. */
export function memberLines(
	members: readonly MemberResult[] | undefined,
	style: NoticeStyle,
	locale: Locale = DEFAULT_LOCALE,
): string[] {
	if (!members || members.length === 0) return [];
	const mention = style.mention ?? ((id: string) => `<@${id}>`);
	const shown = members
		.slice(0, STATUS_MAX_MEMBERS)
		.map((m) => t(locale, "vote.memberLine", { member: mention(m.by.id), answered: m.answered, correct: m.correct }));
	const more =
		members.length > STATUS_MAX_MEMBERS
			? [t(locale, "vote.moreMembers", { count: members.length - STATUS_MAX_MEMBERS })]
			: [];
	return [t(locale, "vote.members"), ...shown, ...more];
}
