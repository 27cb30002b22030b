/**
 * The multi-process tests' checks find what they are for: a lost answer, a step stored twice,
 * a card or a tutor message posted twice, a lesson without its recap (built records, no processes).
 */

import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../../src/agent/index.ts";
import type { FakeSlack, RecordedCall } from "../../testkit/fakes/slack.ts";
import type { ConcurrentLesson } from "../fixtures/slack/drive-concurrent.ts";
import { lessonProblems } from "./lesson-checks.ts";

const THREAD = "1700000000.000001";
const QUIZ = "demo-teach-1-abc";
const RECAP = "demo-teach-13-def";

function post(text: string, cardOf?: string): RecordedCall {
	const blocks = cardOf ? [{ type: "actions", elements: [{ action_id: `lh:pick:${cardOf}:0` }] }] : [];
	return { method: "chat.postMessage", ok: true, params: { channel: "C1", thread_ts: THREAD, text, blocks } };
}

function fakeWith(posts: RecordedCall[]): FakeSlack {
	return {
		callsTo: (method: string) => (method === "chat.postMessage" ? posts : []),
		streams: new Map(), // nothing streamed: every text was a post
	} as unknown as FakeSlack;
}

function record(parts: unknown[], ended = true): SessionRecord {
	return {
		messages: [{ id: "m1", role: "assistant", parts }],
		...(ended ? { ended: { reason: "completed", at: "2026-12-01T00:00:00Z" } } : {}),
	} as unknown as SessionRecord;
}

const quizPart = (output?: unknown, id = QUIZ) => ({
	type: "tool-quiz",
	toolCallId: id,
	state: output ? "output-available" : "input-available",
	input: { question: "Sorted?", options: ["yes", "no"] },
	...(output ? { output } : {}),
});
const recapPart = {
	type: "tool-explain",
	toolCallId: RECAP,
	state: "output-available",
	input: { role: "recap", title: "Recap: binary search" },
	output: { ok: true },
};
const lesson: ConcurrentLesson = {
	actor: { user: "U1", channel: "C1" },
	threadTs: THREAD,
	ended: true,
	answers: [{ actionId: `lh:pick:${QUIZ}:0`, messageTs: "1", value: `lh:pick:${QUIZ}:0`, accepted: true }],
};
const goodPosts = [post("Sorted?", QUIZ), post("Recap: binary search")];

describe("the multi-process lesson checks", () => {
	it("pass a lesson that is right", () => {
		expect(lessonProblems(fakeWith(goodPosts), lesson, record([quizPart({ answer: "yes" }), recapPart]))).toEqual([]);
	});

	it("find an accepted answer the transcript lost", () => {
		const problems = lessonProblems(fakeWith(goodPosts), lesson, record([quizPart(), recapPart]));
		expect(problems).toEqual([expect.stringContaining(`accepted answer lh:pick:${QUIZ}:0`)]);
		const other = lessonProblems(fakeWith(goodPosts), lesson, record([quizPart({ answer: "no" }), recapPart]));
		expect(other).toEqual([expect.stringContaining("answer no, picked yes")]);
	});

	it("find a step stored twice, a card posted twice and a message posted twice", () => {
		const twice = record([quizPart({ answer: "yes" }), quizPart({ answer: "yes" }, "demo-teach-1-xyz"), recapPart]);
		expect(lessonProblems(fakeWith(goodPosts), lesson, twice)).toEqual([
			expect.stringContaining("step demo-teach-1 stored 2 times"),
		]);
		const posts = [post("Sorted?", QUIZ), post("Sorted? again", "demo-teach-1-xyz"), ...goodPosts];
		const problems = lessonProblems(fakeWith(posts), lesson, record([quizPart({ answer: "yes" }), recapPart]));
		expect(problems).toEqual([
			expect.stringContaining(`the card of ${QUIZ} posted 2 times`),
			expect.stringContaining("the question of demo-teach-1 posted 3 times"),
			expect.stringContaining("posted 2 times: Sorted?"),
		]);
	});

	it("find a lesson that did not end with its recap", () => {
		const problems = lessonProblems(
			fakeWith([post("Sorted?", QUIZ)]),
			lesson,
			record([quizPart({ answer: "yes" })], false),
		);
		expect(problems).toEqual([expect.stringContaining("did not complete"), expect.stringContaining("no recap stored")]);
		expect(
			lessonProblems(fakeWith([post("Sorted?", QUIZ)]), lesson, record([quizPart({ answer: "yes" }), recapPart])),
		).toEqual([expect.stringContaining("was not posted")]);
	});
});
