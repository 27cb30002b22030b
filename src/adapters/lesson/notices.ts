/**
 * What people are told when something they did was refused: the tutor's
 * refusal codes (and the adapters' own pre-checks, which use the same codes)
 * as short private notices. The same words on Discord and Slack; each adapter
 * passes its own command hint and markup escaping.
 */

import type { RefusalCode } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, formatOrList, type Locale, t, tn } from "../../i18n/index.ts";

/** A refusal: the tutor's HandleResult, or an adapter check with an empty message. */
export interface Refusal {
	code: RefusalCode;
	message: string;
}

/** How a notice is phrased on a platform. */
export interface NoticeStyle {
	/** How to start a lesson, e.g. "`/lesson start`". */
	startHint: string;
	/** Who counts as an admin, e.g. " (Manage Server)" in the reader's language; appended to "an admin". */
	adminHint?: string | ((locale: Locale) => string);
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
	/** What a community is called here in the rules and usage texts: "server" (the default) or "workspace". */
	place?: string;
	/** false when a private notice cannot carry a picture (the outline goes in its text instead). */
	noticePictures?: boolean;
	/** How to start a review, e.g. "`/lesson review`" (the closing message names it). */
	reviewHint?: string;
	/** false where no reminder can reach the learner (the terminal): the closing message offers no Remind me. */
	reminders?: false;
}

/** The platform's admin hint in `locale` ("" when it has none). */
export function adminHintIn(style: NoticeStyle, locale: Locale): string {
	const hint = style.adminHint;
	return typeof hint === "function" ? hint(locale) : (hint ?? "");
}

/** What the refused person tried. */
export type RefusedAction = "answer" | "end";

/** The private notice for a refusal in `locale`; `learner` (a mention) names whose solo lesson it is, when known. */
export function refusalNotice(
	refusal: Refusal,
	style: NoticeStyle,
	options: { action?: RefusedAction; learner?: string; locale?: Locale } = {},
): string {
	const start = style.startHint;
	const locale = options.locale ?? DEFAULT_LOCALE;
	const why = () => (style.escape ?? ((t: string) => t))(refusal.message.trim());
	switch (refusal.code) {
		case "unknown-session":
			return t(locale, "refuse.noLesson", { start });
		case "ended":
			return t(locale, "refuse.ended", { start });
		case "not-allowed":
			if (options.action === "end")
				return t(locale, "refuse.endNotAllowed", {
					learner: options.learner ?? t(locale, "refuse.theLearner"),
					adminHint: adminHintIn(style, locale),
				});
			return options.learner
				? t(locale, "refuse.soloOf", { learner: options.learner, start })
				: t(locale, "refuse.soloOther", { start });
		case "not-pending":
			return t(locale, "refuse.notPending");
		case "already-answered":
			return t(locale, "refuse.alreadyAnswered");
		case "invalid-answer": {
			const text = why();
			return text ? t(locale, "refuse.invalidAnswerWhy", { why: text }) : t(locale, "refuse.invalidAnswer");
		}
		case "closing":
			return t(locale, "refuse.closing");
		case "store-unavailable":
			// The engine's words are English; ours say the same in the lesson's language.
			return locale === DEFAULT_LOCALE && why() ? why() : t(locale, "refuse.storeUnavailable");
		default: {
			// Codes without words of our own (any the engine adds): the engine's message.
			const text = why();
			return text ? text : t(locale, "refuse.notRecorded");
		}
	}
}

/** The refusal when a member reached the daily limit (`count` started today, `limit` a day). */
export function dailyLimitNotice(count: number, limit: number, locale: Locale = DEFAULT_LOCALE): string {
	return t(locale, "refuse.dailyLimit", {
		count: tn(locale, "count.lessons", count),
		limit: tn(locale, "count.lessons", limit),
	});
}

/** The refusal when lessons may not run in this channel; `channels` are the allowed ones, as platform mentions. */
export function channelNotAllowedNotice(
	channels: readonly string[],
	startHint: string,
	locale: Locale = DEFAULT_LOCALE,
): string {
	return t(locale, "refuse.channel", { start: startHint, channels: formatOrList(locale, channels) });
}

/** A lesson's phase, as a learner reads it. */
export function phaseLabel(phase: string, locale: Locale = DEFAULT_LOCALE): string {
	if (phase === "probe" || phase === "teach" || phase === "ended") return t(locale, `phase.${phase}`);
	return phase;
}

/** Open questions, as a learner reads them. */
export function pendingLabel(count: number, locale: Locale = DEFAULT_LOCALE): string {
	if (count === 0) return t(locale, "pending.none");
	return tn(locale, "count.questionsWaiting", count);
}

/** The thread's closing line: the lesson's end ("Lesson complete.", "Lesson ended by …") plus how to go on. */
export function closingLine(ended: string, startHint: string, locale: Locale = DEFAULT_LOCALE): string {
	return t(locale, "tutor.closing", { ended: ended.trim(), start: startHint });
}
