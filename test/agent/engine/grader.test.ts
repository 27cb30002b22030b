import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import type { AnswerResult } from "../../../src/core/contracts/events.ts";
import { toolParts } from "../../../src/core/transcript.ts";
import { harness, learner, scriptedModel, tempDir, toolResultsSent } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const worstCase = {
	question: "A list has 8 items. Checking one by one, how many do you check in the worst case?",
	correctAnswer: "8",
};

const generated = (text: string): LanguageModelV3GenerateResult => ({
	content: [{ type: "text", text }],
	finishReason: { unified: "stop", raw: "stop" },
	usage: {
		inputTokens: { total: 50, noCache: 50, cacheRead: 0, cacheWrite: 0 },
		outputTokens: { total: 12, text: 12, reasoning: 0 },
	},
	warnings: [],
});

/** A grader answering each grading request with the next scripted text (or throwing, or hanging until aborted). */
function grader(replies: Array<string | Error | "hang" | { gate: Promise<void>; text: string }>) {
	const script = [...replies];
	return new MockLanguageModelV3({
		doGenerate: async (options: LanguageModelV3CallOptions) => {
			const reply = script.shift();
			if (reply === undefined) throw new Error("the grader script has no reply left");
			if (reply instanceof Error) throw reply;
			if (reply === "hang")
				return new Promise<never>((_, reject) => {
					const signal = options.abortSignal;
					if (signal?.aborted) reject(signal.reason);
					signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
				});
			if (typeof reply === "object") {
				await reply.gate;
				return generated(reply.text);
			}
			return generated(reply);
		},
	});
}

const verdict = (v: string, reason: string) => JSON.stringify({ verdict: v, reason });

async function lessonWithQuiz(
	sessionId: string,
	graderModel: MockLanguageModelV3,
	gradingTimeoutMs?: number,
	closeTimeoutMs?: number,
) {
	const teacher = scriptedModel([
		{ calls: [{ name: "quiz", input: worstCase, id: `${sessionId}-q` }] },
		{ text: "Let's go on." },
	]);
	const h = await harness(dir.path, teacher, {
		models: { grader: graderModel },
		...(gradingTimeoutMs !== undefined ? { gradingTimeoutMs } : {}),
		...(closeTimeoutMs !== undefined ? { closeTimeoutMs } : {}),
	});
	await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
	await h.tutor.idle(sessionId);
	return { h, teacher, toolCallId: `${sessionId}-q` };
}

describe("a typed answer the judge cannot decide goes to the grader", () => {
	it("the ack comes first, the card shows checking, then the verdict (with its reason) is the tool result the teacher sees", async () => {
		let release = () => {};
		const gate = new Promise<void>((done) => (release = done));
		const model = grader([{ gate, text: verdict("correct", "Every item is all 8 of them.") }]);
		const { h, teacher, toolCallId } = await lessonWithQuiz("terminal:grader-ok", model);

		// handle() answers while the grading call is still waiting on its gate.
		const reply = { type: "reply", toolCallId, text: "I'd look at all of them", by: learner } as const;
		expect(await h.tutor.handle("terminal:grader-ok", reply)).toEqual({ ok: true });
		const pending = await h.store.get("terminal:grader-ok");
		expect(pending?.grading).toEqual([toolCallId]);
		expect(h.of("answered")).toMatchObject([{ checking: true, result: { judged: "unsure" } }]);
		release();
		await h.tutor.idle("terminal:grader-ok");

		const final: AnswerResult = {
			answer: "I'd look at all of them",
			correct: true,
			judged: "grader",
			reason: "Every item is all 8 of them.",
			by: learner,
		};
		expect(h.of("answered").map((a) => [a.checking ?? false, a.result])).toEqual([
			[true, { answer: "I'd look at all of them", judged: "unsure", by: learner }],
			[false, final],
		]);
		// One grading request, with structured output, the question and the words.
		expect(model.doGenerateCalls).toHaveLength(1);
		const call = model.doGenerateCalls[0]!;
		expect(call.responseFormat).toMatchObject({ type: "json", name: "learnharness_grade" });
		expect(JSON.stringify(call.prompt)).toContain("I'd look at all of them");
		const seen = toolResultsSent(teacher.doStreamCalls[1]!).find((r) => r.toolName === "quiz");
		expect(JSON.stringify(seen?.output)).toContain('"judged":"grader"');
		const record = await h.store.get("terminal:grader-ok");
		expect(record?.grading).toBeUndefined();
		expect([...toolParts(record!.messages)].map((p) => p.output)).toContainEqual(final);
		expect(h.of("text").at(-1)?.text).toBe("Let's go on.");
		await h.tutor.close();
	});

	it.each([
		["bad JSON", "{verdict: correct"],
		["the wrong shape", JSON.stringify({ verdict: "probably", reason: "" })],
		["a model error", new Error("HTTP 500 from the grader")],
	])("%s falls back to the teacher judging (judged unsure), and the lesson goes on", async (_name, reply) => {
		const sessionId = `terminal:grader-bad-${String(_name).replace(/\W/g, "")}`;
		const { h } = await lessonWithQuiz(sessionId, grader([reply]));
		const toolCallId = `${sessionId}-q`;
		await h.tutor.handle(sessionId, { type: "reply", toolCallId, text: "hmm, quite a lot", by: learner });
		await h.tutor.idle(sessionId);
		const undecided = { answer: "hmm, quite a lot", judged: "unsure", by: learner };
		expect(h.of("answered").map((a) => [a.checking ?? false, a.result])).toEqual([
			[true, undecided],
			[false, undecided],
		]);
		expect(h.of("error")).toHaveLength(0);
		expect(h.of("text").at(-1)?.text).toBe("Let's go on.");
		expect((await h.store.get(sessionId))?.grading).toBeUndefined();
		await h.tutor.close();
	});

	it("a grader past its deadline is abandoned: the teacher judges", async () => {
		const { h, toolCallId } = await lessonWithQuiz("terminal:grader-slow", grader(["hang"]), 50);
		await h.tutor.handle("terminal:grader-slow", { type: "reply", toolCallId, text: "many", by: learner });
		await h.tutor.idle("terminal:grader-slow");
		expect(h.of("answered").at(-1)).toMatchObject({ result: { answer: "many", judged: "unsure" } });
		expect(h.of("answered").at(-1)?.checking).toBeUndefined();
		expect(h.of("text").at(-1)?.text).toBe("Let's go on.");
		await h.tutor.close();
	});

	it("an unsure grader keeps the answer undecided, with its reason for the teacher", async () => {
		const sessionId = "terminal:grader-unsure";
		const { h, toolCallId } = await lessonWithQuiz(sessionId, grader([verdict("unsure", "Too vague to tell.")]));
		await h.tutor.handle(sessionId, { type: "reply", toolCallId, text: "it depends", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("answered").at(-1)?.result).toEqual({
			answer: "it depends",
			judged: "unsure",
			reason: "Too vague to tell.",
			by: learner,
		});
		await h.tutor.close();
	});

	it("answers the judge decides, and 'I don't know', make no grading call", async () => {
		const sessionId = "terminal:grader-none";
		const model = grader([]);
		const teacher = scriptedModel([
			{ calls: [{ name: "quiz", input: worstCase, id: "gn-1" }] },
			{ calls: [{ name: "quiz", input: worstCase, id: "gn-2" }] },
			{ text: "Fine." },
		]);
		const h = await harness(dir.path, teacher, { models: { grader: model } });
		await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "gn-1", text: "eight", by: learner });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "gn-2", text: "Honestly, no idea", by: learner });
		await h.tutor.idle(sessionId);
		expect(model.doGenerateCalls).toHaveLength(0);
		expect(h.of("answered").map((a) => a.result)).toEqual([
			{ answer: "eight", correct: true, by: learner },
			{ answer: "Honestly, no idea", correct: false, notSure: true, by: learner },
		]);
		await h.tutor.close();
	});
});

describe("a restart in the middle of a grading", () => {
	it("keeps the pending grading in the record, and resume() grades it, then runs the turn", async () => {
		const sessionId = "terminal:grader-restart";
		const { h, toolCallId } = await lessonWithQuiz(sessionId, grader(["hang"]), 60_000, 50);
		await h.tutor.handle(sessionId, { type: "reply", toolCallId, text: "all of them, surely", by: learner });
		// The grading call hangs; the tutor shuts down around it (close aborts it after its wait).
		await h.tutor.close();
		const stored = await (async () => {
			const { createSessionStore } = await import("../../../src/agent/store/session-store.ts");
			const store = await createSessionStore(`sqlite://${dir.path}/lh.sqlite`);
			const record = await store.get(sessionId);
			await store.close();
			return record;
		})();
		expect(stored?.grading).toEqual([toolCallId]);
		expect(stored?.turnOpen).toBe(true);

		const good = grader([verdict("correct", "Every one of the 8 items.")]);
		const teacher = scriptedModel([{ text: "Good, on we go." }]);
		const again = await harness(dir.path, teacher, { models: { grader: good } });
		expect(await again.tutor.resume()).toBe(1);
		await again.tutor.idle();
		expect(good.doGenerateCalls).toHaveLength(1);
		expect(again.of("answered")).toMatchObject([
			{ toolCallId, result: { answer: "all of them, surely", correct: true, judged: "grader" } },
		]);
		expect(again.of("text").at(-1)?.text).toBe("Good, on we go.");
		expect((await again.store.get(sessionId))?.grading).toBeUndefined();
		await again.tutor.close();
	});

	it("grades after a restart even when another question of the same step is still open (no turn to re-run)", async () => {
		const sessionId = "terminal:grader-restart-open";
		const teacher = scriptedModel([
			{
				calls: [
					{ name: "quiz", input: worstCase, id: "gro-q" },
					{ name: "ask", input: { question: "How sure do you feel?" }, id: "gro-a" },
				],
			},
		]);
		const h = await harness(dir.path, teacher, { models: { grader: grader(["hang"]) }, closeTimeoutMs: 50 });
		await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "gro-q", text: "all of them, surely", by: learner });
		await h.tutor.close();

		const good = grader([verdict("correct", "All 8 of them.")]);
		const again = await harness(dir.path, scriptedModel([]), { models: { grader: good } });
		await again.tutor.resume();
		await again.tutor.idle();
		expect(good.doGenerateCalls).toHaveLength(1);
		expect(again.of("answered")).toMatchObject([{ toolCallId: "gro-q", result: { correct: true, judged: "grader" } }]);
		const summary = await again.tutor.getSession(sessionId);
		expect(summary?.pending.map((p) => p.toolCallId)).toEqual(["gro-a"]);
		expect((await again.store.get(sessionId))?.grading).toBeUndefined();
		await again.tutor.close();
	});
});
