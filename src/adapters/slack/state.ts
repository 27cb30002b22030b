/**
 * The adapter's small persistent state on keyv: which threads are lessons, where each
 * question card was posted, the last plan picture posted, per-workspace lesson rules and
 * daily lesson counts. Nothing lives only in memory, so clicks work across restarts.
 */

import type Keyv from "keyv";
import type { LessonMode } from "../../core/contracts/events.ts";
import { DailyLessonCounter } from "../shared/daily-counter.ts";
import { normalizeLessonRules } from "../shared/lesson-rules.ts";
import type { PlanKeyStore } from "../shared/plan-reposts.ts";
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
	/** The tutor text posted above the question in its card, kept in the answered state. */
	lead?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** Typed access to the adapter's keys; values read back are checked, never cast blindly. */
export class SlackState {
	/** Lessons started per member per UTC day (keys `count:<team>:<user>:<day>`). */
	readonly counter: DailyLessonCounter;
	/** Where the last posted plan picture's key survives a restart. */
	readonly planKeys: PlanKeyStore;

	constructor(
		private readonly keyv: Keyv,
		private readonly defaults: WorkspaceConfig,
	) {
		this.counter = new DailyLessonCounter(keyv);
		this.planKeys = {
			load: async (sessionId) => {
				const v: unknown = await this.keyv.get(`plan:${sessionId}`);
				return typeof v === "string" ? v : undefined;
			},
			save: async (sessionId, key) => {
				await this.keyv.set(`plan:${sessionId}`, key);
			},
		};
	}

	/** The lesson of a session id, if this adapter started it. */
	async lesson(sessionId: string): Promise<LessonRecord | undefined> {
		const v: unknown = await this.keyv.get(`lesson:${sessionId}`);
		return isObject(v) &&
			v.sessionId === sessionId &&
			typeof v.learnerId === "string" &&
			(v.mode === "solo" || v.mode === "group")
			? (v as unknown as LessonRecord)
			: undefined;
	}

	/** Remember a lesson, and make it its learner's and its channel's latest. */
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

	/** Where a question's card was posted. */
	async card(sessionId: string, toolCallId: string): Promise<CardRef | undefined> {
		const v: unknown = await this.keyv.get(`card:${sessionId}:${toolCallId}`);
		return isObject(v) && typeof v.channelId === "string" && Array.isArray(v.ts)
			? (v as unknown as CardRef)
			: undefined;
	}

	/** Remember where a question's card was posted. */
	async saveCard(sessionId: string, toolCallId: string, ref: CardRef): Promise<void> {
		await this.keyv.set(`card:${sessionId}:${toolCallId}`, ref);
	}

	/** The workspace's lesson rules (defaults when none are stored or they are corrupt). */
	async workspace(teamId: string): Promise<WorkspaceConfig> {
		return normalizeLessonRules(await this.keyv.get(`config:${teamId}`), this.defaults);
	}

	/** Store the workspace's lesson rules. */
	async saveWorkspace(teamId: string, config: WorkspaceConfig): Promise<void> {
		await this.keyv.set(`config:${teamId}`, normalizeLessonRules(config, this.defaults));
	}

	/** The rules a workspace without stored settings has. */
	get workspaceDefaults(): WorkspaceConfig {
		return this.defaults;
	}
}
