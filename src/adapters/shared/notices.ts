/**
 * What people are told when something they did was refused: the tutor's
 * refusal codes (and the adapters' own pre-checks, which use the same codes)
 * as short private notices. The same words on Discord and Slack; each adapter
 * passes its own command hint and markup escaping.
 */

import type { RefusalCode } from "../../core/contracts/events.ts";

/** A refusal: the tutor's HandleResult, or an adapter check with an empty message. */
export interface Refusal {
	code: RefusalCode;
	message: string;
}

/** How a notice is phrased on a platform. */
export interface NoticeStyle {
	/** How to start a lesson, e.g. "`/lesson start`". */
	startHint: string;
	/** Who counts as an admin, e.g. " (Manage Server)"; appended to "an admin". */
	adminHint?: string;
	/** Escape text that came from elsewhere (the tutor's message) for the platform's markup. */
	escape?: (text: string) => string;
}

/** What the refused person tried. */
export type RefusedAction = "answer" | "end";

/** The private notice for a refusal; `learner` (a mention) names whose solo lesson it is, when known. */
export function refusalNotice(
	refusal: Refusal,
	style: NoticeStyle,
	options: { action?: RefusedAction; learner?: string } = {},
): string {
	const start = style.startHint;
	switch (refusal.code) {
		case "unknown-session":
			return `There is no lesson in this thread. Start one with ${start}.`;
		case "ended":
			return `This lesson has ended. Start a new one with ${start}.`;
		case "not-allowed":
			if (options.action === "end")
				return `Only ${options.learner ?? "the learner"} or an admin${style.adminHint ?? ""} can end this lesson.`;
			return options.learner
				? `This is ${options.learner}'s solo lesson, so only they can answer. Start your own with ${start}.`
				: `This is someone else's solo lesson, so only its learner can answer. Start your own with ${start}.`;
		case "not-pending":
			return "That question is no longer open (it was answered or replaced), so nothing was recorded.";
		case "already-answered":
			return "That question was already answered, so nothing was recorded.";
		case "invalid-answer": {
			const why = (style.escape ?? ((t: string) => t))(refusal.message.trim());
			return why ? `That answer could not be recorded: ${why}` : "That answer could not be recorded.";
		}
		default:
			return "That was not recorded.";
	}
}
