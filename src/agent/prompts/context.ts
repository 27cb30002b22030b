/**
 * The notes our code writes into the transcript for the model (as user
 * messages marked `kind: "context"`): the lesson's start. They are appended,
 * never edited, so the request prefix stays byte-stable.
 */

import type { LessonMode, Participant } from "../../core/contracts/events.ts";

/**
 * The first message of a lesson: what to teach, to whom, in which mode, and (`prior`)
 * what the learner's profile says they already know of related topics (agent/profile/prior-note.ts).
 */
export function lessonStartNote(topic: string, learner: Participant, mode: LessonMode, prior?: string): string {
	const who = learner.name ? `${learner.name}` : "the learner";
	const modeLine =
		mode === "group"
			? "Mode: group study. Several people may answer; their messages start with their name. Each quiz is a vote: every member answers privately, and its result is the tally with each member's answer; a split check vote is re-opened for a revote after your discussion."
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
