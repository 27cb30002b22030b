/**
 * Review benchmark (`npm run bench:review`), on a temp SQLite file (or BENCH_STORE: a redis:// or
 * postgres:// URL; its keys go under a namespace of this run, deleted after):
 * 1. a learner with 10,000 review items, stored in the old list layout and moved to the index by
 *    the first call (timed once: `migrate_10k_ms`); then due-item selection (`due`, up to 8 items)
 *    and one review scheduled by FSRS and saved (`grade`), medians over BENCH_RUNS (default 21);
 * 2. a server with 1,000 members x 20 lessons, profiles stored as earlier versions did: the first
 *    report (it keeps the community's report rows: `report_first_ms`), then the admin report
 *    (rows + CSV), median of 5 (`report_ms`);
 * 3. the store bytes per learner of that server (profile + review items, as stored JSON),
 *    and of the 10,000-item learner.
 * The last line is one JSON object.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { reportCsv } from "../src/adapters/lesson/report.ts";
import { createLearning, openStateWithItems, stateKeys } from "../src/agent/index.ts";
import type { LearnerProfile, ProfileLesson, ReviewItem } from "../src/agent/profile/profile-store.ts";
import { createScheduler } from "../src/agent/profile/schedule.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const MEMBERS = 1_000;
const LESSONS = 20;
const ITEMS = 10_000;
const DAY = 86_400_000;

const median = (xs: number[]): number => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.floor(s.length / 2)] ?? 0;
};
const time = async (work: () => Promise<unknown>): Promise<number> => {
	const t = performance.now();
	await work();
	return performance.now() - t;
};

const dir = mkdtempSync(join(tmpdir(), "lh-bench-review-"));
const url = process.env.BENCH_STORE ?? `sqlite://${join(dir, "bench.sqlite")}`;
const namespace = process.env.BENCH_STORE
	? `bench-review-${process.pid}-${Date.now().toString(36)}`
	: "learnharness:profiles";
const { state, items: index } = openStateWithItems(url, namespace);
const at = Date.parse("2026-06-01T00:00:00.000Z");
const learning = createLearning({
	state,
	items: index,
	sessions: { get: async () => undefined, delete: async () => false },
	now: () => new Date(at),
});
const scheduler = createScheduler();

const lesson = (member: number, n: number): ProfileLesson => ({
	sessionId: `discord:g1:${member}-${n}`,
	topic: `topic ${n % 7}`,
	community: "g1",
	startedAt: new Date(at - (LESSONS - n) * DAY).toISOString(),
	endedAt: new Date(at - (LESSONS - n) * DAY + 1_800_000).toISOString(),
	outcome: "completed",
	questionsAnswered: 9,
	firstTryCorrect: 6,
	nodes: ["a", "b", "c", "d", "e"].map((id, k) => ({
		id,
		label: `Idea ${id} of topic ${n % 7}`,
		mastery: k < 3 ? "learned" : k === 3 ? "shaky" : "not-yet",
	})),
	misconceptions: ["adding fractions: thinks the denominators add too"],
	reviews: n % 3,
});
const item = (sessionId: string, k: number, reviewedDaysAgo: number): ReviewItem => ({
	id: `${sessionId}#n${k}`,
	sessionId,
	topic: "fractions",
	nodeId: `n${k}`,
	label: `Idea ${k}`,
	question: `What is the common denominator of 1/${k + 2} and 1/${2 * k + 4}?`,
	correctAnswer: String(2 * k + 4),
	card: scheduler.first(new Date(at - reviewedDaysAgo * DAY), k % 4 === 0 ? "again" : "good"),
});
const profile = (member: number, lessons: ProfileLesson[]): LearnerProfile => ({
	format: 1,
	key: `discord:m${member}`,
	learner: { id: `m${member}` },
	lessons,
	reviewsDone: 12,
	sessionIds: lessons.map((l) => l.sessionId),
	places: ["g1:c1"],
});

try {
	// 1. One learner, 10,000 items.
	const big = "discord:m-big";
	const bigItems = Array.from({ length: ITEMS }, (_, k) => item(`discord:g1:big-${k % 200}`, k, k % 30));
	await state.set(`profile:${big}`, { ...profile(-1, []), key: big });
	await state.set(stateKeys.reviews(big), bigItems); // the old layout: one list
	const migrateMs = await time(() => learning.due(big)); // moves it to the index
	if ((await learning.items(big)).length !== ITEMS) throw new Error("the old list did not move whole");
	const dueMs: number[] = [];
	const gradeMs: number[] = [];
	let dueCount = 0;
	for (let r = 0; r < RUNS; r++) {
		dueMs.push(
			await time(async () => {
				const due = await learning.due(big, 8);
				dueCount = due.dueCount;
			}),
		);
		const id = bigItems[r]?.id ?? "";
		gradeMs.push(await time(() => learning.grade(big, id, r % 2 === 0 ? "good" : "again")));
	}
	const bigBytes =
		JSON.stringify(await learning.items(big)).length + JSON.stringify(await state.get(`profile:${big}`)).length;
	console.log(
		`10,000 review items: moved from the old list in ${migrateMs.toFixed(0)} ms; due selection p50 ${median(dueMs).toFixed(2)} ms (${dueCount} due), one review graded and saved p50 ${median(gradeMs).toFixed(2)} ms, ${(bigBytes / 1024).toFixed(0)} KiB stored`,
	);

	// 2. 1,000 members x 20 lessons on one server.
	const members: string[] = [];
	let bytes = 0;
	for (let m = 0; m < MEMBERS; m++) {
		const lessons = Array.from({ length: LESSONS }, (_, n) => lesson(m, n));
		const p = profile(m, lessons);
		const items = lessons.flatMap((l, n) => [0, 1, 2].map((k) => item(l.sessionId, k, LESSONS - n)));
		await state.set(`profile:${p.key}`, p);
		await index.add(
			stateKeys.reviewItems(p.key),
			items.map((i) => ({ id: i.id, score: Date.parse(i.card.due), value: i })),
		);
		bytes += JSON.stringify(p).length + JSON.stringify(items).length;
		members.push(p.key);
	}
	await state.set("members:g1", members);
	bytes += JSON.stringify(members).length;
	// Profiles written as earlier versions did (no report rows kept): the first report reads them and keeps the rows.
	const reportFirstMs = await time(() => learning.report("g1"));
	const reportMs: number[] = [];
	const reportCpu = process.cpuUsage();
	let rows = 0;
	let csvBytes = 0;
	for (let r = 0; r < 5; r++)
		reportMs.push(
			await time(async () => {
				const report = await learning.report("g1");
				const csv = reportCsv(report);
				rows = report.length;
				csvBytes = csv.length;
			}),
		);
	// This process's CPU per report: on a busy machine wall time runs far above it (waiting for a core).
	const cpu = process.cpuUsage(reportCpu);
	const reportCpuMs = (cpu.user + cpu.system) / 1000 / reportMs.length;
	const perLearner = Math.round(bytes / MEMBERS);
	console.log(
		`report of ${MEMBERS} members x ${LESSONS} lessons (rows and CSV): p50 ${median(reportMs).toFixed(0)} ms, ${rows} rows, ${(csvBytes / 1024).toFixed(0)} KiB CSV; the first, keeping the rows of profiles from an earlier version: ${reportFirstMs.toFixed(0)} ms`,
	);
	console.log(`store bytes per learner (20 lessons, 60 review items): ${perLearner}`);
	console.log(
		JSON.stringify({
			bench: "review",
			due_ms_p50: Number(median(dueMs).toFixed(3)),
			migrate_10k_ms: Number(migrateMs.toFixed(1)),
			grade_ms_p50: Number(median(gradeMs).toFixed(3)),
			report_ms: Number(median(reportMs).toFixed(1)),
			report_first_ms: Number(reportFirstMs.toFixed(1)),
			report_cpu_ms: Number(reportCpuMs.toFixed(1)),
			load_average: Number(loadavg()[0]?.toFixed(1)),
			bytes_per_learner: perLearner,
			bytes_10k_items: bigBytes,
			report_rows: rows,
		}),
	);
} finally {
	if (process.env.BENCH_STORE) {
		for (const key of ["discord:m-big", ...Array.from({ length: MEMBERS }, (_, m) => `discord:m${m}`)])
			await learning.forget(key).catch(() => undefined);
		await state.delete("members:g1");
	}
	await state.close();
	rmSync(dir, { recursive: true, force: true });
}
