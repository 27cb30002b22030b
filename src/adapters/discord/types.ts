/**
 * The Discord adapter's public shapes: its configuration, its dependencies,
 * its handle, and the small records it keeps in keyv.
 */

import type Keyv from "keyv";
import type { LessonMode } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import type { PlanRenderer } from "../../render/index.ts";
import type { LessonRules } from "../shared/lesson-rules.ts";

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
	/** Store URL for the adapter's own state when no keyv is passed (default the SQLite file). */
	storeUrl?: string;
	/** How long start() waits for the gateway to be ready (default 30 s). */
	readyTimeoutMs?: number;
	/** Defaults of a guild that has no stored config. */
	guildDefaults?: Partial<GuildConfig>;
}

/** Dependencies of createDiscordAdapter. */
export interface DiscordAdapterOptions {
	tutor: Tutor;
	renderer: PlanRenderer;
	config: DiscordAdapterConfig;
	logger: Logger;
	/** The adapter's own small state (guild config, lesson threads, posted cards); openKeyv(storeUrl, "discord") when omitted. */
	keyv?: Keyv;
}

/** A running (or stopped) Discord adapter. */
export interface DiscordAdapter {
	/** Register commands (unless disabled), log in and wait for the gateway to be ready. Throws on a bad token. */
	start(): Promise<void>;
	/** Unsubscribe from the tutor, finish queued posts (bounded), stop typing, disconnect. Never throws. */
	stop(): Promise<void>;
	/** Resolves when every queued post has gone out (or `timeoutMs` passed: false). For tests and shutdown. */
	flush(timeoutMs?: number): Promise<boolean>;
}

/** Per-guild settings (the shared lesson rules), changed with `/lesson config` and kept in keyv. */
export type GuildConfig = LessonRules;

/** A lesson thread, as the adapter remembers it (keyed by thread id). */
export interface LessonRecord {
	sessionId: string;
	guildId: string;
	threadId: string;
	/** The channel the thread hangs off. */
	parentId: string;
	learnerId: string;
	mode: LessonMode;
	topic: string;
	startedAt: string;
}

/** The messages that show one question (quiz or ask), so its answer can edit them. */
export interface QuestionRecord {
	channelId: string;
	messageIds: string[];
	/** The question text, for the answer modal's label. */
	question: string;
	/** The tutor text posted above the question in its card, kept in the answered state. */
	lead?: string;
}
