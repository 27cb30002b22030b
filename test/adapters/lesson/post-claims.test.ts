/**
 * One process posts each question card: the claim is atomic (many claimers, one winner), a
 * re-post (restart, takeover) does not take a fresh claim over, and does take over one whose
 * poster died or stalled posting (older than the stale bound, still no card): once, and it
 * looks in the thread first. A poster whose claim was taken over while it was paused posts
 * nothing; a re-post that met a fresh claim looks again once it is stale, so a question whose
 * poster died before posting is still shown. Claims are made on shared stores only: on a store
 * no other process shares (SQLite) its one process posts a question once, and a re-post after a
 * restart looks in the thread first. Where a card was posted is the engine's (`tutor.posted`).
 */

import { describe, expect, it } from "vitest";
import { LessonState } from "../../../src/adapters/lesson/lesson-state.ts";
import { createSerialQueues } from "../../../src/adapters/lesson/serial-queue.ts";
import { createThreadOutput } from "../../../src/adapters/lesson/thread-output.ts";
import { createMemoryStateStore, type StateStore } from "../../../src/agent/index.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import type { PlanPicture } from "../../../src/render/index.ts";
import { postedRecords } from "./posted-records.ts";
import { type PortCall, recordingPort } from "./recording-port.ts";

describe("claims to post a question's card", () => {
	it("one of many concurrent claimers wins; another question is claimed on its own", async () => {
		const state = new LessonState(createMemoryStateStore());
		const claims = await Promise.all(Array.from({ length: 8 }, () => state.claimPost("t1", "q1")));
		expect(claims.filter((c) => c.mine)).toHaveLength(1);
		expect((await state.claimPost("t1", "q2")).mine).toBe(true);
		expect((await state.claimPost("t2", "q1")).mine).toBe(true);
	});

	it("a re-post takes over only a stale claim, once, and the old claimer knows it lost it", async () => {
		const state = new LessonState(createMemoryStateStore());
		const first = await state.claimPost("t1", "q1");
		if (!first.mine) throw new Error("the first claim must win");
		// Fresh: its poster is (probably) posting right now.
		const fresh = await state.claimPost("t1", "q1", { staleAfterMs: 60_000 });
		expect(fresh.mine).toBe(false);
		expect(fresh.mine ? -1 : fresh.ageMs).toBeLessThan(60_000);
		// Old enough (here: any age): two re-posters at once, one takes it over and learns when it was made.
		const takers = await Promise.all([0, 1, 2].map(() => state.claimPost("t1", "q1", { staleAfterMs: 0 })));
		const won = takers.filter((c) => c.mine);
		expect(won).toHaveLength(1);
		expect(won[0]?.mine && won[0].tookOverFrom).toBeGreaterThan(0);
		expect((await state.claimPost("t1", "q1")).mine).toBe(false);
		expect(await state.holdsPost("t1", "q1", first.token)).toBe(false);
		expect(won[0]?.mine && (await state.holdsPost("t1", "q1", won[0].token))).toBe(true);
	});
});

const question = (toolCallId: string, replay: boolean): TutorEvent => ({
	type: "quiz",
	sessionId: "rec:t1",
	toolCallId,
	input: { question: "Half of 1?", options: ["0.5", "2"], correctAnswer: "0.5" },
	...(replay ? { replay: true } : {}),
});

/** A memory store that says other processes share it (as Redis and PostgreSQL do). */
function sharedStore(): StateStore {
	const s = createMemoryStateStore();
	return {
		shared: true,
		get: (key) => s.get(key),
		set: (key, value, ttlMs) => s.set(key, value, ttlMs),
		setIfAbsent: (key, value, ttlMs) => s.setIfAbsent(key, value, ttlMs),
		increment: (key, by, ttlMs) => s.increment(key, by, ttlMs),
		updateFields: (key, change, ttlMs) => s.updateFields(key, change, ttlMs),
		delete: (key) => s.delete(key),
		close: () => s.close(),
	};
}

/** Cards in a thread, by question (what every process's posts left there: what `findCard` finds). */
type Thread = Map<string, string[]>;

/** The output path of one process on `store`, with a port that may find cards in the thread. */
function processOutput(
	store: StateStore,
	inThread?: string[],
	localeOf?: () => Promise<"en">,
	thread: Thread = new Map(),
) {
	const log: Array<PortCall | { call: string }> = [];
	const port = recordingPort(log);
	const found: string[] = [];
	const state = new LessonState(store);
	const tutor = postedRecords();
	const output = createThreadOutput({
		tutor,
		port: {
			...port,
			async postCard(threadId, card) {
				const ids = await port.postCard(threadId, card);
				const question = card.kind === "question" ? card.toolCallId : undefined;
				if (question) thread.set(question, ids);
				return ids;
			},
			async findCard(_threadId, toolCallId) {
				found.push(toolCallId);
				return inThread ?? thread.get(toolCallId) ?? [];
			},
		},
		renderer: { renderPlan: () => new Promise<PlanPicture>(() => {}) },
		state,
		queues: createSerialQueues(silentLogger),
		logger: silentLogger,
		staleClaimMs: 150,
		...(localeOf ? { localeOf } : {}),
	});
	const posted = () => log.filter((c): c is Extract<PortCall, { call: "postCard" }> => c.call === "postCard");
	const edits = () => log.filter((c): c is Extract<PortCall, { call: "editCard" }> => c.call === "editCard");
	return { output, state, tutor, posted, edits, found };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms for up to `ms`. */
async function within(ms: number, check: () => boolean): Promise<boolean> {
	const deadline = Date.now() + ms;
	while (!check() && Date.now() < deadline) await sleep(20);
	return check();
}

describe("re-posting a question another process claimed", () => {
	it("on a store no other process shares (SQLite), posts claim nothing; a re-post after a restart looks in the thread", async () => {
		const store = createMemoryStateStore();
		const one = processOutput(store);
		one.output.onEvent(question("q1", false));
		expect(await within(3_000, () => one.posted().length === 1)).toBe(true);
		expect(await store.get("posting:rec:t1:q1")).toBeUndefined();
		expect(one.tutor.postedCard("rec:t1", "q1")).toEqual({ messageIds: one.posted()[0]?.ids });
		expect(one.found).toEqual([]);
		// Restarted before the card's ids were saved: the card the thread shows is kept, not posted again.
		const restarted = processOutput(store, one.posted()[0]?.ids);
		restarted.output.onEvent(question("q1", true));
		expect(await within(3_000, () => restarted.found.length === 1)).toBe(true);
		await sleep(100);
		expect(restarted.posted()).toHaveLength(0);
		expect(restarted.tutor.postedCard("rec:t1", "q1")).toEqual({ messageIds: one.posted()[0]?.ids });
		// Not in the thread either: posted.
		const empty = processOutput(createMemoryStateStore());
		empty.output.onEvent(question("q1", true));
		expect(await within(3_000, () => empty.posted().length === 1)).toBe(true);
		for (const p of [one, restarted, empty]) p.output.stop();
	});

	it("posts it once the claim is stale when its poster died before posting", async () => {
		const store = sharedStore();
		const dead = new LessonState(store);
		expect((await dead.claimPost("rec:t1", "q1")).mine).toBe(true); // claimed, then killed before posting
		const taker = processOutput(store);
		taker.output.onEvent(question("q1", true));
		await sleep(50);
		expect(taker.posted()).toHaveLength(0); // the claim is fresh: its poster may be posting
		expect(await within(3_000, () => taker.posted().length === 1)).toBe(true);
		expect(taker.found).toEqual(["q1"]); // it looked in the thread first
		expect(taker.tutor.postedCard("rec:t1", "q1")).toEqual({ messageIds: taker.posted()[0]?.ids });
		taker.output.stop();
	});

	it("keeps the card its dead poster left in the thread instead of posting it again", async () => {
		const store = sharedStore();
		expect((await new LessonState(store).claimPost("rec:t1", "q1")).mine).toBe(true); // posted, killed before saving
		const taker = processOutput(store, ["m-left"]);
		taker.output.onEvent(question("q1", true));
		expect(await within(3_000, () => taker.found.length === 1)).toBe(true);
		await sleep(800); // time for a wrong post to happen
		expect(taker.posted()).toHaveLength(0);
		expect(taker.tutor.postedCard("rec:t1", "q1")).toEqual({ messageIds: ["m-left"] });
		taker.output.stop();
	});

	it("a poster paused between its claim and its post posts nothing when it wakes after a takeover", async () => {
		const store = sharedStore();
		// The asking process stops right after claiming (its card's language is looked up after the claim).
		let wake = () => {};
		const woken = new Promise<"en">((resolve) => {
			wake = () => resolve("en");
		});
		let claimed = false;
		const paused = processOutput(store, undefined, () => {
			claimed = true;
			return woken;
		});
		paused.output.onEvent(question("q1", false));
		expect(await within(3_000, () => claimed)).toBe(true);
		const taker = processOutput(store);
		taker.output.onEvent(question("q1", true));
		expect(await within(3_000, () => taker.posted().length === 1)).toBe(true);
		wake();
		await sleep(200);
		expect(paused.posted()).toHaveLength(0);
		expect(taker.tutor.postedCard("rec:t1", "q1")).toEqual({ messageIds: taker.posted()[0]?.ids });
		paused.output.stop();
		taker.output.stop();
	});

	it("an asking turn's own post and a replay of it on another process: one card", async () => {
		const store = sharedStore();
		const thread: Thread = new Map();
		const asker = processOutput(store, undefined, undefined, thread);
		const taker = processOutput(store, undefined, undefined, thread);
		asker.output.onEvent(question("q1", false));
		expect(await within(3_000, () => asker.posted().length === 1)).toBe(true);
		taker.output.onEvent(question("q1", true));
		await sleep(900); // past the stale bound and the margin: any look again found the card saved
		expect(asker.posted().length + taker.posted().length).toBe(1);
		asker.output.stop();
		taker.output.stop();
	});
});

const answered = (correct: boolean): TutorEvent => ({
	type: "answered",
	sessionId: "rec:t1",
	toolCallId: "q1",
	kind: "quiz",
	result: { answer: "0.5", correct, by: { id: "U1", name: "ada" } },
	quiz: { question: "Half of 1?", options: ["0.5", "2"], correctAnswer: "0.5" },
});

describe("the answered state of a card nobody remembered", () => {
	it("one process's store (SQLite): a card whose ids a restart lost is found in the thread and edited", async () => {
		const restarted = processOutput(createMemoryStateStore(), ["m-before"]);
		restarted.output.onEvent(answered(true));
		expect(await within(3_000, () => restarted.edits().length === 1)).toBe(true);
		expect(restarted.posted()).toHaveLength(0);
		expect(restarted.edits()[0]?.messageIds).toEqual(["m-before"]);
		restarted.output.stop();
	});

	it("shared store: the card its stopped poster left in the thread is found and edited, each time", async () => {
		const taker = processOutput(sharedStore(), ["m-left"]);
		taker.output.onEvent(answered(false));
		taker.output.onEvent(answered(true)); // a graded verdict replaces the first state
		expect(await within(3_000, () => taker.found.length === 1 && taker.edits().length === 2)).toBe(true);
		expect(taker.posted()).toHaveLength(0);
		expect(taker.edits().map((e) => e.messageIds)).toEqual([["m-left"], ["m-left"]]);
		taker.output.stop();
	});

	it("a card posted anew becomes the card: the next state edits it instead of posting again", async () => {
		const one = processOutput(createMemoryStateStore());
		one.output.onEvent(answered(false));
		one.output.onEvent(answered(true));
		expect(await within(3_000, () => one.edits().length === 1)).toBe(true);
		expect(one.posted()).toHaveLength(1);
		expect(one.edits()[0]?.messageIds).toEqual(one.posted()[0]?.ids);
		expect(one.found).toEqual(["q1"]); // looked for once (the engine did not know it), then remembered
		one.output.stop();
	});
});
