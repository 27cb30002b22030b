/**
 * Dashboard benchmark (`npm run bench:dashboard`), on a temp SQLite file (or BENCH_STORE):
 * a community of 1,000 members and 20,000 ended lessons (BENCH_LESSONS), generated as the
 * engine stores them (testkit/dashboard-lessons.ts: maps, tagged checks, group votes), each
 * digested as the learning service does at a lesson's end (lessonFacts per participant) and
 * written in bulk in the index's stored format (one write per bucket: seeding through 20,000
 * single updateFields takes minutes); then 200 lessons end one at a time through the real write.
 * Then, through the real HTTP server and a session signed in with a real link:
 *   1. the overview page and the stuck-nodes page, medians over BENCH_RUNS (default 11), each view
 *      after one more lesson ended (the reader re-reads only the index bucket that changed): the
 *      JSON's `overview_ms_p50` and `stuck_ms_p50`;
 *   2. the same pages cold (a reader that has read nothing yet: all 64 buckets): `*_cold_ms_p50`;
 *   3. the CSV export (median of 3, after a lesson ended; and cold);
 *   4. the index write at a lesson's end with the community at full size (median of the last 200).
 * The last line is one JSON object.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createLearning, type Learning, openStateStore, stateKeys } from "../src/agent/index.ts";
import { lessonFacts, lessonParticipants } from "../src/agent/profile/lesson-facts.ts";
import {
	encodeDigest,
	LESSON_INDEX_BUCKETS,
	LessonIndex,
	lessonBucketOf,
	lessonDigest,
} from "../src/agent/profile/lesson-index.ts";
import { silentLogger } from "../src/core/contracts/logger.ts";
import { createDashboard } from "../src/dashboard/index.ts";
import { seededLessons } from "../testkit/dashboard-lessons.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 11);
const MEMBERS = 1_000;
const LESSONS = Number(process.env.BENCH_LESSONS ?? 20_000);
const COMMUNITY = "100000000000000001";

const median = (xs: number[]): number => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.floor(s.length / 2)] ?? 0;
};
const time = async (work: () => Promise<unknown>): Promise<number> => {
	const t = performance.now();
	await work();
	return performance.now() - t;
};
/** The process's CPU time (user + system, ms) a request took: server and client are this process; on a busy machine wall time waits for a core, CPU time does not. */
const cpu = async (work: () => Promise<unknown>): Promise<number> => {
	const before = process.cpuUsage();
	await work();
	const used = process.cpuUsage(before);
	return (used.user + used.system) / 1000;
};

const dir = mkdtempSync(join(tmpdir(), "lh-bench-dashboard-"));
const url = process.env.BENCH_STORE ?? `sqlite://${join(dir, "bench.sqlite")}`;
const profiles = openStateStore(url, "learnharness:profiles");
const dashboardState = openStateStore(url, "learnharness:dashboard");
const now = new Date("2026-06-01T00:00:00.000Z");
const learning = createLearning({
	state: profiles,
	sessions: { get: async () => undefined, delete: async () => false },
	now: () => now,
});
const topics = Array.from({ length: 12 }, (_, t) => ({
	topic: `Topic ${t}`,
	nodes: Array.from({ length: 5 + (t % 4) }, (_, k) => `Idea ${k} of topic ${t}`),
}));
const members = Array.from({ length: MEMBERS }, (_, m) => ({
	id: String(1_200_000_000_000_000_000n + BigInt(m)),
	name: `member ${m}`,
}));

try {
	// Seeding: each lesson's digest derived as the learning service derives it at the lesson's end (lessonFacts per
	// participant), written in bulk: one write per bucket in the stored format, and each bucket's change count.
	const index = new LessonIndex(profiles);
	const seedStart = performance.now();
	const spacingMs = Math.floor((365 * 86_400_000) / LESSONS);
	const records = seededLessons({
		platform: "discord",
		community: COMMUNITY,
		lessons: LESSONS,
		members,
		topics,
		end: now,
		spacingMs,
		groupEvery: 10,
	});
	const buckets = Array.from({ length: LESSON_INDEX_BUCKETS }, () => ({}) as Record<string, string>);
	for (const record of records) {
		const people = record.mode === "group" ? lessonParticipants(record) : [record.learner];
		const digest = lessonDigest(
			record.mode,
			people.map((person) => ({ person, facts: lessonFacts(record, person) })),
		);
		const bucket = buckets[lessonBucketOf(record.sessionId)];
		if (digest && bucket) bucket[record.sessionId] = encodeDigest(digest);
	}
	const community = `discord:${COMMUNITY}`;
	for (const [b, bucket] of buckets.entries()) await profiles.set(stateKeys.lessons(community, b), bucket);
	await profiles.set(stateKeys.lessonVersions(community), Object.fromEntries(buckets.map((_, b) => [String(b), 1])));
	const seedS = (performance.now() - seedStart) / 1000;
	// The write a lesson's end adds, with the community at full size (200 more lessons, one at a time).
	const writeMs: number[] = [];
	for (const record of seededLessons({
		platform: "discord",
		community: COMMUNITY,
		lessons: 200,
		members,
		topics,
		end: now,
		seed: 3,
	})) {
		const digest = lessonDigest("solo", [{ person: record.learner, facts: lessonFacts(record, record.learner) }]);
		if (digest) writeMs.push(await time(() => index.put({ ...digest, sessionId: `${digest.sessionId}-end` })));
	}
	const lastWrites = writeMs;
	console.log(
		`seeded ${LESSONS} lessons of ${MEMBERS} members in ${seedS.toFixed(1)} s; the index write at a lesson's end, community at full size: p50 ${median(lastWrites).toFixed(2)} ms`,
	);

	/** A dashboard over `lessons`, signed in: a GET of one of its community's pages. */
	const signedIn = async (lessons: Pick<Learning, "lessons" | "lessonBuckets">) => {
		const dashboard = createDashboard({
			secret: "a bench secret that is long enough for the links",
			host: "127.0.0.1",
			port: 0,
			state: dashboardState,
			learning: lessons,
			records: { get: async () => undefined },
			logger: silentLogger,
			now: () => now,
		});
		const base = await dashboard.listen();
		const link = await dashboard.issue({ platform: "discord", community: COMMUNITY, admin: { id: "admin" } });
		const response = await fetch(`${base}/signin`, {
			method: "POST",
			headers: { "content-type": "application/x-www-form-urlencoded" },
			body: new URLSearchParams({ t: new URL(link.url).searchParams.get("t") ?? "" }),
			redirect: "manual",
		});
		const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
		const pages = `${base}${response.headers.get("location") ?? ""}`;
		const get = async (path: string): Promise<number> => {
			const got = await fetch(`${pages}${path}`, { headers: { cookie } });
			const body = await got.text();
			if (got.status !== 200) throw new Error(`${path || "overview"} answered ${got.status}`);
			return body.length;
		};
		return { get, close: () => dashboard.close() };
	};
	// Warm: the learning service's own reader, one more lesson ended before each view.
	const warm = await signedIn(learning);
	// Cold: a reader that has read nothing (every view reads all buckets, and the pages' sums start afresh).
	const cold = await signedIn({
		lessons: (c) => new LessonIndex(profiles).list(c),
		lessonBuckets: (c) => new LessonIndex(profiles).buckets(c),
	});
	const more = seededLessons({
		platform: "discord",
		community: COMMUNITY,
		lessons: 4 * RUNS + 3,
		members,
		topics,
		end: now,
		seed: 2,
	}).map((r, i) => ({ ...r, sessionId: `${r.sessionId}-late-${i}` }));
	const endOne = async () => {
		const record = more.shift();
		if (!record) return;
		const digest = lessonDigest(record.mode, [{ person: record.learner, facts: lessonFacts(record, record.learner) }]);
		if (digest) await index.put(digest);
	};
	for (const path of ["", "stuck", "export.csv"]) await warm.get(path);
	const overviewMs: number[] = [];
	const stuckMs: number[] = [];
	const overviewColdMs: number[] = [];
	const stuckColdMs: number[] = [];
	const csvMs: number[] = [];
	const overviewCpu: number[] = [];
	const stuckCpu: number[] = [];
	let csvBytes = 0;
	for (let r = 0; r < RUNS; r++) {
		await endOne();
		overviewCpu.push(await cpu(() => warm.get("")));
		await endOne();
		stuckCpu.push(await cpu(() => warm.get("stuck")));
		await endOne();
		overviewMs.push(await time(() => warm.get("")));
		await endOne();
		stuckMs.push(await time(() => warm.get("stuck")));
		overviewColdMs.push(await time(() => cold.get("")));
		stuckColdMs.push(await time(() => cold.get("stuck")));
	}
	const csvColdMs: number[] = [];
	for (let r = 0; r < 3; r++) {
		await endOne();
		csvMs.push(
			await time(async () => {
				csvBytes = await warm.get("export.csv");
			}),
		);
		csvColdMs.push(await time(() => cold.get("export.csv")));
	}
	await warm.close();
	await cold.close();
	const digests = await learning.lessons(`discord:${COMMUNITY}`);
	console.log(`${digests.length} digests in the index; CSV ${(csvBytes / 1024 / 1024).toFixed(1)} MiB`);
	console.log(
		`after a lesson ended: overview p50 ${median(overviewMs).toFixed(1)} ms, stuck nodes p50 ${median(stuckMs).toFixed(1)} ms (targets < 300 ms); CSV ${median(csvMs).toFixed(0)} ms (target < 2000 ms)`,
	);
	console.log(
		`CPU time of those views (this process, server and client): overview p50 ${median(overviewCpu).toFixed(1)} ms, stuck nodes p50 ${median(stuckCpu).toFixed(1)} ms; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`,
	);
	console.log(
		`cold (all buckets read): overview p50 ${median(overviewColdMs).toFixed(1)} ms, stuck nodes p50 ${median(stuckColdMs).toFixed(1)} ms; CSV ${median(csvColdMs).toFixed(0)} ms`,
	);
	console.log(
		JSON.stringify({
			bench: "dashboard",
			overview_ms_p50: Number(median(overviewMs).toFixed(1)),
			stuck_ms_p50: Number(median(stuckMs).toFixed(1)),
			csv_ms: Number(median(csvMs).toFixed(0)),
			overview_cpu_ms_p50: Number(median(overviewCpu).toFixed(1)),
			stuck_cpu_ms_p50: Number(median(stuckCpu).toFixed(1)),
			load_average: Number(loadavg()[0]?.toFixed(1)),
			overview_cold_ms_p50: Number(median(overviewColdMs).toFixed(1)),
			stuck_cold_ms_p50: Number(median(stuckColdMs).toFixed(1)),
			csv_cold_ms: Number(median(csvColdMs).toFixed(0)),
			lessons: digests.length,
			members: MEMBERS,
			index_write_ms_p50: Number(median(lastWrites).toFixed(2)),
		}),
	);
} finally {
	await profiles.close();
	await dashboardState.close();
	rmSync(dir, { recursive: true, force: true });
}
