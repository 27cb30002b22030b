/**
 * Three `learnharness start` processes on one shared store, behind a load balancer (the fake
 * Slack sends each delivery to one of them at random): 20 lessons at once run to their end, on
 * a private Redis and again on a private PostgreSQL database. Every acknowledged answer is in the
 * final transcripts, no card or tutor message is posted twice, no step is stored twice, and every
 * lesson completes with its recap. Then a signed `/lesson start` replayed three times, once to
 * each process, starts one lesson (test/adapters/contract/duplicates.test.ts checks the same with
 * two adapters in one process on a memory store; here the claim goes through the shared store).
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	clusterProblems,
	deliverySummary,
	dumpOnFailure,
	noticeSummary,
	runLessons,
	type SlackCluster,
	type StoreKind,
	sessionsIn,
	startSlackCluster,
	storeAvailable,
} from "./slack-cluster.ts";

const LESSONS = 20;
const FORM = "application/x-www-form-urlencoded";

const available = { redis: await storeAvailable("redis"), postgres: await storeAvailable("postgres") };

describe.each<StoreKind>(["redis", "postgres"])("three processes on one %s store", (store) => {
	let cluster: SlackCluster | undefined;
	beforeAll(async () => {
		if (!available[store]) return;
		cluster = await startSlackCluster({ store, processes: 3, learners: LESSONS });
	}, 90_000);
	afterAll(async () => {
		await cluster?.close();
	}, 30_000);

	// Skipped where the store is not installed here (redis-server) or not running (PostgreSQL).
	it.skipIf(!available[store])(`runs ${LESSONS} lessons at once to their end`, { timeout: 120_000 }, async () => {
		if (!cluster) throw new Error("the cluster starts in beforeAll");
		const started = Date.now();
		const lessons = await runLessons(cluster, LESSONS, 90_000);
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		const problems = await clusterProblems(cluster, lessons);
		const dump = dumpOnFailure(cluster, `lessons-${store}`, lessons, problems);
		const context = `${dump}; ${seconds} s; deliveries (process:outcome=count) ${deliverySummary(cluster)}\nnotices to learners:\n${noticeSummary(cluster)}\nwarnings:\n${cluster.bots.problems().slice(0, 20).join("\n")}`;
		expect(problems, context).toEqual([]);
		expect(
			lessons.map((l) => l.answers.length).every((n) => n >= 10),
			context,
		).toBe(true);
		// The balancer spread the lessons over all three processes.
		for (const url of cluster.bots.eventsUrls) expect(cluster.balancer.attempts.some((a) => a.url === url)).toBe(true);
		console.info(`${store}: ${LESSONS} lessons on 3 processes in ${seconds} s; ${deliverySummary(cluster)}`);
	});

	// Skipped where the store is not installed here (redis-server) or not running (PostgreSQL).
	it.skipIf(!available[store])(
		"starts one lesson when a signed /lesson start is replayed to each of the three processes",
		{ timeout: 30_000 },
		async () => {
			if (!cluster) throw new Error("the cluster starts in beforeAll");
			const { fake, bots } = cluster;
			const actor = { user: "U1", name: "learner1", channel: "C99" };
			const sender = fake.sender(bots.eventsUrls[0] ?? "");
			const body = sender.commandBody("/lesson", "start binary search", actor);
			const stamp = Math.floor(Date.now() / 1000);
			const statuses: number[] = [];
			for (const [i, url] of bots.eventsUrls.entries()) {
				const to = fake.sender(url);
				const headers: Record<string, string> = i === 0 ? {} : { "x-slack-retry-num": String(i) };
				statuses.push((await to.raw(body, FORM, { timestampSec: stamp, headers })).status);
			}
			expect(statuses).toEqual([200, 200, 200]);
			const parents = () => [...fake.messages.values()].filter((m) => m.channel === actor.channel && !m.threadTs);
			await fake.waitFor(() => parents().length > 0, "the lesson's parent message", 20_000);
			// Give a second lesson every chance to show up before counting.
			await new Promise((r) => setTimeout(r, 3_000));
			expect(parents()).toHaveLength(1);
			expect(await sessionsIn(cluster, actor.channel)).toHaveLength(1);
		},
	);
});
