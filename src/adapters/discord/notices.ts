/**
 * Discord's words: how notices are styled (the shared wording lives in
 * lesson/notices.ts), the intro a lesson thread opens with, the adapter's own
 * replies and the help text.
 */

import type { NoticeStyle } from "../lesson/notices.ts";
import type { LessonIntro } from "../lesson/port.ts";

/** Notices on Discord: `/lesson start`, Manage Server admins, `<@id>` and `<#id>` mentions. */
export const DISCORD_STYLE: NoticeStyle = {
	startHint: "`/lesson start`",
	adminHint: " (Manage Server)",
	time: (ms) => `<t:${Math.floor(ms / 1000)}:R>`,
};

/** The first message of a lesson thread. */
export function introText({ topic, learner, mode, startedBy }: LessonIntro): string {
	const forWhom = learner.id === startedBy.id ? `<@${learner.id}>` : `<@${learner.id}> (started by <@${startedBy.id}>)`;
	const who =
		mode === "solo" ? `Solo lesson: only <@${learner.id}> answers.` : "Group lesson: anyone in this thread may answer.";
	return [
		`📚 **${topic.replace(/\s+/g, " ").trim().slice(0, 300)}**: a lesson for ${forWhom}.`,
		`${who} First a few questions to find where you are, then a lesson map. Type here any time to ask or steer; \`/lesson end\` ends it.`,
	].join("\n");
}

/** Adapter-side refusals and replies. */
export const NOTICES = {
	notInGuild: "Lessons run in servers, not in direct messages.",
	unknownComponent: "This control is not one I know (it may be from an older version); nothing was recorded.",
	notForBots: "Lessons are for people, not bots.",
	badChannel: "Lessons run in text and announcement channels and their threads. Try a text channel.",
	internalError: "Something went wrong on my side and nothing was recorded. Please try again.",
	invalidChoice: "That choice is not one of the options; nothing was recorded.",
} as const;

/** The help text of `/lesson help`. */
export const HELP_TEXT = [
	"**learnharness: a tutor in a thread**",
	"`/lesson start topic:<anything>` opens a thread. The tutor first asks a few questions to find where you are, then draws a lesson map and teaches with short explanations and quizzes.",
	"• Answer with the buttons or the menu; **Answer** opens a box for typed answers.",
	"• Type in the thread to ask or steer; the tutor reads it.",
	"• `mode:solo` (only the learner answers) or `mode:group` (a study group: everyone votes on each quiz).",
	"• `/lesson status` shows the map and progress (only to you); `/lesson end` ends the lesson (the learner or an admin).",
	"• Admins: `/lesson config` sets the channels lessons may use, lessons per member per day and the default mode.",
].join("\n");
