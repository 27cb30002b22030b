/**
 * The adapter's small persistent state on keyv: which threads are lessons, where each
 * question card was posted, the last plan picture posted, per-workspace config and daily
 * lesson counts. Nothing lives only in memory, so clicks work across restarts.
 */

import type Keyv from "keyv";
import type { LessonMode } from "../../core/contracts/events.ts";
import type { WorkspaceConfig } from "./types.ts";

/** A lesson this adapter started (keyed by session id). */
export interface LessonRecord {
	sessionId: string;
	teamId: string;
	channelId: string;
	threadTs: string;
	learnerId: string;
	mode: LessonMode;
	topic: string;
	startedAt: string;
	ended?: boolean;
}

/** Where a question card went: every message ts (in order) and the question, for the modal. */
export interface CardRef {
	channelId: string;
	ts: string[];
	question?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** Typed access to the adapter's keys; values read back are checked, never cast blindly. */
export class SlackState {
	constructor(
		private readonly keyv: Keyv,
		private readonly defaults: WorkspaceConfig,
	) {}

	async lesson(sessionId: string): Promise<LessonRecord | undefined> {
		const v: unknown = await this.keyv.get(`lesson:${sessionId}`);
		return isObject(v) && v.sessionId === sessionId && typeof v.learnerId === "string"
			? (v as unknown as LessonRecord)
			: undefined;
	}

	async saveLesson(record: LessonRecord): Promise<void> {
		await this.keyv.set(`lesson:${record.sessionId}`, record);
		await this.keyv.set(`active:${record.teamId}:${record.channelId}:${record.learnerId}`, record.sessionId);
		await this.keyv.set(`latest:${record.teamId}:${record.channelId}`, record.sessionId);
	}

	/** The member's most recent lesson in a channel (for `/lesson end` and `/lesson status`). */
	async activeFor(teamId: string, channelId: string, userId: string): Promise<string | undefined> {
		const v: unknown = await this.keyv.get(`active:${teamId}:${channelId}:${userId}`);
		return typeof v === "string" ? v : undefined;
	}

	/** The channel's most recent lesson. */
	async latestIn(teamId: string, channelId: string): Promise<string | undefined> {
		const v: unknown = await this.keyv.get(`latest:${teamId}:${channelId}`);
		return typeof v === "string" ? v : undefined;
	}

	async card(sessionId: string, toolCallId: string): Promise<CardRef | undefined> {
		const v: unknown = await this.keyv.get(`card:${sessionId}:${toolCallId}`);
		return isObject(v) && typeof v.channelId === "string" && Array.isArray(v.ts)
			? (v as unknown as CardRef)
			: undefined;
	}

	async saveCard(sessionId: string, toolCallId: string, ref: CardRef): Promise<void> {
		await this.keyv.set(`card:${sessionId}:${toolCallId}`, ref);
	}

	async planKey(sessionId: string): Promise<string | undefined> {
		const v: unknown = await this.keyv.get(`plan:${sessionId}`);
		return typeof v === "string" ? v : undefined;
	}

	async savePlanKey(sessionId: string, key: string): Promise<void> {
		await this.keyv.set(`plan:${sessionId}`, key);
	}

	async workspace(teamId: string): Promise<WorkspaceConfig> {
		const v: unknown = await this.keyv.get(`config:${teamId}`);
		if (!isObject(v)) return { ...this.defaults };
		return {
			channels: Array.isArray(v.channels)
				? v.channels.filter((c): c is string => typeof c === "string")
				: this.defaults.channels,
			lessonsPerDay:
				typeof v.lessonsPerDay === "number" && v.lessonsPerDay >= 0
					? Math.floor(v.lessonsPerDay)
					: this.defaults.lessonsPerDay,
			defaultMode: v.defaultMode === "group" || v.defaultMode === "solo" ? v.defaultMode : this.defaults.defaultMode,
		};
	}

	async saveWorkspace(teamId: string, config: WorkspaceConfig): Promise<void> {
		await this.keyv.set(`config:${teamId}`, config);
	}

	/** Lessons the member started on the given UTC day. */
	async lessonsToday(teamId: string, userId: string, now: Date): Promise<number> {
		const v: unknown = await this.keyv.get(`count:${teamId}:${userId}:${now.toISOString().slice(0, 10)}`);
		return typeof v === "number" ? v : 0;
	}

	async countLesson(teamId: string, userId: string, now: Date): Promise<void> {
		const key = `count:${teamId}:${userId}:${now.toISOString().slice(0, 10)}`;
		const current: unknown = await this.keyv.get(key);
		// Keyv has no atomic increment; a rare lost count under a race only loosens the limit by one.
		await this.keyv.set(key, (typeof current === "number" ? current : 0) + 1, 2 * DAY_MS);
	}
}
