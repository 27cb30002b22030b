/**
 * What the adapter tells people in ephemeral notices: refusals (the shared
 * wording of the tutor's refusal codes, Discord-styled) and the adapter's own
 * replies, plus the help text.
 */

import { type Refusal, type RefusedAction, refusalNotice as sharedRefusalNotice } from "../shared/notices.ts";

const STYLE = { startHint: "`/lesson start`", adminHint: " (Manage Server)" };

/** The notice for a refused answer, reply or end; `learnerId` names whose solo lesson it is, when known. */
export function refusalNotice(refusal: Refusal, action: RefusedAction = "answer", learnerId?: string): string {
	return sharedRefusalNotice(refusal, STYLE, { action, ...(learnerId ? { learner: `<@${learnerId}>` } : {}) });
}

/** Adapter-side refusals and replies. */
export const NOTICES = {
	notInGuild: "Lessons run in servers, not in direct messages.",
	notALessonThread:
		"There is no lesson here. Run this inside a lesson's thread, or start a lesson with `/lesson start`.",
	unknownComponent: "This control is not one I know (it may be from an older version); nothing was recorded.",
	adminsOnly: "Only members with the Manage Server permission can do that.",
	forOthersAdminsOnly: "Only admins (Manage Server) can start a lesson for someone else.",
	notForBots: "Lessons are for people, not bots.",
	badChannel: "Lessons run in text and announcement channels and their threads. Try a text channel.",
	internalError: "Something went wrong on my side and nothing was recorded. Please try again.",
	invalidChoice: "That choice is not one of the options; nothing was recorded.",
	emptyAnswer: "Your answer was empty; nothing was recorded.",
} as const;

/** The help text of `/lesson help`. */
export const HELP_TEXT = [
	"**learnharness: a tutor in a thread**",
	"`/lesson start topic:<anything>` opens a thread. The tutor first asks a few questions to find where you are, then draws a lesson map and teaches with short explanations and quizzes.",
	"• Answer with the buttons or the menu; **Answer** opens a box for typed answers.",
	"• Type in the thread to ask or steer; the tutor reads it.",
	"• `mode:solo` (only the learner answers) or `mode:group` (anyone in the thread).",
	"• `/lesson status` shows the map and progress (only to you); `/lesson end` ends the lesson (the learner or an admin).",
	"• Admins: `/lesson config` sets the channels lessons may use, lessons per member per day and the default mode.",
].join("\n");
