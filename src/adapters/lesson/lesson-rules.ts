/**
 * The rules a server (Discord) or workspace (Slack) sets for lessons: which
 * channels may host them, how many a member may start per UTC day, and the
 * default mode. Platform-neutral: both adapters keep, normalize and apply the
 * same rules; only how an admin edits them and how a refusal reads differ.
 */

import type { LessonMode } from "../../core/contracts/events.ts";

/** Per-community lesson rules (a Discord server, a Slack workspace). */
export interface LessonRules {
	/** Channel ids that may host lessons (threads of them too); empty = every channel. */
	channels: string[];
	/** Lessons a member may start per UTC day; 0 = no limit (admins are exempt). */
	lessonsPerDay: number;
	/** Mode of a lesson started without an explicit mode. */
	defaultMode: LessonMode;
}

/** Built-in rules: every channel, no daily limit, solo lessons. */
export const DEFAULT_LESSON_RULES: Readonly<LessonRules> = Object.freeze({
	channels: [],
	lessonsPerDay: 0,
	defaultMode: "solo",
});

const MODES: readonly LessonMode[] = ["solo", "group"];

/** Whether `value` is a lesson mode. */
export function isLessonMode(value: unknown): value is LessonMode {
	return MODES.includes(value as LessonMode);
}

/**
 * Coerce whatever a store returned (or a partial config) into valid rules:
 * each field that is missing or malformed falls back to `defaults`. Never throws.
 */
export function normalizeLessonRules(value: unknown, defaults: LessonRules = DEFAULT_LESSON_RULES): LessonRules {
	const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
	const channels = Array.isArray(v.channels)
		? v.channels.filter((c): c is string => typeof c === "string" && c !== "")
		: defaults.channels;
	const perDay = v.lessonsPerDay;
	return {
		channels: [...new Set(channels)],
		lessonsPerDay:
			typeof perDay === "number" && Number.isFinite(perDay) && perDay >= 0
				? Math.floor(perDay)
				: defaults.lessonsPerDay,
		defaultMode: isLessonMode(v.defaultMode) ? v.defaultMode : defaults.defaultMode,
	};
}

/** Whether a lesson may start in `channelId` (for a thread: its parent channel). */
export function channelAllowed(rules: LessonRules, channelId: string): boolean {
	return rules.channels.length === 0 || rules.channels.includes(channelId);
}

/** A change an admin asked for; absent fields stay as they are. */
export interface LessonRulesChange {
	/** Replace the allowed channels. */
	channels?: string[];
	/** Allow one more channel. */
	allowChannel?: string;
	/** Remove a channel from the allowed list. */
	disallowChannel?: string;
	lessonsPerDay?: number;
	defaultMode?: LessonMode;
	/** Start from the defaults before applying the rest. */
	reset?: boolean;
}

/** The rules after `change` (normalized; `defaults` is what `reset` goes back to). */
export function applyLessonRulesChange(
	rules: LessonRules,
	change: LessonRulesChange,
	defaults: LessonRules = DEFAULT_LESSON_RULES,
): LessonRules {
	let next: LessonRules = change.reset ? { ...defaults, channels: [...defaults.channels] } : { ...rules };
	if (change.channels) next.channels = [...change.channels];
	if (change.allowChannel && !next.channels.includes(change.allowChannel))
		next.channels = [...next.channels, change.allowChannel];
	if (change.disallowChannel) next.channels = next.channels.filter((id) => id !== change.disallowChannel);
	if (change.lessonsPerDay !== undefined) next = { ...next, lessonsPerDay: change.lessonsPerDay };
	if (change.defaultMode !== undefined) next = { ...next, defaultMode: change.defaultMode };
	return normalizeLessonRules(next, defaults);
}
