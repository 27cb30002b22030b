/**
 * Topic suggestions for `/lesson start` (lesson/topic-suggestions.ts), on stand-in sources: the order of the
 * groups, the filter, each topic once, the bounds; a store that hangs or fails gives fewer suggestions, never
 * a late or failed answer; labels fit Discord's 100 characters.
 */

import { describe, expect, it } from "vitest";
import { DEFAULT_LESSON_RULES, type LessonRules } from "../../../src/adapters/lesson/lesson-rules.ts";
import type { LessonIntro } from "../../../src/adapters/lesson/port.ts";
import {
	type SuggestionSources,
	suggestionLabel,
	suggestTopics,
	unfinishedLessons,
} from "../../../src/adapters/lesson/topic-suggestions.ts";
import type { LearnerProfile } from "../../../src/agent/index.ts";

const never = <T>() => new Promise<T>(() => {});

/** A profile with `ended` lessons recorded and `started` lesson ids, in start order. */
function profileOf(started: string[], ended: string[], open: string[] = []): LearnerProfile {
	const lesson = (sessionId: string, outcome: "completed" | "open") => ({
		sessionId,
		topic: sessionId,
		community: "g",
		startedAt: "2026-01-01T00:00:00Z",
		outcome,
		questionsAnswered: 0,
		firstTryCorrect: 0,
		nodes: [],
		misconceptions: [],
		reviews: 0,
	});
	return {
		format: 1,
		key: "discord:u",
		learner: { id: "u" },
		lessons: [...ended.map((id) => lesson(id, "completed")), ...open.map((id) => lesson(id, "open"))],
		reviewsDone: 0,
		sessionIds: started,
	};
}

const intro = (topic: string): LessonIntro => ({
	topic,
	mode: "solo",
	learner: { id: "u" },
	startedBy: { id: "u" },
});

function sources(options: {
	due?: string[];
	profile?: LearnerProfile;
	topics?: Record<string, string>;
	curated?: string[];
	hang?: "due" | "profile" | "rules" | "intro";
	fail?: "due" | "profile" | "rules" | "intro";
}): SuggestionSources {
	const read = <T>(name: string, value: T): Promise<T> =>
		options.hang === name
			? never<T>()
			: options.fail === name
				? Promise.reject(new Error("down"))
				: Promise.resolve(value);
	const rules: LessonRules = { ...DEFAULT_LESSON_RULES, topics: options.curated ?? [] };
	return {
		state: {
			rules: () => read("rules", rules),
			intro: (id) => read("intro", options.topics?.[id] ? intro(options.topics[id]) : undefined),
		},
		learning: {
			due: () =>
				read("due", {
					items: (options.due ?? []).map((topic) => ({ topic }) as never),
					dueCount: options.due?.length ?? 0,
					total: options.due?.length ?? 0,
				}),
			profile: () => read("profile", options.profile),
		},
	};
}

const full = {
	due: ["Adding fractions", "adding  fractions", "Chain rule"],
	profile: profileOf(["s1", "s2", "s3", "s4"], ["s1"], ["s4"]),
	topics: { s1: "Done lesson", s2: "Derivatives", s3: "French verbs", s4: "Open outcome" },
	curated: ["Fractions", "french VERBS", "Photosynthesis"],
};

describe("topic suggestions", () => {
	it("lists due reviews, unfinished lessons (latest first), then curated topics, each topic once", async () => {
		const got = await suggestTopics(sources(full), { learnerKey: "discord:u", community: "g", typed: "" });
		expect(got).toEqual([
			{ topic: "Adding fractions", source: "review" },
			{ topic: "Chain rule", source: "review" },
			{ topic: "Open outcome", source: "unfinished" },
			{ topic: "French verbs", source: "unfinished" },
			{ topic: "Derivatives", source: "unfinished" },
			{ topic: "Fractions", source: "curated" },
			{ topic: "Photosynthesis", source: "curated" },
		]);
		expect(unfinishedLessons(full.profile)).toEqual(["s4", "s3", "s2"]);
	});

	it("filters case-insensitively, what starts with the text first within a group, and caps the count", async () => {
		const got = await suggestTopics(sources(full), { learnerKey: "k", community: "g", typed: "  FR " });
		expect(got.map((s) => s.topic)).toEqual(["Adding fractions", "French verbs", "Fractions"]);
		const many = sources({ curated: Array.from({ length: 25 }, (_, i) => `topic ${i}`), due: ["topic review"] });
		const capped = await suggestTopics(many, { learnerKey: "k", community: "g", typed: "topic", limit: 5 });
		expect(capped.map((s) => s.topic)).toEqual(["topic review", "topic 0", "topic 1", "topic 2", "topic 3"]);
		expect(await suggestTopics(many, { learnerKey: "k", community: "g", typed: "t".repeat(101) })).toEqual([]);
	});

	it("a hanging or failing read gives fewer suggestions, in time", async () => {
		for (const broken of ["due", "profile", "rules", "intro"] as const) {
			for (const how of ["hang", "fail"] as const) {
				const got = await suggestTopics(sources({ ...full, [how]: broken }), {
					learnerKey: "k",
					community: "g",
					typed: "",
					waitMs: 50,
				});
				const from = new Set(got.map((s) => s.source));
				expect(from.has("review"), `${how} ${broken}`).toBe(broken !== "due");
				expect(from.has("unfinished"), `${how} ${broken}`).toBe(broken !== "profile" && broken !== "intro");
				expect(from.has("curated"), `${how} ${broken}`).toBe(broken !== "rules");
			}
		}
		// Without the learning service, only the curated topics.
		const { state } = sources(full);
		expect(
			(await suggestTopics({ state }, { learnerKey: "k", community: "g", typed: "" })).map((s) => s.source),
		).toEqual(["curated", "curated", "curated"]);
	});

	it("leaves out topics over 100 characters and labels within 100", async () => {
		const long = "x".repeat(101);
		const got = await suggestTopics(sources({ due: [long, "y".repeat(100)] }), {
			learnerKey: "k",
			community: "g",
			typed: "",
		});
		expect(got).toEqual([{ topic: "y".repeat(100), source: "review" }]);
		const label = suggestionLabel({ topic: "y".repeat(100), source: "review" }, "en");
		expect(label.length).toBeLessThanOrEqual(100);
		expect(label).toMatch(/^y+… · review due$/);
		expect(suggestionLabel({ topic: "Derivatives", source: "unfinished" }, "de")).toBe(
			"Derivatives · unfertige Lektion",
		);
		expect(suggestionLabel({ topic: "Fractions", source: "curated" }, "es")).toBe("Fractions");
	});
});
