/**
 * The adapter's own small state in keyv: per-guild config, lesson threads,
 * the messages of each posted question, and lessons started per member per
 * day. Everything survives a restart; a bounded in-memory cache of lesson
 * records lets a click be checked before any store read (acks come first).
 */

import type Keyv from "keyv";
import { LRUCache } from "lru-cache";
import type { LessonMode } from "../../core/contracts/events.ts";
import type { GuildConfig, LessonRecord, QuestionRecord } from "./types.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const MODES: readonly LessonMode[] = ["solo", "group"];

/** Built-in guild defaults: every channel, no daily limit, solo lessons. */
export const DEFAULT_GUILD_CONFIG: GuildConfig = { channels: [], lessonsPerDay: 0, defaultMode: "solo" };

/** Coerce whatever the store returned into a valid GuildConfig (a corrupt record falls back to defaults). */
export function normalizeGuildConfig(value: unknown, defaults: GuildConfig): GuildConfig {
	const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
	const channels = Array.isArray(v.channels)
		? v.channels.filter((c): c is string => typeof c === "string")
		: defaults.channels;
	const perDay = typeof v.lessonsPerDay === "number" && Number.isInteger(v.lessonsPerDay) && v.lessonsPerDay >= 0;
	const mode = MODES.includes(v.defaultMode as LessonMode) ? (v.defaultMode as LessonMode) : defaults.defaultMode;
	return {
		channels: [...new Set(channels)],
		lessonsPerDay: perDay ? (v.lessonsPerDay as number) : defaults.lessonsPerDay,
		defaultMode: mode,
	};
}

function isLessonRecord(value: unknown): value is LessonRecord {
	const v = value as Partial<LessonRecord> | undefined;
	return typeof v?.sessionId === "string" && typeof v.threadId === "string" && typeof v.learnerId === "string";
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
	private readonly answered = new LRUCache<string, true>({ max: 20_000 });
	private readonly counters = new Map<string, Promise<number>>();
	private readonly defaults: GuildConfig;

	constructor(
		private readonly keyv: Keyv,
		defaults: Partial<GuildConfig> = {},
	) {
		this.defaults = normalizeGuildConfig({ ...DEFAULT_GUILD_CONFIG, ...defaults }, DEFAULT_GUILD_CONFIG);
	}

	/** The guild's config (defaults when none is stored). */
	async guildConfig(guildId: string): Promise<GuildConfig> {
		return normalizeGuildConfig(await this.keyv.get(`guild:${guildId}`), this.defaults);
	}

	/** Store the guild's config. */
	async setGuildConfig(guildId: string, config: GuildConfig): Promise<void> {
		await this.keyv.set(`guild:${guildId}`, normalizeGuildConfig(config, this.defaults));
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

	/** The lesson of a thread if it is in memory (no store read: safe before an ack). */
	cachedLesson(threadId: string): LessonRecord | undefined {
		return this.lessons.get(threadId);
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

	/** A question's text if it is in memory (for the modal, which must be the first response). */
	cachedQuestionText(sessionId: string, toolCallId: string): string | undefined {
		return this.questions.get(`${sessionId}|${toolCallId}`)?.question;
	}

	/** Remember (in memory) that a question was answered or skipped, so its "Answer" button can refuse before a modal. */
	markAnswered(sessionId: string, toolCallId: string): void {
		this.answered.set(`${sessionId}|${toolCallId}`, true);
	}

	/** Whether this process saw the question answered (false when unknown: the tutor still decides). */
	isAnswered(sessionId: string, toolCallId: string): boolean {
		return this.answered.has(`${sessionId}|${toolCallId}`);
	}

	/** Lessons started for a member today (UTC). */
	async lessonsToday(guildId: string, userId: string, now = new Date()): Promise<number> {
		const n: unknown = await this.keyv.get(this.countKey(guildId, userId, now));
		return typeof n === "number" && n >= 0 ? n : 0;
	}

	/** Count one more lesson for a member today; serialized per key in-process (keyv has no atomic increment). */
	async countLesson(guildId: string, userId: string, now = new Date()): Promise<number> {
		const key = this.countKey(guildId, userId, now);
		const previous = this.counters.get(key) ?? Promise.resolve(0);
		const next = previous
			.catch(() => 0)
			.then(async () => {
				const n = (await this.lessonsToday(guildId, userId, now)) + 1;
				await this.keyv.set(key, n, 2 * DAY_MS);
				return n;
			});
		this.counters.set(key, next);
		try {
			return await next;
		} finally {
			if (this.counters.get(key) === next) this.counters.delete(key);
		}
	}

	private countKey(guildId: string, userId: string, now: Date): string {
		return `count:${guildId}:${userId}:${now.toISOString().slice(0, 10)}`;
	}
}
