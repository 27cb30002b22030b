/**
 * Topic suggestions benchmark (`npm run bench:suggest`): what `/lesson start topic:` autocomplete
 * costs on a temp SQLite file (or BENCH_STORE: a redis:// or postgres:// URL; its keys go under
 * namespaces of this run). A learner with 2,000 review items (half due), 200 lessons started (100
 * ended, 100 not, each with its intro in the controller's state) on a server with 25 curated topics;
 * suggestions for an empty and a typed prefix, p50 and p99 over BENCH_RUNS (default 201), against
 * the 1,500 ms the reads may take (SUGGESTION_WAIT_MS). The last line is one JSON object.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { LessonState } from "../src/adapters/lesson/lesson-state.ts";
import { SUGGESTION_WAIT_MS, suggestTopics } from "../src/adapters/lesson/topic-suggestions.ts";
import { createLearning, openStateStore, openStateWithItems, stateKeys } from "../src/agent/index.ts";
import type { LearnerProfile, ProfileLesson } from "../src/agent/profile/profile-store.ts";
import { createScheduler } from "../src/agent/profile/schedule.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 201);
const ITEMS = 2_000;
const LESSONS = 200;
const DAY = 86_400_000;

const percentile = (xs: number[], p: number): number => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;
};

const dir = mkdtempSync(join(tmpdir(), "lh-bench-suggest-"));
const url = process.env.BENCH_STORE ?? `sqlite://${join(dir, "bench.sqlite")}`;
const run = `${process.pid}-${Date.now().toString(36)}`;
const { state: profiles, items } = openStateWithItems(url, process.env.BENCH_STORE ? `bench-suggest-p-${run}` : "p");
const controllerStore = openStateStore(url, process.env.BENCH_STORE ? `bench-suggest-c-${run}` : "discord");
const at = Date.parse("2026-06-01T00:00:00.000Z");
const learning = createLearning({
	state: profiles,
	items,
	sessions: { get: async () => undefined, delete: async () => false },
	now: () => new Date(at),
});
const state = new LessonState(controllerStore);
const scheduler = createScheduler();
const key = "discord:learner";
const sessionId = (n: number) => `discord:g1:t${n}`;
const topicOf = (n: number) => `${n % 2 === 0 ? "Fractions" : "Derivatives"} part ${n}`;

try {
	const lessons: ProfileLesson[] = Array.from({ length: LESSONS / 2 }, (_, n) => ({
		sessionId: sessionId(n),
		topic: topicOf(n),
		community: "g1",
		startedAt: new Date(at - 30 * DAY).toISOString(),
		outcome: "completed",
		questionsAnswered: 4,
		firstTryCorrect: 3,
		nodes: [],
		misconceptions: [],
		reviews: 0,
	}));
	const profile: LearnerProfile = {
		format: 1,
		key,
		learner: { id: "learner" },
		lessons,
		reviewsDone: 0,
		sessionIds: Array.from({ length: LESSONS }, (_, n) => sessionId(n)),
	};
	await profiles.set(`profile:${key}`, profile);
	await items.add(
		stateKeys.reviewItems(key),
		Array.from({ length: ITEMS }, (_, k) => {
			const card = scheduler.first(new Date(at - (k % 2 === 0 ? 20 : -20) * DAY), "good");
			const value = {
				id: `${sessionId(k % 100)}#n${k}`,
				sessionId: sessionId(k % 100),
				topic: topicOf(k % 100),
				nodeId: `n${k}`,
				label: `Idea ${k}`,
				question: "Q?",
				correctAnswer: "A",
				card,
			};
			return { id: value.id, score: Date.parse(card.due), value };
		}),
	);
	for (let n = 0; n < LESSONS; n++)
		await state.saveLesson(
			sessionId(n),
			{ community: "g1", channelId: "c1" },
			{ topic: topicOf(n), mode: "solo", learner: { id: "learner" }, startedBy: { id: "learner" } },
		);
	const curated = Array.from({ length: 25 }, (_, i) => `Curated topic ${i}`);
	await state.saveRules("g1", { ...state.ruleDefaults, topics: curated });

	const measure = async (typed: string) => {
		const ms: number[] = [];
		let count = 0;
		for (let r = 0; r < RUNS; r++) {
			const t = performance.now();
			count = (await suggestTopics({ state, learning }, { learnerKey: key, community: "g1", typed })).length;
			ms.push(performance.now() - t);
		}
		return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99), count };
	};
	await measure(""); // warm: the first touch of the learner's items, the rules cache
	const all = await measure("");
	const typed = await measure("deriv");
	console.log(
		`suggestions, nothing typed: p50 ${all.p50.toFixed(2)} ms, p99 ${all.p99.toFixed(2)} ms (${all.count} choices)`,
	);
	console.log(
		`suggestions, "deriv" typed: p50 ${typed.p50.toFixed(2)} ms, p99 ${typed.p99.toFixed(2)} ms (${typed.count} choices); budget ${SUGGESTION_WAIT_MS} ms`,
	);
	console.log(
		JSON.stringify({
			bench: "suggest",
			empty_ms_p50: Number(all.p50.toFixed(3)),
			empty_ms_p99: Number(all.p99.toFixed(3)),
			typed_ms_p50: Number(typed.p50.toFixed(3)),
			typed_ms_p99: Number(typed.p99.toFixed(3)),
			choices_empty: all.count,
			choices_typed: typed.count,
			budget_ms: SUGGESTION_WAIT_MS,
			load_average: Number(loadavg()[0]?.toFixed(1)),
		}),
	);
} finally {
	await profiles.close();
	await controllerStore.close();
	rmSync(dir, { recursive: true, force: true });
}
