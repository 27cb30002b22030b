/**
 * What the adapter tells people in ephemeral notices: refusals (the tutor's
 * HandleResult codes and the adapter's own checks) and the help text.
 */

import type { HandleResult, RefusalCode } from "../../core/contracts/events.ts";

const ANSWER_NOTICES: Record<RefusalCode, string> = {
	"unknown-session": "There is no lesson in this thread. Start one with `/lesson start`.",
	ended: "This lesson has ended. Start a new one with `/lesson start`.",
	"not-allowed":
		"This is someone else's solo lesson, so only its learner can answer. Start your own with `/lesson start`.",
	"not-pending": "That question is no longer open (it was answered or replaced), so nothing was recorded.",
	"already-answered": "That question was already answered, so nothing was recorded.",
	"invalid-answer": "That answer could not be recorded",
};

/** The notice for a refused answer, reply or end; the tutor's own message where it says more. */
export function refusalNotice(
	result: Extract<HandleResult, { ok: false }>,
	action: "answer" | "end" = "answer",
): string {
	if (action === "end" && result.code === "not-allowed")
		return "Only the learner or an admin (Manage Server) can end this lesson.";
	const base = ANSWER_NOTICES[result.code] ?? "That was not recorded.";
	return result.code === "invalid-answer" ? `${base}: ${result.message}` : base;
}

/** Adapter-side refusals and replies. */
export const NOTICES = {
	notInGuild: "Lessons run in servers, not in direct messages.",
	notALessonThread: "There is no lesson in this thread. Start one with `/lesson start`.",
	unknownComponent: "This control is not one I know (it may be from an older version); nothing was recorded.",
	adminsOnly: "Only members with the Manage Server permission can do that.",
	forOthersAdminsOnly: "Only admins (Manage Server) can start a lesson for someone else.",
	notForBots: "Lessons are for people, not bots.",
	badChannel: "Lessons run in text channels and their threads. Try a text channel.",
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
