/**
 * The Discord adapter's public shapes: its configuration, its dependencies
 * and its handle.
 */

import type { StateStore } from "../../agent/index.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import type { PlanRenderer } from "../../render/index.ts";
import type { ImageLimits } from "../lesson/images.ts";
import type { BudgetRouter } from "../lesson/lesson-budget.ts";
import type { LessonRules } from "../lesson/lesson-rules.ts";
import type { LearnerServices } from "../lesson/profile-flows.ts";

/** How the adapter reaches Discord. */
export interface DiscordAdapterConfig {
	/** The bot token (Developer Portal -> Bot), without the "Bot " prefix. */
	token: string;
	/** REST base URL, passed to discord.js as `rest.api` (default https://discord.com/api); the gateway URL comes from GET /gateway/bot. */
	apiUrl?: string;
	/** Register commands to this guild (instant) instead of globally (up to an hour to appear). */
	guildId?: string;
	/** The application id; read from GET /applications/@me when omitted. */
	applicationId?: string;
	/** Register the /lesson command at start (default true). */
	registerCommands?: boolean;
	/** Store URL of the lesson state when no state store is passed (default the SQLite file). */
	storeUrl?: string;
	/** How long start() waits for the gateway to be ready (default 30 s). */
	readyTimeoutMs?: number;
	/** The model reads images: pictures attached in a lesson thread go to it (default false: the learner is told it cannot). */
	vision?: boolean;
	/** Caps on those pictures (default 5 MiB each, 4 per message, 15 s per download). */
	imageLimits?: Partial<ImageLimits>;
	/** Defaults of a guild that has no stored config. */
	guildDefaults?: Partial<GuildConfig>;
}

/** Dependencies of createDiscordAdapter. */
export interface DiscordAdapterOptions {
	tutor: Tutor;
	renderer: PlanRenderer;
	config: DiscordAdapterConfig;
	logger: Logger;
	/** What the lesson controller remembers (posted cards, guild rules, daily counts); opened on `storeUrl` when omitted. */
	state?: StateStore;
	/** The tutor\'s budget hook router (the one passed to createTutor): token caps apply when given. */
	budgets?: BudgetRouter;
	/** Learner profiles and review (`/lesson review|progress|report|forget-me|remind`); off when omitted. */
	learning?: LearnerServices;
}

/** A running (or stopped) Discord adapter. */
export interface DiscordAdapter {
	/** Register commands (unless disabled), log in and wait for the gateway to be ready. Throws on a bad token. */
	start(): Promise<void>;
	/** Unsubscribe from the tutor, finish queued posts (bounded), stop typing, disconnect. Never throws. */
	stop(): Promise<void>;
	/** Post today's review reminders now (the adapter also checks hourly); how many went out. Rejects when the store fails. */
	sendReminders(): Promise<number>;
	/** Resolves when every queued post has gone out (or `timeoutMs` passed: false). For tests and shutdown. */
	flush(timeoutMs?: number): Promise<boolean>;
	/** The gateway is connected and ready, and the adapter is not stopping. */
	ready(): boolean;
}

/** Per-guild settings (the shared lesson rules), changed with `/lesson config`. */
export type GuildConfig = LessonRules;
