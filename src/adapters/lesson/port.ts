/**
 * The platform port: what a chat platform (Discord, Slack, the terminal)
 * implements so the one lesson controller can run lessons on it. Small and
 * capability-shaped, after the Vercel Chat SDK's `Adapter`: post, edit, upload
 * a picture, typing, open and close a lesson's thread, encode/decode its
 * thread ids, its limits. What only makes sense as an answer to one person's
 * action (a private notice, the answer form) is handed in with that action:
 * see `Actor`.
 *
 * A thread id is the lesson's session id: `<platform>:<…>` (`discord:<guild>:<thread>`,
 * `slack:<team>:<channel>:<thread_ts>`, `terminal:<id>`), encoded and decoded by
 * its port only; it round-trips.
 */

import type { LessonMode, Participant, TutorEvent } from "../../core/contracts/events.ts";
import type { Locale } from "../../i18n/index.ts";
import type { Card, PlanPicture } from "../../render/index.ts";
import type { NoticeStyle } from "./notices.ts";

/** The intro of a lesson: what its thread opens with (and what an `ended` update re-shows). */
export interface LessonIntro {
	topic: string;
	learner: Participant;
	startedBy: Participant;
	mode: LessonMode;
	/** The lesson's language (its intro, cards and notices are in it; default English). */
	language?: Locale;
}

/** Where a lesson should open: a community (guild, team), the channel whose rules apply, an existing thread. */
export interface LessonPlace {
	/** The Discord guild or Slack team (per-community rules and counters). */
	community: string;
	/** The channel lessons are allowed in (for a thread: its parent channel). */
	channelId: string;
	/** Run the lesson in this existing thread (Discord) instead of opening one. */
	threadId?: string;
}

/** openThread's outcome: the lesson's thread id, or why there is none (a notice for the person). */
export type OpenedThread = { ok: true; threadId: string } | { ok: false; message: string };

/** The answer form for a free-answer quiz or a free-text ask. */
export interface AnswerForm {
	threadId: string;
	toolCallId: string;
	/** The question, as its label (empty when the tutor could not say in time; the submit is checked anyway). */
	question: string;
	/** The form's own words in this language (default English). */
	locale?: Locale;
	/**
	 * The form may take pictures of the learner's working with the answer (the model reads pictures, and the
	 * question is not a group vote): at most `count` of them, `maxBytes` each. Absent: text only.
	 */
	pictures?: { count: number; maxBytes: number };
}

/** Someone acting in a lesson, and how to answer them privately. Built by the adapter per platform event. */
export interface Actor {
	by: Participant;
	/** Their own language, when the platform says (Discord's interaction locale; Slack's user locale when looked up); a supported one only. */
	locale?: Locale;
	/** Whether they administer lessons here (Manage Server; a Slack admin or a configured id). Must not throw. */
	isAdmin(): Promise<boolean>;
	/** Tell this person privately (an ephemeral reply to their action), optionally with a picture. Must not throw. */
	notify(text: string, picture?: PlanPicture): Promise<void>;
	/**
	 * Show this person a card privately, its controls working (Discord: an ephemeral reply or follow-up), where the
	 * platform can; a private review asks its questions this way. Must not throw.
	 */
	show?(card: Card): Promise<void>;
	/** Show the answer form (Discord: the modal as the first response; Slack: views.open with the trigger). Must not throw. */
	openForm?(form: AnswerForm): Promise<void>;
	/** The tutor recorded (or refused) this person's event: the platform may acknowledge their click now (held-ack.ts). Must not throw. */
	recorded?(): void;
}

/** What the tutor is doing while a lesson waits on it: a platform may show it under the thread (Slack's status). */
export type WorkPhase = "thinking" | "checking" | "drawing";

/** How a card is posted. */
export interface PostOptions {
	/**
	 * The one reader of a solo lesson: a platform that can stream text to one person (Slack's chat streaming,
	 * which needs its recipient outside a DM) may stream an explanation to them. Absent in group lessons.
	 */
	streamTo?: Participant;
}

/** A platform's limits, as the controller needs them. */
export interface PlatformLimits {
	/** How long the answer-form pre-check may take before the form opens anyway (the platform's first-response deadline allows it). */
	formPrecheckMs: number;
	/** How often startTyping is repeated while the tutor works (its indicator fades after a few seconds). */
	typingRefreshMs?: number;
	/** How long a turn may post nothing before startTyping is called (default 0: at once); a fast turn sends none. */
	typingDelayMs?: number;
	/** The longest private reply to a command (Discord 2,000 characters, Slack's section text 3,000; default 2,000). */
	replyChars?: number;
}

/** What a platform implements for the lesson controller. */
export interface PlatformPort<Address = unknown> {
	/** "discord", "slack", "terminal": the thread id prefix, and the log tag. */
	readonly name: string;
	readonly limits: PlatformLimits;
	/** How notices read on this platform (hints, mentions, escaping). */
	readonly style: NoticeStyle;
	/** postCard may stream a solo lesson's explanations to its learner (PostOptions.streamTo): Slack's chat streaming. */
	readonly streams?: boolean;
	/** `/lesson review` runs in the member's private replies (Actor.show), not in a thread others can read. */
	readonly reviewsPrivately?: boolean;
	/** The thread id of an address; throws on parts that would not round-trip. */
	encodeThreadId(address: Address): string;
	/** The address of a thread id; undefined for another platform's ids or anything malformed. */
	decodeThreadId(threadId: string): Address | undefined;
	/** Post a card; the ids of the messages showing it, in order ([] when nothing reached the thread). Must not throw. */
	postCard(threadId: string, card: Card, options?: PostOptions): Promise<string[]>;
	/**
	 * The messages of a question's card found among the thread's recent messages (its controls name
	 * `toolCallId`), in order; [] when none is there, undefined when the platform could not be asked. Used
	 * before re-posting a card whose poster died or stalled after claiming it: it may have reached the thread.
	 * Must not throw.
	 */
	findCard?(threadId: string, toolCallId: string): Promise<string[] | undefined>;
	/** Show `card` in place of the posted one; false when its messages are gone (the controller posts it anew). Must not throw. */
	editCard(threadId: string, messageIds: readonly string[], card: Card): Promise<boolean>;
	/** Post the plan picture (its outline when it has no PNG); true once anything reached the thread. Must not throw. */
	postPicture(threadId: string, picture: PlanPicture): Promise<boolean>;
	/** Show "typing…" for a few seconds; the controller repeats it while the tutor works (platforms without one leave it out). May reject. */
	startTyping?(threadId: string): Promise<void>;
	/**
	 * Show what the tutor is doing under the thread (`phase`), or clear it (undefined), in the lesson's language:
	 * set when a turn starts (before its first model request), changed per phase, cleared once the turn's last
	 * card landed. Must not throw (a platform that cannot show it logs and stops trying).
	 */
	workStatus?(threadId: string, phase: WorkPhase | undefined, locale: Locale): Promise<void>;
	/** Show or hide a working status at once (a terminal line; chat platforms use startTyping). Must not throw. */
	typing?(threadId: string, active: boolean): void;
	/** Post `card` to `userId`'s direct messages with the bot (reminders); false when it could not. Must not throw. */
	postDirect?(community: string, userId: string, card: Card): Promise<boolean>;
	/** Open the lesson's thread at `place` (or use its existing one) with the intro as its first message. Must not throw. */
	openThread(place: LessonPlace, intro: LessonIntro): Promise<OpenedThread>;
	/** Undo openThread when the tutor would not start the lesson (`why`: its message). Must not throw. */
	closeThread(threadId: string, place: LessonPlace, why: string): Promise<void>;
	/** `/lesson help` in this platform's command syntax (platforms with commands: commands.ts). */
	helpText?(locale: Locale): string;
	/** A link to a lesson's thread for a private reply (`label`: its words, where the link needs some); undefined when none. Must not throw. */
	threadLink?(threadId: string, label: string): Promise<string | undefined>;
	/** The lesson ended: update what its intro shows, where the platform keeps controls there. Must not throw. */
	lessonEnded?(threadId: string, intro: LessonIntro, event: Extract<TutorEvent, { type: "ended" }>): Promise<void>;
}
