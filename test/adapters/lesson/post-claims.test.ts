/**
 * One process posts each question card: the claim is atomic (many claimers, one winner), a
 * re-post (restart, takeover) does not take a fresh claim over, and does take over one whose
 * poster died or stalled posting (older than the stale bound, still no card): once, and it
 * looks in the thread first. A poster whose claim was taken over while it was paused posts
 * nothing; a re-post that met a fresh claim looks again once it is stale, so a question whose
 * poster died before posting is still shown. On a store no other process shares (SQLite), a
 * claim a re-post meets was made before a restart, and is taken over at once.
 */

import { describe, expect, it } from "vitest";
import { LessonState } from "../../../src/adapters/lesson/lesson-state.ts";
import { createSerialQueues } from "../../../src/adapters/lesson/serial-queue.ts";
import { createThreadOutput } from "../../../src/adapters/lesson/thread-output.ts";
import { createMemoryStateStore, type StateStore } from "../../../src/agent/index.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import type { PlanPicture } from "../../../src/render/index.ts";
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

/** The output path of one process on `store`, with a port that may find cards in the thread. */
function processOutput(store: StateStore, inThread?: string[], localeOf?: () => Promise<"en">) {
	const log: Array<PortCall | { call: string }> = [];
	const port = recordingPort(log);
	const found: string[] = [];
	const state = new LessonState(store);
	const output = createThreadOutput({
		port: {
			...port,
			async findCard(_threadId, toolCallId) {
				found.push(toolCallId);
				return inThread ?? [];
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
	return { output, state, posted, edits, found };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms for up to `ms`. */
async function within(ms: number, check: () => boolean): Promise<boolean> {
	const deadline = Date.now() + ms;
	while (!check() && Date.now() < deadline) await sleep(20);
	return check();
}

describe("re-posting a question another process claimed", () => {
	it("on a store no other process shares (SQLite), a claim from before a restart is taken over at once", async () => {
		const store = createMemoryStateStore();
		expect((await new LessonState(store).claimPost("rec:t1", "q1")).mine).toBe(true); // the process before the restart
		const restarted = processOutput(store);
		restarted.output.onEvent(question("q1", true));
		expect(await within(100, () => restarted.posted().length === 1)).toBe(true);
		restarted.output.stop();
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
		expect(await taker.state.card("rec:t1", "q1")).toEqual({ messageIds: taker.posted()[0]?.ids });
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
		expect(await taker.state.card("rec:t1", "q1")).toEqual({ messageIds: ["m-left"] });
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
		expect(await taker.state.card("rec:t1", "q1")).toEqual({ messageIds: taker.posted()[0]?.ids });
		paused.output.stop();
		taker.output.stop();
	});

	it("an asking turn's own post and a replay of it on another process: one card", async () => {
		const store = sharedStore();
		const asker = processOutput(store);
		const taker = processOutput(store);
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
		expect(one.found).toEqual([]); // nobody else could have posted it: the thread is not read
		one.output.stop();
	});
});
