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
	/** A user mention, e.g. `<@123>` (default that form). */
	mention?: (userId: string) => string;
	/** A channel mention, e.g. `<#123>` (default that form). */
	channel?: (channelId: string) => string;
	/** Bold text (default `**text**`). */
	bold?: (text: string) => string;
	/** A time relative to now, when the platform renders one (Discord's `<t:…:R>`); epoch ms in. */
	time?: (epochMs: number) => string;
	/** false when a private notice cannot carry a picture (the outline goes in its text instead). */
	noticePictures?: boolean;
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
			return `There is no lesson here. Start one with ${start}.`;
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
		case "closing":
			return "The tutor is restarting, so nothing was recorded. Try again in a moment.";
		default: {
			// Codes without words of our own ("store-unavailable", and any the engine adds): the engine's message.
			const why = (style.escape ?? ((t: string) => t))(refusal.message.trim());
			return why ? `${why}` : "That was not recorded.";
		}
	}
}

/** "1 lesson", "3 lessons": a count with its noun, singular or plural. */
export function plural(count: number, noun: string): string {
	return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The refusal when a member reached the daily limit (`count` started today, `limit` a day). */
export function dailyLimitNotice(count: number, limit: number): string {
	return `You have already started ${plural(count, "lesson")} today; the limit here is ${plural(limit, "lesson")} per member per day (UTC). Try again tomorrow.`;
}

/** The refusal when lessons may not run in this channel; `channels` are the allowed ones, as platform mentions. */
export function channelNotAllowedNotice(channels: readonly string[], startHint: string): string {
	const list = channels.length === 1 ? channels[0] : `${channels.slice(0, -1).join(", ")} or ${channels.at(-1)}`;
	return `Lessons can't run in this channel. Run ${startHint} in ${list}.`;
}

/** A lesson's phase, as a learner reads it. */
export function phaseLabel(phase: string): string {
	if (phase === "probe") return "finding out what you already know";
	if (phase === "teach") return "teaching";
	if (phase === "ended") return "ended";
	return phase;
}

/** Open questions, as a learner reads them. */
export function pendingLabel(count: number): string {
	if (count === 0) return "no question open";
	return `${plural(count, "question")} waiting for an answer`;
}

/** The thread's closing line: the engine's "Lesson complete." / "Lesson ended by …" plus how to go on. */
export function closingLine(ended: string, startHint: string): string {
	return `${ended.trim()} Start another lesson any time with ${startHint}.`;
}
