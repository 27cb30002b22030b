/**
 * The engine's side of cost caps, on a recording budget hook: every model request (each turn
 * step, each hint, each grading) reserves its estimate first and hands the reservation back with
 * its usage; a refused step ends the turn cleanly (the notice, no request, every tool call with a
 * result), a refused hint gives the generic hint, a refused grading leaves the answer to the teacher.
 */

import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import type { Reservation, TurnBudget, TurnUsage, UsageEstimate } from "../../../src/core/contracts/budget.ts";
import { GENERIC_HINT } from "../../../src/core/struggle.ts";
import { toolParts } from "../../../src/core/transcript.ts";
import { assessmentInput, harness, learner, planMermaid, probeQuiz, scriptedModel, tempDir } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const NOTICE = "Today's tutor budget is used up.";

/** A budget hook that records what it is asked and refuses what `refuse` says. */
function recordingBudget(refuse: (estimate: UsageEstimate) => boolean = () => false) {
	const reserved: UsageEstimate[] = [];
	const granted: Reservation[] = [];
	const spent: Array<{ usage: TurnUsage; reservation: Reservation | undefined }> = [];
	const budget: TurnBudget = {
		reserve(estimate) {
			reserved.push(estimate);
			if (refuse(estimate)) return { ok: false, message: NOTICE, resetsAt: "2025-03-02T00:00:00.000Z" };
			const reservation = { tokens: estimate.inputTokens + estimate.outputTokens, where: `r${reserved.length}` };
			granted.push(reservation);
			return { ok: true, reservation };
		},
		spent(usage, reservation) {
			spent.push({ usage, reservation });
		},
	};
	return { budget, reserved, granted, spent };
}

const check = {
	type: "check",
	nodeId: "unlike",
	question: "What is 1/2 + 1/4?",
	options: ["2/6", "3/4", "1/6"],
	correctAnswer: "3/4",
};

/** A lesson at an open check quiz (c1), answered wrong once: Hint is offered. */
async function atMissedCheck(sessionId: string, budget: TurnBudget, after: Array<{ text: string }>) {
	const model = scriptedModel([
		{ calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
		{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
		{ text: "Now check it.", calls: [{ name: "quiz", input: check, id: "c1" }] },
		...after,
	]);
	const h = await harness(dir.path, model, { budget });
	await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
	await h.tutor.idle(sessionId);
	await h.tutor.handle(sessionId, { type: "answer", toolCallId: "p1", value: 1, by: learner });
	await h.tutor.idle(sessionId);
	await h.tutor.handle(sessionId, { type: "answer", toolCallId: "c1", value: 0, by: learner });
	await h.tutor.idle(sessionId);
	expect(h.of("attempt")).toMatchObject([{ toolCallId: "c1", state: "missed" }]);
	return { h, model };
}

/** The characters / 4 of what a request sends (its prompt and tools). */
const sentTokens = (call: LanguageModelV3CallOptions) =>
	Math.ceil(JSON.stringify({ prompt: call.prompt, tools: call.tools }).length / 4);

describe("every model request reserves its estimate and trues it up", () => {
	it("a turn's step: input from the request's size plus its maximum output, sent with that maximum; the reservation comes back with the usage", async () => {
		const { budget, reserved, granted, spent } = recordingBudget();
		const { h, model } = await atMissedCheck("terminal:budget-steps", budget, []);
		const steps = reserved.filter((r) => r.agent !== "hint" && r.agent !== "grader");
		expect(steps).toHaveLength(model.doStreamCalls.length);
		model.doStreamCalls.forEach((call, i) => {
			expect(call.maxOutputTokens).toBe(8_192);
			expect(steps[i]?.outputTokens).toBe(8_192);
			expect(steps[i]?.inputTokens).toBe(sentTokens(call));
		});
		expect(steps[0]).toMatchObject({ sessionId: "terminal:budget-steps", by: learner, agent: "prober" });
		// Each step's usage settles the reservation it was granted (100 in, 10 out a scripted reply).
		expect(spent.map((s) => s.reservation)).toEqual(granted);
		expect(spent[0]?.usage).toMatchObject({ agent: "prober", inputTokens: 100, outputTokens: 10 });
		await h.tutor.close();
	});

	it("a hint is reserved and charged to the member who asked for it", async () => {
		const { budget, reserved, spent } = recordingBudget();
		const { h } = await atMissedCheck("terminal:budget-hint", budget, [
			{ text: "Make the denominators the same first." },
		]);
		await h.tutor.handle("terminal:budget-hint", { type: "help", toolCallId: "c1", kind: "hint", by: learner });
		await h.tutor.idle("terminal:budget-hint");
		expect(h.of("hint").map((e) => e.text)).toEqual(["Make the denominators the same first."]);
		const hint = reserved.find((r) => r.agent === "hint");
		expect(hint).toMatchObject({ by: learner, outputTokens: 200 });
		expect(hint?.inputTokens).toBeGreaterThan(50);
		const charged = spent.find((s) => s.usage.agent === "hint");
		expect(charged?.usage).toMatchObject({ by: learner, inputTokens: 100, outputTokens: 10 });
		expect(charged?.reservation?.tokens).toBe((hint?.inputTokens ?? 0) + 200);
		await h.tutor.close();
	});

	it("a hint over budget: no model request, the generic hint and the notice", async () => {
		const { budget } = recordingBudget((e) => e.agent === "hint");
		const { h, model } = await atMissedCheck("terminal:budget-hint-over", budget, [{ text: "Never sent." }]);
		const requests = model.doStreamCalls.length;
		await h.tutor.handle("terminal:budget-hint-over", { type: "help", toolCallId: "c1", kind: "hint", by: learner });
		await h.tutor.idle("terminal:budget-hint-over");
		expect(model.doStreamCalls.length).toBe(requests);
		expect(h.of("hint").map((e) => e.text)).toEqual([GENERIC_HINT]);
		expect(h.of("error")).toMatchObject([{ code: "budget", message: NOTICE, retryable: false }]);
		await h.tutor.close();
	});

	it("a step refused in the middle of a turn ends it: the notice, no request, every tool call with its result; the next message goes on", async () => {
		let open = false;
		const { budget } = recordingBudget((e) => e.agent === "teacher" && !open);
		const model = scriptedModel([
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ text: "Let's start with unlike denominators." },
		]);
		const h = await harness(dir.path, model, { budget });
		const sessionId = "terminal:budget-mid-turn";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		// The prober's step ran; the teacher's first step (auto-wake, same turn) was refused before it was sent.
		expect(model.doStreamCalls).toHaveLength(1);
		expect(h.of("error")).toMatchObject([{ code: "budget", message: NOTICE, retryable: false }]);
		expect(h.of("typing").map((e) => e.active)).toEqual([true, false]);
		const record = await h.store.get(sessionId);
		expect(record?.turnOpen).toBe(false);
		const parts = [...toolParts(record?.messages ?? [])];
		expect(parts.map((p) => [p.toolCallId, p.state])).toEqual([["pd", "output-available"]]);
		// The budget allows again: the learner's next message continues with the teacher.
		open = true;
		await h.tutor.handle(sessionId, { type: "message", text: "ok, go on", by: learner });
		await h.tutor.idle(sessionId);
		expect(model.doStreamCalls).toHaveLength(2);
		expect(h.of("text").at(-1)?.text).toBe("Let's start with unlike denominators.");
		await h.tutor.close();
	});

	it("a turn refused at its first step shows no typing", async () => {
		const { budget } = recordingBudget(() => true);
		const model = scriptedModel([{ text: "Never sent." }]);
		const h = await harness(dir.path, model, { budget });
		await h.tutor.startLesson({ sessionId: "terminal:budget-first", topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle("terminal:budget-first");
		expect(model.doStreamCalls).toHaveLength(0);
		expect(h.of("typing")).toEqual([]);
		expect(h.of("error")).toMatchObject([{ code: "budget", message: NOTICE }]);
		expect((await h.store.get("terminal:budget-first"))?.turnOpen).toBe(false);
		await h.tutor.close();
	});
});

const worstCase = {
	question: "A list has 8 items. Checking one by one, how many do you check in the worst case?",
	correctAnswer: "8",
};

/** A grader answering every grading request with `correct`. */
function grader() {
	return new MockLanguageModelV3({
		doGenerate: async () => ({
			content: [{ type: "text", text: JSON.stringify({ verdict: "correct", reason: "All 8 of them." }) }],
			finishReason: { unified: "stop", raw: "stop" },
			usage: {
				inputTokens: { total: 50, noCache: 50, cacheRead: 0, cacheWrite: 0 },
				outputTokens: { total: 12, text: 12, reasoning: 0 },
			},
			warnings: [],
		}),
	});
}

describe("a grading is capped like a step", () => {
	async function typedAnswer(sessionId: string, refuse: (e: UsageEstimate) => boolean) {
		const recorded = recordingBudget(refuse);
		const graderModel = grader();
		const teacher = scriptedModel([{ calls: [{ name: "quiz", input: worstCase, id: "q" }] }, { text: "Let's go on." }]);
		const h = await harness(dir.path, teacher, { models: { grader: graderModel }, budget: recorded.budget });
		await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "q", text: "I'd look at all of them", by: learner });
		await h.tutor.idle(sessionId);
		return { ...recorded, h, graderModel };
	}

	it("reserved before it is sent, charged with its reservation", async () => {
		const { h, graderModel, reserved, spent } = await typedAnswer("terminal:budget-grade", () => false);
		expect(graderModel.doGenerateCalls).toHaveLength(1);
		const grading = reserved.find((r) => r.agent === "grader");
		expect(grading).toMatchObject({ by: learner, outputTokens: 200 });
		expect(grading?.inputTokens).toBeGreaterThan(100);
		const charged = spent.find((s) => s.usage.agent === "grader");
		expect(charged?.usage).toMatchObject({ inputTokens: 50, outputTokens: 12 });
		expect(charged?.reservation?.tokens).toBe((grading?.inputTokens ?? 0) + 200);
		expect(h.of("answered").at(-1)?.result).toMatchObject({ correct: true, judged: "grader" });
		await h.tutor.close();
	});

	it("refused: no grading request, the teacher judges the answer", async () => {
		const { h, graderModel } = await typedAnswer("terminal:budget-grade-over", (e) => e.agent === "grader");
		expect(graderModel.doGenerateCalls).toHaveLength(0);
		expect(h.of("answered").at(-1)?.result).toEqual({
			answer: "I'd look at all of them",
			judged: "unsure",
			by: learner,
		});
		expect(h.of("text").at(-1)?.text).toBe("Let's go on.");
		await h.tutor.close();
	});
});
