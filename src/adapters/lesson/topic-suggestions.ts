/**
 * What `/lesson start topic:` suggests to a learner as they type (Discord's
 * autocomplete), written once for any platform that shows suggestions: the
 * topics of their due reviews first (most overdue first), then their
 * unfinished lessons (latest first), then the topics an admin curated with
 * `/lesson config` (in the admin's order). Filtered by what they typed so far
 * (case-insensitive; within each group, topics that start with it before those
 * that only contain it), each topic once, at most `limit`.
 *
 * Discord gives an autocomplete 3 s and a person types on, so a late list is a
 * useless list: every store read is bounded (within.ts) by one deadline, and a
 * read that is late or fails contributes nothing: fewer suggestions, never a
 * late or failed answer. No model is asked.
 */

import type { LearnerProfile, Learning } from "../../agent/index.ts";
import { type Locale, t } from "../../i18n/index.ts";
import type { LessonState } from "./lesson-state.ts";
import { within } from "./within.ts";

/** Where a suggestion comes from, in the order the groups are shown. */
export type SuggestionSource = "review" | "unfinished" | "curated";

/** One suggested topic. */
export interface TopicSuggestion {
	/** The topic exactly as a lesson would start on it (at most SUGGESTED_TOPIC_MAX_CHARS). */
	topic: string;
	source: SuggestionSource;
}

/** Most suggestions (Discord shows at most 25 autocomplete choices). */
export const SUGGESTION_LIMIT = 25;
/**
 * How long the reads may take in all. Discord allows 3 s to the first response; the interaction's duplicate
 * check may hold it 0.5 s first (discord/interactions.ts), and the response itself is a REST call.
 */
export const SUGGESTION_WAIT_MS = 1_500;
/** Longest topic suggested: Discord's choice value holds 100 characters, and a cut topic is another topic. */
export const SUGGESTED_TOPIC_MAX_CHARS = 100;
/** Typed text longer than this matches nothing (no topic suggested is longer): the reads are skipped. */
const TYPED_MAX_CHARS = SUGGESTED_TOPIC_MAX_CHARS;
/** Due review items read (several share a topic). */
const DUE_READ = 50;
/** Unfinished lessons whose topics are read (one read each, in parallel). */
const UNFINISHED_READ = 10;

/** What the suggestions are read from. */
export interface SuggestionSources {
	/** The controller's state: the community's rules (curated topics) and each lesson's intro (its topic). */
	state: Pick<LessonState, "rules" | "intro">;
	/** The learning service (due reviews, the learner's lessons); without it only curated topics are suggested. */
	learning?: Pick<Learning, "due" | "profile">;
}

/** Whom to suggest for, and what they typed. */
export interface SuggestionRequest {
	/** The learner's profile key (learnerKeyOf). */
	learnerKey: string;
	/** The guild or team whose curated topics apply. */
	community: string;
	/** The option's text so far (anything: it is only compared). */
	typed: string;
	limit?: number;
	waitMs?: number;
}

/** Whitespace collapsed and lower-cased: how topics and typed text are compared. */
const folded = (text: string): string => text.replace(/\s+/g, " ").trim().toLowerCase();

/** The learner's lessons that have not ended, latest first (a lesson's entry is recorded when it ends). */
export function unfinishedLessons(profile: LearnerProfile | undefined): string[] {
	if (!profile?.sessionIds) return [];
	const ended = new Set(profile.lessons.filter((l) => l.outcome !== "open").map((l) => l.sessionId));
	return profile.sessionIds.filter((id) => !ended.has(id)).reverse();
}

/** The suggestions for `request`; never rejects, and resolves within about `waitMs` whatever the store does. */
export async function suggestTopics(
	sources: SuggestionSources,
	request: SuggestionRequest,
): Promise<TopicSuggestion[]> {
	const limit = Math.max(0, Math.min(request.limit ?? SUGGESTION_LIMIT, SUGGESTION_LIMIT));
	if (limit === 0 || typeof request.typed !== "string") return [];
	const typed = folded(request.typed);
	if (typed.length > TYPED_MAX_CHARS) return [];
	const waitMs = request.waitMs ?? SUGGESTION_WAIT_MS;
	const deadline = Date.now() + waitMs;
	const left = () => deadline - Date.now();
	const { state, learning } = sources;
	const [due, profile, rules] = await Promise.all([
		learning ? within(learning.due(request.learnerKey, DUE_READ), waitMs) : undefined,
		learning ? within(learning.profile(request.learnerKey), waitMs) : undefined,
		within(state.rules(request.community), waitMs),
	]);
	const intros = await Promise.all(
		unfinishedLessons(profile)
			.slice(0, UNFINISHED_READ)
			.map((id) => within(state.intro(id), left())),
	);
	const groups: Array<[SuggestionSource, Array<string | undefined>]> = [
		["review", (due?.items ?? []).map((item) => item.topic)],
		["unfinished", intros.map((intro) => intro?.topic)],
		["curated", rules?.topics ?? []],
	];
	const seen = new Set<string>();
	const out: TopicSuggestion[] = [];
	for (const [source, topics] of groups) {
		const starts: TopicSuggestion[] = [];
		const contains: TopicSuggestion[] = [];
		for (const raw of topics) {
			if (typeof raw !== "string") continue;
			const topic = raw.replace(/\s+/g, " ").trim();
			const key = topic.toLowerCase();
			if (topic === "" || topic.length > SUGGESTED_TOPIC_MAX_CHARS || seen.has(key)) continue;
			const at = key.indexOf(typed);
			if (at < 0) continue;
			seen.add(key);
			(at === 0 ? starts : contains).push({ topic, source });
		}
		out.push(...starts, ...contains);
		if (out.length >= limit) break;
	}
	return out.slice(0, limit);
}

/**
 * A suggestion as the learner reads it, at most `max` characters: a review or an unfinished lesson says so,
 * a curated topic is its own name. A long topic is cut (with an ellipsis) to leave room for the words.
 */
export function suggestionLabel(suggestion: TopicSuggestion, locale: Locale, max = 100): string {
	const key = suggestion.source === "review" ? "suggest.review" : "suggest.unfinished";
	const word = (topic: string) => (suggestion.source === "curated" ? topic : t(locale, key, { topic }));
	const full = word(suggestion.topic);
	if (full.length <= max) return full;
	const room = Math.max(1, max - (full.length - suggestion.topic.length) - 1);
	return word(`${suggestion.topic.slice(0, room).trimEnd()}…`).slice(0, max);
}
