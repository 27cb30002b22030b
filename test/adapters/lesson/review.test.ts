/**
 * The review flow, on a recording port: each answer judged by the learning service (judge, then the
 * grader for what it leaves open), a miss answered in one line with the expected answer and why,
 * "I don't know" a miss like any other (the same schedule, no grading request); in a thread where the
 * port has no private replies, and in the member's own private replies (cards with working controls)
 * where it does, no thread opened.
 */

import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import type { Actor, AnswerForm } from "../../../src/adapters/lesson/port.ts";
import { createReviewFlow, isReviewControl, type ReviewFlow } from "../../../src/adapters/lesson/review.ts";
import {
	createAnswerGrader,
	createLearning,
	createMemoryStateStore,
	sessionStoreOnKeyv,
} from "../../../src/agent/index.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import type { Card, QuestionCard } from "../../../src/render/index.ts";
import { checksRecord, fractionsRecord } from "../../fixtures/profile-lesson.ts";
import { recordingPort } from "./recording-port.ts";

/** Four days after the lesson: its checked nodes are due. */
const NOW = Date.parse("2026-03-05T12:00:00.000Z");
const now = () => new Date(NOW);

/** A grader model that says `verdict` to every request, counting the requests. */
function graderModel(verdict: string, reason: string) {
	const asked: string[] = [];
	const model = new MockLanguageModelV3({
		doGenerate: async (options: LanguageModelV3CallOptions) => {
			asked.push(JSON.stringify(options.prompt));
			return {
				content: [{ type: "text", text: JSON.stringify({ verdict, reason }) }],
				finishReason: { unified: "stop", raw: "stop" },
				usage: {
					inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: 0 },
					outputTokens: { total: 10, text: 10, reasoning: 0 },
				},
				warnings: [],
			};
		},
	});
	return { model, asked };
}

function setup(options: { privately?: boolean; grader?: MockLanguageModelV3 } = {}) {
	const learning = createLearning({
		state: createMemoryStateStore(() => NOW),
		sessions: sessionStoreOnKeyv(new Keyv()),
		now,
		...(options.grader ? { grade: createAnswerGrader(options.grader, { maxRetries: 0 }) } : {}),
	});
	const port = { ...recordingPort(), ...(options.privately ? { reviewsPrivately: true } : {}) };
	// The review's own store; after `stall()` its reads never answer (a store that hangs).
	const memory = createMemoryStateStore(() => NOW);
	let stalled = false;
	const state = { ...memory, get: (key: string) => (stalled ? new Promise<never>(() => {}) : memory.get(key)) };
	const review = createReviewFlow({ port, learning, state, logger: silentLogger, now });
	return {
		learning,
		port,
		review,
		stall: () => {
			stalled = true;
		},
	};
}

/** What a thread received: the texts of its posted cards. */
const posted = (port: ReturnType<typeof recordingPort>, threadId: string): string[] =>
	port.log.flatMap((c) =>
		"threadId" in c && c.call === "postCard" && c.threadId === threadId && c.card.kind === "text" ? [c.card.text] : [],
	);

/** An actor that keeps what it is told and shown, and the forms it opens. */
function privateActor(id: string, locale?: "de") {
	const notices: string[] = [];
	const cards: Card[] = [];
	const forms: AnswerForm[] = [];
	const actor: Actor = {
		by: { id, name: id },
		...(locale ? { locale } : {}),
		isAdmin: async () => false,
		notify: async (text) => void notices.push(text),
		show: async (card) => void cards.push(card),
		openForm: async (form) => void forms.push(form),
	};
	return { actor, notices, cards, forms };
}

const BIG_O = {
	nodeId: "growth",
	question: "How does binary search's running time grow?",
	correctAnswer: "O(log n)",
	explanation: "Each step halves the range that is left.",
};

async function startThread(review: ReviewFlow, learner: string): Promise<string> {
	const { actor } = privateActor(learner);
	const started = await review.start(actor, { community: "g", channelId: "c" });
	if (!started || !("threadId" in started)) throw new Error("no thread");
	return started.threadId;
}

describe("the review in a thread", () => {
	it("takes a paraphrase through the grader and explains a miss with the expected answer and why", async () => {
		const { model, asked } = graderModel("correct", "Logarithmic growth is O(log n).");
		const { learning, port, review } = setup({ grader: model });
		await learning.recordLesson(checksRecord({ sessionId: "rec:lesson1", learnerId: "u1" }, [BIG_O]));
		const threadId = await startThread(review, "u1");
		expect(port.log.some((c) => c.call === "openThread")).toBe(true);
		expect(await review.typed(threadId, { id: "u1" }, "logarithmic")).toEqual({ ok: true });
		expect(asked).toHaveLength(1);
		expect(posted(port, threadId)).toContainEqual(expect.stringMatching(/^✅ Right: O\(log n\)/));
		expect(posted(port, threadId).at(-1)).toMatch(/^Review done: 1 of 1 right/);
	});

	it("counts 'I don't know' as a miss like a wrong answer: the same schedule, the answer and why, no grader", async () => {
		const { model, asked } = graderModel("correct", "must not be asked");
		const { learning, port, review } = setup({ grader: model });
		for (const user of ["wrong", "unknown"])
			await learning.recordLesson(fractionsRecord({ sessionId: `rec:${user}`, learnerId: user }));
		const wrong = await startThread(review, "wrong");
		const unknown = await startThread(review, "unknown");
		// The first due item is the missed one (5/6, with options); both learners have it first.
		await review.typed(wrong, { id: "wrong" }, "A");
		await review.typed(unknown, { id: "unknown" }, "no idea");
		expect(posted(port, wrong)).toContain(
			"Not quite: the answer is **5/6**. Why: Over the common denominator 6: 3/6 + 2/6 = 5/6. It comes back sooner.",
		);
		expect(posted(port, unknown)).toContain(
			"Not known yet, and that is fine: the answer is **5/6**. Why: Over the common denominator 6: 3/6 + 2/6 = 5/6. It comes back sooner.",
		);
		const card = async (user: string) =>
			(await learning.items(`rec:${user}`)).find((i) => i.correctAnswer === "5/6")?.card;
		expect(await card("unknown")).toEqual(await card("wrong"));
		expect((await card("unknown"))?.lapses).toBeGreaterThan(0);
		expect(asked).toEqual([]);
	});

	it("asks again after an empty answer (nothing graded), and ignores someone else's words", async () => {
		const { learning, review } = setup();
		await learning.recordLesson(fractionsRecord({ sessionId: "rec:l", learnerId: "u1" }));
		const threadId = await startThread(review, "u1");
		expect(await review.typed(threadId, { id: "u1" }, "  ")).toMatchObject({ ok: false, code: "invalid-answer" });
		expect(await review.typed(threadId, { id: "u2" }, "B")).toMatchObject({ ok: false, code: "not-allowed" });
		expect((await learning.profile("rec:u1"))?.reviewsDone).toBe(0);
		expect(await review.typed(threadId, { id: "u1" }, "B")).toEqual({ ok: true });
		expect((await learning.profile("rec:u1"))?.reviewsDone).toBe(1);
	});
});

describe("the review in the member's private replies", () => {
	it("opens no thread: cards with letter buttons or an Answer form, each answer judged and answered privately", async () => {
		const { learning, port, review } = setup({ privately: true });
		await learning.recordLesson(fractionsRecord({ sessionId: "rec:l", learnerId: "u1" }));
		const me = privateActor("u1");
		expect(await review.start(me.actor, { community: "g", channelId: "c" })).toEqual({ privately: true });
		expect(port.log).toEqual([]); // no thread, nothing posted anywhere
		const first = me.cards[0] as QuestionCard;
		expect(first).toMatchObject({
			kind: "question",
			heading: "Review 1 of 2 · adding fractions › Unlike denominators",
		});
		expect(first.choices.map((c) => `${c.letter}. ${c.text}`)).toEqual(["A. 2/5", "B. 5/6"]);
		expect(isReviewControl(first.toolCallId)).toBe(true);

		// Someone else's click is refused privately; nothing is graded.
		const other = privateActor("u2");
		expect(await review.choose(other.actor, first.toolCallId, 1)).toMatchObject({ ok: false, code: "not-allowed" });
		expect(other.notices).toEqual(["This review belongs to someone else."]);

		expect(await review.choose(me.actor, first.toolCallId, 1)).toEqual({ ok: true });
		expect(me.notices.at(-1)).toBe("Your answer: 5/6\n✅ Right: 5/6. It comes back later than last time.");
		const second = me.cards[1] as QuestionCard;
		expect(second.choices).toEqual([]); // a free answer: the Answer button opens the form
		// The first question's buttons are stale now.
		expect(await review.choose(me.actor, first.toolCallId, 1)).toMatchObject({ code: "already-answered" });

		expect(await review.openForm(me.actor, second.toolCallId)).toBe(true);
		expect(me.forms).toEqual([
			{ threadId: "", toolCallId: second.toolCallId, question: "What denominator do 1/3 and 1/6 share?", locale: "en" },
		]);
		expect(await review.submit(me.actor, second.toolCallId, "sechs")).toEqual({ ok: true });
		expect(me.notices.at(-2)).toBe(
			"Your answer: sechs\nNot quite (I could not read that as the answer): the answer is **6**. It comes back sooner.",
		);
		expect(me.notices.at(-1)).toMatch(/^Review done: 1 of 2 right\./);
		expect(await review.submit(me.actor, second.toolCallId, "6")).toMatchObject({ ok: false, code: "ended" });
		expect((await learning.profile("rec:u1"))?.reviewsDone).toBe(2);
	});

	it("reads the answer in the member's language (sechs in German) and leaves controls of other kinds alone", async () => {
		const { learning, review } = setup({ privately: true });
		await learning.recordLesson(fractionsRecord({ sessionId: "rec:l", learnerId: "u1" }));
		const me = privateActor("u1", "de");
		await review.start(me.actor, { community: "g", channelId: "c" });
		const first = me.cards[0] as QuestionCard;
		expect(first.heading).toMatch(/^Wiederholung 1 von 2/);
		await review.choose(me.actor, first.toolCallId, 0);
		expect(me.notices.at(-1)).toMatch(/^Deine Antwort: 2\/5\nNicht ganz: die Antwort ist \*\*5\/6\*\*\. Warum: /);
		const second = me.cards[1] as QuestionCard;
		await review.submit(me.actor, second.toolCallId, "sechs");
		expect(me.notices.at(-2)).toMatch(/^Deine Antwort: sechs\n✅ Richtig: 6\./);
		expect(await review.choose(me.actor, "t2", 0)).toBeUndefined();
		expect(await review.openForm(me.actor, "lh-forget-me")).toBe(false);
		expect(await review.submit(me.actor, "lh-review:not-a-review:0", "6")).toBeUndefined();
	});

	it("opens the Answer form in time when the store does not answer (its submit is checked later)", async () => {
		const { learning, review, stall } = setup({ privately: true });
		await learning.recordLesson(fractionsRecord({ sessionId: "rec:l", learnerId: "u1" }));
		const me = privateActor("u1");
		await review.start(me.actor, { community: "g", channelId: "c" });
		const first = me.cards[0] as QuestionCard;
		stall();
		expect(await review.openForm(me.actor, first.toolCallId)).toBe(true);
		expect(me.forms).toEqual([{ threadId: "", toolCallId: first.toolCallId, question: "" }]);
		expect(me.notices).toEqual([]);
	});
});
