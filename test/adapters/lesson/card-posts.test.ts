/**
 * Which process posts a question's card is the engine's word, and the output path asks nothing of
 * the store about it: it posts what the engine emitted unless the engine says, just before the post,
 * that this process lost the session meanwhile (`mayPost`: a process paused past its lease, whose
 * lesson another process took over and re-posts). A replayed question (a restart, a takeover) is
 * posted only when no card of it was: the engine's record of it (`posted` on the event) or a card
 * found in the thread (its poster stopped before its ids were saved) stays the one. Where a card
 * went is reported to the engine (`tutor.posted`).
 */

import { describe, expect, it } from "vitest";
import { LessonState } from "../../../src/adapters/lesson/lesson-state.ts";
import { createSerialQueues } from "../../../src/adapters/lesson/serial-queue.ts";
import { createThreadOutput } from "../../../src/adapters/lesson/thread-output.ts";
import { createMemoryStateStore, type StateStore } from "../../../src/agent/index.ts";
import type { PostedCard, TutorEvent } from "../../../src/core/contracts/events.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import type { PlanPicture } from "../../../src/render/index.ts";
import { postedRecords } from "./posted-records.ts";
import { type PortCall, recordingPort } from "./recording-port.ts";

const question = (toolCallId: string, replay: boolean, posted?: PostedCard): TutorEvent => ({
	type: "quiz",
	sessionId: "rec:t1",
	toolCallId,
	input: { question: "Half of 1?", options: ["0.5", "2"], correctAnswer: "0.5" },
	...(replay ? { replay: true } : {}),
	...(posted ? { posted } : {}),
});

/** A state store that fails the test's expectations if the output path touches it (it needs none for cards). */
function untouchedStore(): { store: StateStore; keys: string[] } {
	const base = createMemoryStateStore();
	const keys: string[] = [];
	const note =
		<A extends unknown[], R>(f: (key: string, ...rest: A) => R) =>
		(key: string, ...rest: A): R => {
			keys.push(key);
			return f(key, ...rest);
		};
	return {
		keys,
		store: {
			...base,
			get: note(base.get),
			set: note(base.set),
			setIfAbsent: note(base.setIfAbsent),
			delete: note(base.delete),
		},
	};
}

/** The output path of one process; `inThread`: what `findCard` finds; `holds`: the engine's answer to mayPost. */
function processOutput(
	options: {
		inThread?: string[];
		holds?: () => boolean | Promise<boolean>;
		localeOf?: () => Promise<"en">;
		state?: StateStore;
	} = {},
) {
	const log: Array<PortCall | { call: string }> = [];
	const port = recordingPort(log);
	const found: string[] = [];
	const asked: string[] = [];
	const holds = options.holds ?? (() => true);
	const tutor = postedRecords(() => {
		asked.push("mayPost");
		return holds();
	});
	const output = createThreadOutput({
		tutor,
		port: {
			...port,
			async findCard(_threadId, toolCallId) {
				found.push(toolCallId);
				return options.inThread ?? [];
			},
		},
		renderer: { renderPlan: () => new Promise<PlanPicture>(() => {}) },
		state: new LessonState(options.state ?? createMemoryStateStore()),
		queues: createSerialQueues(silentLogger),
		logger: silentLogger,
		...(options.localeOf ? { localeOf: options.localeOf } : {}),
	});
	const posted = () => log.filter((c): c is Extract<PortCall, { call: "postCard" }> => c.call === "postCard");
	const edits = () => log.filter((c): c is Extract<PortCall, { call: "editCard" }> => c.call === "editCard");
	return { output, tutor, posted, edits, found, asked };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms for up to `ms`. */
async function within(ms: number, check: () => boolean): Promise<boolean> {
	const deadline = Date.now() + ms;
	while (!check() && Date.now() < deadline) await sleep(20);
	return check();
}

describe("posting a question's card", () => {
	it("posts what the engine emitted, asks the engine just before, reports where it went, and writes no state", async () => {
		const { store, keys } = untouchedStore();
		const one = processOutput({ state: store });
		one.output.onEvent(question("q1", false));
		expect(await within(3_000, () => one.posted().length === 1)).toBe(true);
		expect(one.asked).toEqual(["mayPost"]);
		expect(one.tutor.postedCard("rec:t1", "q1")).toEqual({ messageIds: one.posted()[0]?.ids });
		expect(one.found).toEqual([]); // a question just asked is not looked for
		expect(keys.filter((k) => !k.startsWith("intro:"))).toEqual([]);
		one.output.stop();
	});

	it("a process that lost the lesson while it prepared the card posts nothing (the new holder does)", async () => {
		// Paused between the engine's event and its post: its language is looked up meanwhile.
		let wake = () => {};
		const woken = new Promise<"en">((resolve) => {
			wake = () => resolve("en");
		});
		let preparing = false;
		const paused = processOutput({
			holds: () => false,
			localeOf: () => {
				preparing = true;
				return woken;
			},
		});
		paused.output.onEvent(question("q1", false));
		expect(await within(3_000, () => preparing)).toBe(true);
		wake();
		expect(await within(3_000, () => paused.asked.length === 1)).toBe(true);
		await sleep(100);
		expect(paused.posted()).toHaveLength(0);
		expect(paused.tutor.postedCard("rec:t1", "q1")).toBeUndefined();
		paused.output.stop();
	});

	it("posts when the engine cannot say (a failing check posts: a card twice is better than none)", async () => {
		const one = processOutput({ holds: () => Promise.reject(new Error("store down")) });
		one.output.onEvent(question("q1", false));
		expect(await within(3_000, () => one.posted().length === 1)).toBe(true);
		one.output.stop();
	});
});

describe("re-posting a question after a restart or a takeover", () => {
	it("posts nothing for a replay whose card the engine knows, and does not look for it", async () => {
		const taker = processOutput();
		taker.output.onEvent(question("q1", true, { messageIds: ["m-known"] }));
		taker.output.onEvent(question("q2", false));
		expect(await within(3_000, () => taker.posted().length === 1)).toBe(true);
		expect(taker.posted()[0]?.card).toMatchObject({ toolCallId: "q2" });
		expect(taker.found).toEqual([]);
		taker.output.stop();
	});

	it("keeps the card its stopped poster left in the thread instead of posting it again", async () => {
		const taker = processOutput({ inThread: ["m-left"] });
		taker.output.onEvent(question("q1", true));
		expect(await within(3_000, () => taker.found.length === 1)).toBe(true);
		await sleep(200); // time for a wrong post to happen
		expect(taker.posted()).toHaveLength(0);
		expect(taker.tutor.postedCard("rec:t1", "q1")).toEqual({ messageIds: ["m-left"] });
		taker.output.stop();
	});

	it("posts a replay found nowhere, once, and remembers it", async () => {
		const taker = processOutput();
		taker.output.onEvent(question("q1", true));
		expect(await within(3_000, () => taker.posted().length === 1)).toBe(true);
		expect(taker.found).toEqual(["q1"]); // it looked in the thread first
		expect(taker.tutor.postedCard("rec:t1", "q1")).toEqual({ messageIds: taker.posted()[0]?.ids });
		// The same replay again (a second offer) finds the card the engine now knows.
		taker.output.onEvent(question("q1", true));
		await sleep(200);
		expect(taker.posted()).toHaveLength(1);
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
	it("a card whose ids a restart or a takeover lost is found in the thread and edited, each time", async () => {
		const taker = processOutput({ inThread: ["m-left"] });
		taker.output.onEvent(answered(false));
		taker.output.onEvent(answered(true)); // a graded verdict replaces the first state
		expect(await within(3_000, () => taker.found.length === 1 && taker.edits().length === 2)).toBe(true);
		expect(taker.posted()).toHaveLength(0);
		expect(taker.edits().map((e) => e.messageIds)).toEqual([["m-left"], ["m-left"]]);
		taker.output.stop();
	});

	it("a card posted anew becomes the card: the next state edits it instead of posting again", async () => {
		const one = processOutput();
		one.output.onEvent(answered(false));
		one.output.onEvent(answered(true));
		expect(await within(3_000, () => one.edits().length === 1)).toBe(true);
		expect(one.posted()).toHaveLength(1);
		expect(one.edits()[0]?.messageIds).toEqual(one.posted()[0]?.ids);
		expect(one.found).toEqual(["q1"]); // looked for once (the engine did not know it), then remembered
		one.output.stop();
	});
});
