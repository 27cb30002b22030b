/**
 * The contract suite's words: the people, what someone saw (a `Card`), what a test delivers, and the `Chat` a test
 * speaks to; discord.ts and slack.ts implement it over each platform's fake, chat.ts opens one per describe.
 */

import type { MockLanguageModelV3 } from "ai/test";
import type { StateStore } from "../../../src/agent/index.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import type { LearnerBackend, TestClock } from "../../fixtures/profile-stack.ts";
import type { RecordingLogger } from "../discord/helpers.ts";

/** The four people of every platform: `admin` is one (Manage Server; a Slack workspace admin). */
export type PersonKey = "learner" | "other" | "admin" | "dan";

/** A person as the engine records them. */
export interface Person {
	id: string;
	name: string;
}

/** A message someone saw (a card, a reply), as it reads now. */
export interface Card {
	/** The message's id (Discord) or ts (Slack). */
	ref: string;
	/** Where it is: the channel (a thread or DM on Discord; a channel or DM on Slack). */
	where: string;
	text: string;
	controls: string[];
	labels: string[];
	/** Seen by this person only. */
	privateTo?: string | undefined;
	/** The thread it is in (Slack: its parent's ts). */
	thread?: string | undefined;
	/** Files that came with it (Discord attachments; Slack uploads to the person's DM since the command). */
	files: Array<{ name: string; bytes: Buffer | undefined }>;
	/** The pictures it shows, with their text for screen readers (Discord attachments; Slack image blocks). */
	pictures: Array<{ alt: string; bytes: Buffer | undefined }>;
}

/** One platform, started; see the file comment. */
export interface Chat {
	name: "discord" | "slack";
	/** The guild or workspace id. */
	community: string;
	/** The channel lessons start in. */
	channel: string;
	/** Another channel of the community (lessons can be kept to it). */
	elsewhere: string;
	people: Record<PersonKey, Person>;
	/** The engine side (reopened by restart()). */
	readonly backend: LearnerBackend;
	/** The adapter's own state store (reopened by restart()). */
	readonly state: StateStore;
	events: TutorEvent[];
	logger: RecordingLogger;
	dir: string;
	/**
	 * `/lesson start` (group, language) in the main channel; the lesson's session id and the private reply. With
	 * `material` (a PDF): Discord's `material` attachment option; on Slack a mention with the file shared in it.
	 */
	start(
		who: PersonKey,
		topic: string,
		options?: { group?: boolean; language?: string; material?: Material; library?: string },
	): Promise<{ sessionId: string; reply: Card }>;
	/**
	 * A `/lesson` line as Slack spells it ("config member_tokens_per_day 100"); in a lesson's thread on Discord.
	 * `file`: the file of `material add <name>` (Discord's attachment option).
	 */
	command(who: PersonKey, line: string, sessionId?: string, file?: Material): Promise<Card>;
	say(who: PersonKey, sessionId: string, text: string): Promise<void>;
	/** The `nth` card of a lesson carrying a control of `toolCallId` (waits for it). */
	card(sessionId: string, toolCallId: string, nth?: number): Promise<Card>;
	/** A card as it reads now. */
	view(card: Card): Card;
	/** Click (or pick) `control` of a card; resolves once the platform has its first response. */
	click(who: PersonKey, card: Card, control: string): Promise<void>;
	/** Open the answer form of `control`; its words (its title, then the question and the field's label). With `text`, also submit it. */
	form(who: PersonKey, card: Card, control: string, text?: string): Promise<string>;
	/** What a lesson's thread shows, oldest first (texts as they read now). */
	posts(sessionId: string): string[];
	/** Every message anywhere whose text matches (nudges in threads or DMs). */
	find(pattern: RegExp): Card[];
	/** The private notices `who` got, oldest first. */
	notices(who: PersonKey): string[];
	waitFor<T>(check: () => T | undefined | false | null, what: string, timeoutMs?: number): Promise<T>;
	sendReminders(): Promise<number>;
	/** Every finished queued post (Discord's adapter can say; Slack posts before it answers). */
	flush(): Promise<void>;
	/**
	 * Deliver without waiting for the work behind it, `copies` times (each reaches every process on Discord; on
	 * Slack they alternate between the processes, a command's or an event's repeats carrying Slack's retry header);
	 * the platform's first response to each: Discord's interaction response type (once, [] for a message, which
	 * gets none), Slack's HTTP status.
	 */
	send(who: PersonKey, delivery: Delivery, copies?: number): Promise<number[]>;
	/** How many answer forms were opened (Discord's modals; Slack's views.open). */
	forms(): number;
	/** Every command's private reply so far, as it reads now (Discord: the deferred reply once edited; Slack: response_url). */
	replies(): string[];
	/** How many lesson threads were opened (Discord: threads created; Slack: parent messages in the channel). */
	threads(): number;
	/** Payloads outside the platform's limits, refused API calls and refused interaction callbacks. */
	problems(): unknown[];
	/** The API calls made so far whose method (Slack) or `METHOD /path` (Discord) contains `method`: their params or body. */
	calls(method: string): Array<Record<string, unknown>>;
	/** Stop the adapter and the engine, then (after `between`, if given) open both again on the same files. */
	restart(between?: () => Promise<void>): Promise<void>;
	close(): Promise<void>;
}

/** How a contract opens a platform. */
export interface ChatOptions {
	model: MockLanguageModelV3;
	budgets?: boolean;
	/** Each person's client language (Discord's interaction locale; Slack's users.info locale). */
	locales?: Partial<Record<PersonKey, string>>;
	clock?: TestClock;
	/** The tutor on the test's clock too. */
	tutorClock?: boolean;
	png?: Buffer;
	/** The tutor the adapter talks to instead of the engine's (a FakeTutor that records and holds); profiles stay real. */
	tutor?: Tutor;
	/** The adapter's state store, opened on each start (default: a SQLite file in the chat's folder). */
	state?: () => StateStore;
	/** A second bot process on the same fake, tutor and state store. */
	twin?: boolean;
}

/** The picture the stub renderer draws (a PNG's first bytes and a little more). */
export const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** What `send` delivers. */
export type Delivery =
	/** A `/lesson` line (as `command` takes it). */
	| { command: string; sessionId?: string }
	/** A click or a pick of a card's control (an `lh:open:` control opens its answer form). */
	| { click: string; card: Card }
	/** The answer form of `submit` (opened before by a click), submitted with `text`. */
	| { submit: string; card: Card; text: string }
	| { say: string; sessionId: string }
	/** End the lesson from its thread: Discord's `/lesson end` there; Slack's End button on the thread's parent. */
	| { end: string }
	/** Slack only: a mention of the bot in the channel, with `mention` after it (and a file shared in it). */
	| { mention: string; file?: Material };

/** A PDF a lesson teaches from. */
export interface Material {
	name: string;
	data: Uint8Array;
}
