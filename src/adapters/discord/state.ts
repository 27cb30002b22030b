/**
 * The adapter's own small state in keyv: per-guild lesson rules, lesson
 * threads, the messages of each posted question, and lessons started per
 * member per day. Everything survives a restart; bounded in-memory caches sit
 * in front of the store (what may be consulted before an ack lives in the
 * shared AnswerGate, not here).
 */

import type Keyv from "keyv";
import { LRUCache } from "lru-cache";
import { DailyLessonCounter } from "../shared/daily-counter.ts";
import { DEFAULT_LESSON_RULES, normalizeLessonRules } from "../shared/lesson-rules.ts";
import type { GuildConfig, LessonRecord, QuestionRecord } from "./types.ts";

/** Built-in guild defaults: every channel, no daily limit, solo lessons. */
export const DEFAULT_GUILD_CONFIG: GuildConfig = DEFAULT_LESSON_RULES;

/** Coerce whatever the store returned into a valid GuildConfig (a corrupt record falls back to defaults). */
export const normalizeGuildConfig = normalizeLessonRules;

function isLessonRecord(value: unknown): value is LessonRecord {
	const v = value as Partial<LessonRecord> | undefined;
	return (
		typeof v?.sessionId === "string" &&
		typeof v.threadId === "string" &&
		typeof v.learnerId === "string" &&
		(v.mode === "solo" || v.mode === "group")
	);
}

function isQuestionRecord(value: unknown): value is QuestionRecord {
	const v = value as Partial<QuestionRecord> | undefined;
	return (
		typeof v?.channelId === "string" &&
		Array.isArray(v.messageIds) &&
		v.messageIds.every((id) => typeof id === "string")
	);
}

/** The adapter state, over one keyv namespace. */
export class DiscordState {
	private readonly lessons = new LRUCache<string, LessonRecord>({ max: 5000 });
	private readonly questions = new LRUCache<string, QuestionRecord>({ max: 5000 });
	private readonly defaults: GuildConfig;
	/** Lessons started per member per UTC day (keys `count:<guild>:<user>:<day>`). */
	readonly counter: DailyLessonCounter;

	constructor(
		private readonly keyv: Keyv,
		defaults: Partial<GuildConfig> = {},
	) {
		this.defaults = normalizeLessonRules({ ...DEFAULT_LESSON_RULES, ...defaults });
		this.counter = new DailyLessonCounter(keyv);
	}

	/** The rules a guild falls back to (built-in defaults merged with the configured ones). */
	get guildDefaults(): GuildConfig {
		return this.defaults;
	}

	/** The guild's config (defaults when none is stored). */
	async guildConfig(guildId: string): Promise<GuildConfig> {
		return normalizeLessonRules(await this.keyv.get(`guild:${guildId}`), this.defaults);
	}

	/** Store the guild's config. */
	async setGuildConfig(guildId: string, config: GuildConfig): Promise<void> {
		await this.keyv.set(`guild:${guildId}`, normalizeLessonRules(config, this.defaults));
	}

	/** Remember a lesson thread. */
	async saveLesson(record: LessonRecord): Promise<void> {
		this.lessons.set(record.threadId, record);
		await this.keyv.set(`lesson:${record.threadId}`, record);
	}

	/** Forget a lesson thread (the tutor refused to start it). */
	async deleteLesson(threadId: string): Promise<void> {
		this.lessons.delete(threadId);
		await this.keyv.delete(`lesson:${threadId}`);
	}

	/** The lesson of a thread, from memory when known, else the store. */
	async lesson(threadId: string): Promise<LessonRecord | undefined> {
		const cached = this.lessons.get(threadId);
		if (cached) return cached;
		const stored: unknown = await this.keyv.get(`lesson:${threadId}`);
		if (!isLessonRecord(stored)) return undefined;
		this.lessons.set(threadId, stored);
		return stored;
	}

	/** Remember the messages of a posted question. */
	async saveQuestion(sessionId: string, toolCallId: string, record: QuestionRecord): Promise<void> {
		this.questions.set(`${sessionId}|${toolCallId}`, record);
		await this.keyv.set(`question:${sessionId}:${toolCallId}`, record);
	}

	/** The messages of a posted question. */
	async question(sessionId: string, toolCallId: string): Promise<QuestionRecord | undefined> {
		const cached = this.questions.get(`${sessionId}|${toolCallId}`);
		if (cached) return cached;
		const stored: unknown = await this.keyv.get(`question:${sessionId}:${toolCallId}`);
		return isQuestionRecord(stored) ? stored : undefined;
	}
}
