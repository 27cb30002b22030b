/**
 * The notes our code writes into the transcript for the model (as user
 * messages marked `kind: "context"`): the lesson's start. They are appended,
 * never edited, so the request prefix stays byte-stable. And the line that
 * tells both agents which language the lesson runs in.
 */

import type { LessonMode, Participant } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, isLocale, LANGUAGE_NAMES, type Locale } from "../../i18n/index.ts";

/**
 * The first message of a lesson: what to teach, to whom, in which mode, and (`prior`)
 * what the learner's profile says they already know of related topics (agent/profile/prior-note.ts).
 */
export function lessonStartNote(topic: string, learner: Participant, mode: LessonMode, prior?: string): string {
	const who = learner.name ? `${learner.name}` : "the learner";
	const modeLine =
		mode === "group"
			? "Mode: group study. Several people may answer; their messages start with their name. Each quiz is a vote: every member answers privately, and its result is the tally with each member's answer; a check vote that split or that the group got wrong is re-opened for a revote after your discussion (that turn is the discussion only: no new question or explanation, never the answer); a tie names every tied answer."
			: `Mode: solo (one learner, ${who}).`;
	return [
		"[Lesson note from learnharness, not typed by the learner]",
		`Topic: ${topic}`,
		`Learner: ${who}`,
		modeLine,
		...(prior ? [prior] : []),
		"Begin.",
	].join("\n");
}

/** A learner's typed message as the model sees it (group mode names the speaker). */
export function learnerMessageText(text: string, by: Participant, mode: LessonMode): string {
	return mode === "group" ? `${by.name ?? by.id}: ${text}` : text;
}

/**
 * The line appended to the system prompt of a lesson in another language than
 * English (none for English: those requests stay byte-identical to before).
 * One constant string per language, so provider prompt caching still applies.
 */
export function languageInstruction(locale: Locale): string | undefined {
	if (locale === DEFAULT_LOCALE || !isLocale(locale)) return undefined;
	const { english, native } = LANGUAGE_NAMES[locale];
	return [
		`Lesson language: ${english} (${native}, \`${locale}\`).`,
		`Teach this whole lesson in ${english}: every message, question, answer option, explanation, hint,`,
		`the lesson map's node titles and the assessment are written in ${english}, whatever language the`,
		"instructions above are in. Keep tool names, argument names and code identifiers as they are.",
		`If the learner writes in another language, answer in ${english} unless they ask to switch.`,
	].join(" ");
}
