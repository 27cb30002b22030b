/**
 * Three `learnharness start` processes on one shared store behind the fake Slack's random load
 * balancer, 20 lessons at once on a slow model (the demo lesson served over the OpenAI-compatible
 * API with a delay per request): one process is killed (`kill -9`) while it waits on a model call
 * (mid-turn), another is paused (`SIGSTOP`) mid-turn past its 10 s lease and then resumed
 * (`SIGCONT`). Deliveries to the dead or silent process are retried to another by the balancer,
 * as Slack retries. On a private Redis and again on a private PostgreSQL database: every
 * acknowledged answer is in the final transcripts, no card or tutor message is posted twice, no
 * step is stored twice, and every lesson completes with its recap.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoOpenAI, startDemoOpenAI } from "../fixtures/demo-openai.ts";
import {
	clusterProblems,
	deliverySummary,
	dumpOnFailure,
	noticeSummary,
	runLessons,
	type SlackCluster,
	type StoreKind,
	startSlackCluster,
	storeAvailable,
} from "./slack-cluster.ts";

const LESSONS = 20;
/** The store's lease TTL (src/agent: LEASE_TTL_MS) plus a margin: the paused process loses its leases. */
const PAUSE_MS = 14_000;

/** Wait (bounded) until `check` holds; false at the deadline. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
	const deadline = Date.now() + ms;
	while (!check()) {
		if (Date.now() > deadline) return false;
		await new Promise((r) => setTimeout(r, 20));
	}
	return true;
}

const available = {
	redis: await storeAvailable("redis"),
	postgres: await storeAvailable("postgres"),
};

describe.each<StoreKind>(["redis", "postgres"])("three processes on one %s store, one killed, one paused", (store) => {
	let cluster: SlackCluster | undefined;
	let model: DemoOpenAI | undefined;
	beforeAll(async () => {
		if (!available[store]) return;
		model = await startDemoOpenAI({ delayMs: 800 });
		const urls = model;
		cluster = await startSlackCluster({
			store,
			processes: 3,
			learners: LESSONS,
			// A bare model id with OPENAI_BASE_URL set: the OpenAI-compatible provider, one base URL per process.
			env: { LEARNHARNESS_MODEL: "slow-demo" },
			envOf: (i) => ({ OPENAI_BASE_URL: urls.baseUrlFor(i) }),
		});
	}, 90_000);
	afterAll(async () => {
		await cluster?.close();
		await model?.close();
	}, 30_000);

	// Skipped where the store is not installed here (redis-server) or not running (PostgreSQL).
	it.skipIf(!available[store])(
		`runs ${LESSONS} lessons to their end through a kill -9 and a SIGSTOP mid-turn`,
		{ timeout: 130_000 },
		async () => {
			if (!cluster || !model) throw new Error("the cluster starts in beforeAll");
			const slow = model;
			const [killed, paused] = cluster.bots.processes;
			if (!killed || !paused) throw new Error("three processes");
			const started = Date.now();
			const running = runLessons(cluster, LESSONS, 90_000);
			// Mid-turn: the process has a model call open when the signal comes.
			await new Promise((r) => setTimeout(r, 4_000));
			expect(await until(() => slow.inFlight(0) > 0, 20_000), "process 0 never called the model").toBe(true);
			killed.kill();
			const killedAt = Date.now() - started;
			await new Promise((r) => setTimeout(r, 2_000));
			expect(await until(() => slow.inFlight(1) > 0, 20_000), "process 1 never called the model").toBe(true);
			paused.pause();
			const pausedAt = Date.now() - started;
			await new Promise((r) => setTimeout(r, PAUSE_MS));
			paused.resume();
			const lessons = await running;
			const seconds = ((Date.now() - started) / 1000).toFixed(1);
			const problems = await clusterProblems(cluster, lessons);
			const timeline = `killed process 0 at ${killedAt} ms, paused process 1 at ${pausedAt} ms for ${PAUSE_MS} ms; ended after ${seconds} s`;
			const dump = dumpOnFailure(cluster, `failover-${store}`, lessons, problems);
			const context = `${dump}; ${timeline}; deliveries (process:outcome=count) ${deliverySummary(cluster)}\nnotices to learners:\n${noticeSummary(cluster)}\nwarnings:\n${cluster.bots.problems().slice(0, 30).join("\n")}`;
			expect(problems, context).toEqual([]);
			// The failures were seen: deliveries refused by the dead process and unanswered by the paused one.
			expect(cluster.balancer.attempts.some((a) => a.outcome === "refused")).toBe(true);
			expect(cluster.balancer.attempts.some((a) => a.outcome === "timeout")).toBe(true);
			console.info(`${store}: ${timeline}; ${deliverySummary(cluster)}`);
		},
	);
});
