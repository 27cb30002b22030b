import { afterAll, describe, expect, it } from "vitest";
import { toolParts } from "../../src/agent/engine/transcript.ts";
import {
	assessmentInput,
	harness,
	learner,
	planMermaid,
	probeQuiz,
	scriptedModel,
	tempDir,
	toolResultsSent,
} from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

/** The error texts the model was sent in request `n`. */
function errorsSent(model: ReturnType<typeof scriptedModel>, n: number): string[] {
	const call = model.doStreamCalls[n];
	if (!call) return [];
	return toolResultsSent(call)
		.map((r) => r.output as { type: string; value: unknown })
		.filter((o) => o.type === "error-text")
		.map((o) => String(o.value));
}

describe("malformed model output ends in tool errors the model sees, never a crash", () => {
	it("invalid JSON arguments, an unknown tool, and the assessment as a string", async () => {
		const model = scriptedModel([
			{
				calls: [
					{ name: "quiz", raw: '{"question": "What is 2+2?", "options": ["3", "4"', id: "bad-json" },
					{ name: "teach_everything", input: { all: true }, id: "unknown" },
					{ name: "probe_done", input: { assessment: "they know fractions" }, id: "pd-string" },
				],
			},
			{ text: "Sorry, let me ask properly.", calls: [{ name: "quiz", input: probeQuiz, id: "good" }] },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:malformed-1";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		const errors = errorsSent(model, 1);
		expect(errors).toHaveLength(3);
		expect(errors[0]).toMatch(/not valid JSON/);
		expect(errors[1]).toMatch(/Unknown tool "teach_everything".*quiz, ask, probe_done/);
		expect(errors[2]).toMatch(/assessment/);
		expect(h.of("quiz").map((e) => e.toolCallId)).toEqual(["good"]);
		expect(h.of("assessment")).toHaveLength(0);
		expect(h.of("error")).toHaveLength(0);
		// The transcript keeps the raw input of the rejected calls.
		const record = await h.store.get(sessionId);
		const rejected = [...toolParts(record!.messages)].filter((p) => p.state === "output-error");
		expect(rejected.map((p) => p.rawInput)).toEqual([
			'{"question": "What is 2+2?", "options": ["3", "4"',
			{ all: true },
			{ assessment: "they know fractions" },
		]);
		await h.tutor.close();
	});

	it("double-encoded strings and correctAnswer as a number are healed at the boundary and shown", async () => {
		const model = scriptedModel([
			{
				calls: [
					// the whole argument object sent as a JSON string
					{ name: "quiz", raw: JSON.stringify(JSON.stringify(probeQuiz)), id: "double" },
				],
			},
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
			{
				calls: [
					{
						name: "quiz",
						id: "numeric",
						raw: JSON.stringify({
							type: '"predict"',
							nodeId: "unlike",
							question: "Which is 16 + 1?",
							options: ["16", "17"],
							correctAnswer: 17,
						}),
					},
				],
			},
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:malformed-2";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("quiz")[0]).toMatchObject({ toolCallId: "double", input: probeQuiz });
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "double", value: "3/4", by: learner });
		await h.tutor.idle(sessionId);
		const quiz = h.of("quiz")[1];
		expect(quiz).toMatchObject({ toolCallId: "numeric", nodeId: "unlike" });
		expect(quiz?.input).toMatchObject({ type: "predict", correctAnswer: "17", options: ["16", "17"] });
		expect(h.of("plan").at(-1)?.statuses.current).toBe("unlike");
		expect(
			await h.tutor.handle(sessionId, { type: "answer", toolCallId: "numeric", value: "17", by: learner }),
		).toEqual({
			ok: true,
		});
		// The script is out of replies: the next turn fails with an error event, and the session stays usable.
		await h.tutor.idle(sessionId);
		expect(h.of("answered").at(-1)?.result).toMatchObject({ answer: "17", correct: true });
		expect(h.of("error")).toHaveLength(1);
		await h.tutor.close();
	});

	it("a bad mermaid block and probe_done while a quiz is open are refused with a reason", async () => {
		const model = scriptedModel([
			{
				calls: [
					{ name: "quiz", input: probeQuiz, id: "open" },
					{ name: "probe_done", input: assessmentInput, id: "too-early" },
				],
			},
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ calls: [{ name: "plan_init", input: { mermaid: "a list of topics" }, id: "bad-plan" }] },
			{ calls: [{ name: "plan_init", input: { mermaid: "graph TD\n  a --> b\n  b --> a" }, id: "cyclic" }] },
			{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
			{ text: "Ready when you are: what do you already know about unlike denominators?" },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:malformed-3";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("quiz").map((q) => q.toolCallId)).toEqual(["open"]);
		expect(h.of("assessment")).toHaveLength(0);
		let record = await h.store.get(sessionId);
		const early = [...toolParts(record!.messages)].find((p) => p.toolCallId === "too-early");
		expect(early).toMatchObject({ state: "output-error" });
		expect(early?.errorText).toMatch(/unanswered/);

		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "open", value: "3/4", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("assessment")).toHaveLength(1);
		// The teacher saw both plan errors and fixed the map on the third try.
		expect(errorsSent(model, 3).at(-1)).toMatch(/not accepted/);
		expect(errorsSent(model, 4).at(-1)).toMatch(/cycle/i);
		expect(h.of("plan")).toHaveLength(1);
		expect(h.of("plan")[0]).toMatchObject({ reason: "init" });
		expect(h.of("text").at(-1)?.text).toMatch(/Ready when you are/);
		record = await h.store.get(sessionId);
		expect([...toolParts(record!.messages)].every((p) => p.state !== "input-available")).toBe(true);
		await h.tutor.close();
	});

	it("probe_done after the probe concluded is refused", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd1" }] },
			// the teacher has no probe_done: an unknown tool for it
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd2" }] },
			{ text: "Let's begin." },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:malformed-4";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("assessment")).toHaveLength(1);
		expect(errorsSent(model, 2)[0]).toMatch(/Unknown tool "probe_done"/);
		await h.tutor.close();
	});
});
