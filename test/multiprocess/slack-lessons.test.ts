/**
 * Three `learnharness start` processes on one shared store, behind a load balancer (the fake
 * Slack sends each delivery to one of them at random): 20 lessons at once run to their end, on
 * a private Redis and again on a private PostgreSQL database. Every acknowledged answer is in the
 * final transcripts, no card or tutor message is posted twice, no step is stored twice, and every
 * lesson completes with its recap.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisServerInstalled } from "../fixtures/private-stores.ts";
import {
	clusterProblems,
	deliverySummary,
	runLessons,
	type SlackCluster,
	type StoreKind,
	startSlackCluster,
} from "./slack-cluster.ts";

const LESSONS = 20;

describe.each<StoreKind>(["redis", "postgres"])("three processes on one %s store", (store) => {
	let cluster: SlackCluster | undefined;
	beforeAll(async () => {
		if (store === "redis" && !redisServerInstalled) return;
		cluster = await startSlackCluster({ store, processes: 3, learners: LESSONS });
	}, 90_000);
	afterAll(async () => {
		await cluster?.close();
	}, 30_000);

	it.skipIf(store === "redis" && !redisServerInstalled)(
		`runs ${LESSONS} lessons at once to their end`,
		{ timeout: 120_000 },
		async () => {
			if (!cluster) throw new Error("the cluster starts in beforeAll");
			const started = Date.now();
			const lessons = await runLessons(cluster, LESSONS, 90_000);
			const seconds = ((Date.now() - started) / 1000).toFixed(1);
			const problems = await clusterProblems(cluster, lessons);
			const context = `${seconds} s; deliveries (process:outcome=count) ${deliverySummary(cluster)}\n${cluster.bots.problems().slice(0, 20).join("\n")}`;
			expect(problems, context).toEqual([]);
			expect(
				lessons.map((l) => l.answers.length).every((n) => n >= 10),
				context,
			).toBe(true);
			// The balancer spread the lessons over all three processes.
			for (const url of cluster.bots.eventsUrls)
				expect(cluster.balancer.attempts.some((a) => a.url === url)).toBe(true);
			console.info(`${store}: ${LESSONS} lessons on 3 processes in ${seconds} s; ${deliverySummary(cluster)}`);
		},
	);
});
