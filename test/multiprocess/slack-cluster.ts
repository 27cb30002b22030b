/**
 * The set-up the multi-process Slack tests share: a store of their own (a private redis-server
 * or a private PostgreSQL database), the fake Slack with one learner per lesson, N
 * `learnharness start` processes on that store behind the fake's random load balancer, and
 * the final transcripts read back from the store.
 */

import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionStore, type SessionRecord, type SessionStore } from "../../src/agent/index.ts";
import { type BalancedSender, type FakeSlack, startFakeSlack } from "../../testkit/fakes/slack.ts";
import { type BotCluster, startBotCluster } from "../fixtures/bot-cluster.ts";
import { type PrivateStore, privatePostgres, privateRedis, redisServerInstalled } from "../fixtures/private-stores.ts";
import { listening } from "../fixtures/redis-server.ts";
import { type ConcurrentLesson, driveConcurrentLesson } from "../fixtures/slack/drive-concurrent.ts";
import { lessonProblems, sessionIdOf } from "./lesson-checks.ts";

export type StoreKind = "redis" | "postgres";

/** Whether the tests can run on a store here: redis-server installed, PostgreSQL listening on 127.0.0.1:5432. */
export async function storeAvailable(kind: StoreKind): Promise<boolean> {
	return kind === "redis" ? redisServerInstalled : await listening(5432);
}

/** A running cluster and its fake Slack. */
export interface SlackCluster {
	store: PrivateStore;
	fake: FakeSlack;
	bots: BotCluster;
	balancer: BalancedSender;
	close(): Promise<void>;
}

/** The learners: U1…Un, each in a channel of their own (C1…Cn). */
export function learners(n: number): Array<{ user: string; name: string; channel: string }> {
	return Array.from({ length: n }, (_, i) => ({ user: `U${i + 1}`, name: `learner${i + 1}`, channel: `C${i + 1}` }));
}

/**
 * Start the store, the fake and `processes` bots (the demo model unless `env` names another,
 * no Chromium: plan pictures fall back to their outline, which keeps three processes light).
 */
export async function startSlackCluster(options: {
	store: StoreKind;
	processes: number;
	learners: number;
	env?: Record<string, string>;
	envOf?: (index: number) => Record<string, string>;
}): Promise<SlackCluster> {
	const store = options.store === "redis" ? await privateRedis() : await privatePostgres("mproc");
	let fake: FakeSlack | undefined;
	try {
		fake = await startFakeSlack({ users: learners(options.learners).map((l) => ({ id: l.user, name: l.name })) });
		const bots = await startBotCluster({
			count: options.processes,
			env: {
				SLACK_BOT_TOKEN: "xoxb-test",
				SLACK_SIGNING_SECRET: fake.signingSecret,
				SLACK_API_URL: fake.apiUrl,
				LEARNHARNESS_STORE_URL: store.url,
				LEARNHARNESS_MODEL: "demo",
				LEARNHARNESS_CHROMIUM_PATH: "/nonexistent/chromium",
				...options.env,
			},
			...(options.envOf ? { envOf: options.envOf } : {}),
			startTimeoutMs: 75_000,
		});
		const started = fake;
		return {
			store,
			fake,
			bots,
			balancer: fake.balancer(bots.eventsUrls),
			async close() {
				await bots.stop(10_000);
				await started.close();
				await store.drop();
			},
		};
	} catch (error) {
		await fake?.close();
		await store.drop();
		throw error;
	}
}

/** Every learner runs a lesson, all at once; resolves when each ended or passed `timeoutMs`. */
export function runLessons(cluster: SlackCluster, count: number, timeoutMs: number): Promise<ConcurrentLesson[]> {
	return Promise.all(
		learners(count).map((actor) =>
			driveConcurrentLesson(cluster.fake, cluster.balancer, { actor, topic: "binary search", timeoutMs }),
		),
	);
}

/**
 * A session store on the cluster's store, for reading. Retried (3 tries): opening it while the
 * processes run is not what these tests check (on PostgreSQL its start-up DDL deadlocked with
 * the running processes' transactions until the store skipped DDL on an existing schema).
 */
async function openForReading(cluster: SlackCluster): Promise<SessionStore> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await createSessionStore(cluster.store.url);
		} catch (error) {
			if (attempt >= 3) throw error;
			console.warn(`opening the store for reading failed (try ${attempt}): ${(error as Error).message}`);
			await new Promise((r) => setTimeout(r, 1_000));
		}
	}
}

/** Every problem of every lesson (from the final transcripts, read from the shared store with a fresh connection), plus sessions beyond the lessons driven. */
export async function clusterProblems(cluster: SlackCluster, lessons: ConcurrentLesson[]): Promise<string[]> {
	const sessions = await openForReading(cluster);
	try {
		const records: Array<SessionRecord | undefined> = [];
		for (const l of lessons) records.push(l.threadTs ? await sessions.get(sessionIdOf(cluster.fake, l)) : undefined);
		const problems = lessons.flatMap((lesson, i) => lessonProblems(cluster.fake, lesson, records[i]));
		const stored = (await sessions.list()).filter((id) => id.startsWith("slack:"));
		if (stored.length !== lessons.length)
			problems.push(`${stored.length} lesson sessions stored for ${lessons.length} lessons started`);
		return problems;
	} finally {
		await sessions.close();
	}
}

/** The stored sessions of one channel (ids). */
export async function sessionsIn(cluster: SlackCluster, channel: string): Promise<string[]> {
	const sessions = await openForReading(cluster);
	try {
		return (await sessions.list()).filter((id) => id.includes(`:${channel}:`));
	} finally {
		await sessions.close();
	}
}

/** A short account of how the deliveries went (for failure messages and the log). */
export function deliverySummary(cluster: SlackCluster): string {
	const counts = new Map<string, number>();
	for (const a of cluster.balancer.attempts) {
		const key = `${cluster.bots.eventsUrls.indexOf(a.url)}:${a.outcome}`;
		counts.set(key, (counts.get(key) ?? 0) + 1);
	}
	return [...counts]
		.sort()
		.map(([k, n]) => `${k}=${n}`)
		.join(" ");
}

/** The notices the bot gave learners privately (ephemeral), by channel, counted by text: refusals show here. */
export function noticeSummary(cluster: SlackCluster): string {
	const counts = new Map<string, number>();
	for (const c of cluster.fake.callsTo("chat.postEphemeral")) {
		const key = `${String(c.params.channel)}: ${String(c.params.text).slice(0, 60)}`;
		counts.set(key, (counts.get(key) ?? 0) + 1);
	}
	return [...counts].map(([k, n]) => `${k} (${n}x)`).join("\n");
}

/** With problems: write the deliveries, the posts and each process's log to a temporary file; its path. */
export function dumpOnFailure(
	cluster: SlackCluster,
	label: string,
	lessons: ConcurrentLesson[],
	problems: string[],
): string {
	if (problems.length === 0) return "";
	const file = join(tmpdir(), `lh-${label}-${process.pid}-${Date.now().toString(36)}.json`);
	writeFileSync(
		file,
		JSON.stringify({
			label,
			problems,
			lessons,
			attempts: cluster.balancer.attempts,
			calls: cluster.fake.calls,
			log: cluster.bots.output(),
		}),
	);
	return `details in ${file}`;
}
