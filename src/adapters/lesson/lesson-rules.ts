/**
 * The rules a server (Discord) or workspace (Slack) sets for lessons: which
 * channels may host them, how many a member may start per UTC day, and the
 * default mode. Platform-neutral: both adapters keep, normalize and apply the
 * same rules; only how an admin edits them and how a refusal reads differ.
 */

import type { LessonMode } from "../../core/contracts/events.ts";
import { clampVoteSeconds, DEFAULT_GROUP_SETTINGS } from "../../core/votes.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";

/** The bounds of `vote_seconds`, for the platforms' config forms. */
export { MAX_VOTE_SECONDS, MIN_VOTE_SECONDS } from "../../core/votes.ts";

/** Per-community lesson rules (a Discord server, a Slack workspace). */
export interface LessonRules {
	/** Channel ids that may host lessons (threads of them too); empty = every channel. */
	channels: string[];
	/** Lessons a member may start per UTC day; 0 = no limit (admins are exempt). */
	lessonsPerDay: number;
	/** Mode of a lesson started without an explicit mode. */
	defaultMode: LessonMode;
	/** Tokens (input + output) the whole community may spend per UTC day; 0 = unlimited. */
	serverTokensPerDay: number;
	/** Tokens (input + output) each member's turns may spend per UTC day; 0 = unlimited (admins too are counted). */
	memberTokensPerDay: number;
	/** Prices the admin set per model id, for `/lesson usage` estimates. */
	prices: Record<string, ModelPrice>;
	/** Group lessons: seconds a vote stays open after its first ballot (bounded; see core/votes.ts). */
	voteSeconds: number;
	/** Group lessons: the posted tally names who chose what (the teacher always sees names). */
	voteNames: boolean;
	/** Topics an admin suggests for `/lesson start` (Discord's autocomplete offers them); see normalizeTopics. */
	topics: string[];
	/** Members, not only admins, may add documents to the community's library (`/lesson material add`). */
	membersAddMaterial: boolean;
}

/** A model's price in US dollars per million tokens (cached input billed as input: an upper estimate). */
export interface ModelPrice {
	input: number;
	output: number;
}

/** Built-in rules: every channel, no daily limit, solo lessons. */
export const DEFAULT_LESSON_RULES: Readonly<LessonRules> = Object.freeze({
	channels: [],
	lessonsPerDay: 0,
	defaultMode: "solo",
	serverTokensPerDay: 0,
	memberTokensPerDay: 0,
	prices: {},
	voteSeconds: DEFAULT_GROUP_SETTINGS.voteSeconds,
	voteNames: DEFAULT_GROUP_SETTINGS.showNames,
	topics: [],
	membersAddMaterial: false,
});

/** Most curated topics a community keeps (Discord offers at most 25 choices in all). */
export const MAX_CURATED_TOPICS = 25;
/** Longest curated topic: an autocomplete choice's value holds at most 100 characters (Discord). */
export const CURATED_TOPIC_MAX_CHARS = 100;

/**
 * The curated topics of `value`: strings with whitespace collapsed, 1..CURATED_TOPIC_MAX_CHARS characters
 * (longer ones are dropped, not cut: a cut topic is another topic), the first of each spelling regardless of
 * case, at most MAX_CURATED_TOPICS. Anything else counts as none. Never throws.
 */
export function normalizeTopics(value: unknown): string[] {
	if (!Array.isArray(value)) return [];
	const out: string[] = [];
	const seen = new Set<string>();
	for (const v of value) {
		if (typeof v !== "string") continue;
		const topic = v.replace(/\s+/g, " ").trim();
		const key = topic.toLowerCase();
		if (topic === "" || topic.length > CURATED_TOPIC_MAX_CHARS || seen.has(key)) continue;
		seen.add(key);
		out.push(topic);
		if (out.length >= MAX_CURATED_TOPICS) break;
	}
	return out;
}

/**
 * An admin's list of curated topics as typed (comma-separated; `-` alone clears the list), or what is wrong
 * with it: a topic over CURATED_TOPIC_MAX_CHARS, or more than MAX_CURATED_TOPICS.
 */
export function parseTopicsSetting(text: string, locale: Locale = DEFAULT_LOCALE): string[] | { error: string } {
	const trimmed = text.trim();
	if (trimmed === "-" || trimmed === "") return [];
	const parts = trimmed
		.split(",")
		.map((p) => p.replace(/\s+/g, " ").trim())
		.filter((p) => p !== "");
	if (parts.length > MAX_CURATED_TOPICS || parts.some((p) => p.length > CURATED_TOPIC_MAX_CHARS))
		return { error: t(locale, "config.topics", { max: MAX_CURATED_TOPICS, chars: CURATED_TOPIC_MAX_CHARS }) };
	return normalizeTopics(parts);
}

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
	const count = (x: unknown, fallback: number) =>
		typeof x === "number" && Number.isFinite(x) && x >= 0 ? Math.floor(x) : fallback;
	return {
		channels: [...new Set(channels)],
		lessonsPerDay:
			typeof perDay === "number" && Number.isFinite(perDay) && perDay >= 0
				? Math.floor(perDay)
				: defaults.lessonsPerDay,
		defaultMode: isLessonMode(v.defaultMode) ? v.defaultMode : defaults.defaultMode,
		serverTokensPerDay: count(v.serverTokensPerDay, defaults.serverTokensPerDay),
		memberTokensPerDay: count(v.memberTokensPerDay, defaults.memberTokensPerDay),
		prices: normalizePrices(v.prices ?? defaults.prices),
		voteSeconds: clampVoteSeconds(typeof v.voteSeconds === "number" ? v.voteSeconds : defaults.voteSeconds),
		voteNames: typeof v.voteNames === "boolean" ? v.voteNames : defaults.voteNames,
		topics: Array.isArray(v.topics) ? normalizeTopics(v.topics) : normalizeTopics(defaults.topics),
		membersAddMaterial: typeof v.membersAddMaterial === "boolean" ? v.membersAddMaterial : defaults.membersAddMaterial,
	};
}

/** The well-formed entries of a stored price table (finite, non-negative prices). */
function normalizePrices(value: unknown): Record<string, ModelPrice> {
	const out: Record<string, ModelPrice> = {};
	if (typeof value !== "object" || value === null) return out;
	for (const [model, price] of Object.entries(value)) {
		const p = price as Partial<ModelPrice> | null;
		const ok = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x) && x >= 0;
		if (model !== "" && p && ok(p.input) && ok(p.output)) out[model] = { input: p.input, output: p.output };
	}
	return out;
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
	serverTokensPerDay?: number;
	memberTokensPerDay?: number;
	/** Set a model's price, or (price undefined) remove it. */
	price?: { model: string; price?: ModelPrice };
	voteSeconds?: number;
	voteNames?: boolean;
	/** Replace the curated topics (an empty list clears them). */
	topics?: string[];
	membersAddMaterial?: boolean;
	/** Start from the defaults before applying the rest. */
	reset?: boolean;
}

/** The rules after `change` (normalized; `defaults` is what `reset` goes back to). */
export function applyLessonRulesChange(
	rules: LessonRules,
	change: LessonRulesChange,
	defaults: LessonRules = DEFAULT_LESSON_RULES,
): LessonRules {
	let next: LessonRules = change.reset
		? {
				...defaults,
				channels: [...defaults.channels],
				prices: { ...defaults.prices },
				topics: normalizeTopics(defaults.topics),
			}
		: { ...rules };
	if (change.channels) next.channels = [...change.channels];
	if (change.allowChannel && !next.channels.includes(change.allowChannel))
		next.channels = [...next.channels, change.allowChannel];
	if (change.disallowChannel) next.channels = next.channels.filter((id) => id !== change.disallowChannel);
	if (change.lessonsPerDay !== undefined) next = { ...next, lessonsPerDay: change.lessonsPerDay };
	if (change.defaultMode !== undefined) next = { ...next, defaultMode: change.defaultMode };
	if (change.serverTokensPerDay !== undefined) next = { ...next, serverTokensPerDay: change.serverTokensPerDay };
	if (change.memberTokensPerDay !== undefined) next = { ...next, memberTokensPerDay: change.memberTokensPerDay };
	if (change.voteSeconds !== undefined) next = { ...next, voteSeconds: clampVoteSeconds(change.voteSeconds) };
	if (change.voteNames !== undefined) next = { ...next, voteNames: change.voteNames };
	if (change.topics !== undefined) next = { ...next, topics: [...change.topics] };
	if (change.membersAddMaterial !== undefined) next = { ...next, membersAddMaterial: change.membersAddMaterial };
	if (change.price) {
		const { [change.price.model]: _old, ...prices } = next.prices;
		next = { ...next, prices: change.price.price ? { ...prices, [change.price.model]: change.price.price } : prices };
	}
	return normalizeLessonRules(next, defaults);
}

/** Parse `model=input,output` ($ per million tokens; `model=` removes the model's price); an error sentence when malformed. */
export function parsePriceSetting(
	text: string,
	locale: Locale = DEFAULT_LOCALE,
): NonNullable<LessonRulesChange["price"]> | { error: string } {
	// The spaces after "=" belong to the price group or to the end, never to both (`=\s*(…)?\s*$` backtracked).
	const match = /^\s*([^=\s]{1,100})\s*=(?:\s*([0-9.]+)\s*,\s*([0-9.]+))?\s*$/.exec(text);
	const input = Number(match?.[2]);
	const output = Number(match?.[3]);
	if (!match?.[1] || (match[2] !== undefined && !(Number.isFinite(input) && Number.isFinite(output))))
		return { error: t(locale, "config.price") };
	return match[2] === undefined ? { model: match[1] } : { model: match[1], price: { input, output } };
}
