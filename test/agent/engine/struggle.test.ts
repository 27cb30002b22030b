import { afterAll, describe, expect, it } from "vitest";
import { GENERIC_HINT, NOT_SURE_NOTE, REVEALED_NOTE } from "../../../src/core/struggle.ts";
import { toolParts } from "../../../src/core/transcript.ts";
import {
	assessmentInput,
	harness,
	learner,
	planMermaid,
	probeQuiz,
	type ScriptedReply,
	scriptedModel,
	tempDir,
	toolResultsSent,
} from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const check = {
	type: "check",
	nodeId: "unlike",
	question: "What is 1/2 + 1/4?",
	options: ["2/6", "3/4", "1/6"],
	correctAnswer: "3/4",
};

/** Probe (p1, answered right), probe_done, plan, then the check quiz c1; `after` follows. */
function toCheck(after: ScriptedReply[], quiz: object = check): ScriptedReply[] {
	return [
		{ calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
		{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
		{ text: "Now check it.", calls: [{ name: "quiz", input: quiz, id: "c1" }] },
		...after,
	];
}

async function atCheck(sessionId: string, replies: ScriptedReply[], quiz?: object) {
	const model = scriptedModel(toCheck(replies, quiz));
	const h = await harness(dir.path, model);
	await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
	await h.tutor.idle(sessionId);
	await h.tutor.handle(sessionId, { type: "answer", toolCallId: "p1", value: 1, by: learner });
	await h.tutor.idle(sessionId);
	expect(h.of("quiz").map((q) => q.toolCallId)).toEqual(["p1", "c1"]);
	return { h, model };
}

const quizOutput = (requestPrompt: Parameters<typeof toolResultsSent>[0]) =>
	toolResultsSent(requestPrompt)
		.filter((r) => r.toolName === "quiz")
		.map((r) => JSON.stringify(r.output));

describe("struggle before the answer", () => {
	it("a wrong check is an attempt (no answer shown, no turn); Try again re-shows it; the right answer carries the attempt", async () => {
		const { h, model } = await atCheck("terminal:struggle-1", [{ text: "Yes, 3/4: you fixed the denominator." }]);
		const sessionId = "terminal:struggle-1";
		const requests = model.doStreamCalls.length;
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "c1", value: 0, by: learner })).toEqual({
			ok: true,
		});
		await h.tutor.idle(sessionId);
		expect(model.doStreamCalls.length).toBe(requests); // the teacher has not run yet
		expect(h.of("answered").map((a) => a.toolCallId)).toEqual(["p1"]);
		expect(h.of("attempt")).toMatchObject([
			{ toolCallId: "c1", state: "missed", attempts: [{ answer: "2/6", correct: false }] },
		]);
		expect((await h.tutor.getSession(sessionId))?.pending.map((p) => p.toolCallId)).toEqual(["c1"]);

		await h.tutor.handle(sessionId, { type: "help", toolCallId: "c1", kind: "again", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("attempt").at(-1)).toMatchObject({ state: "retry", toolCallId: "c1" });

		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "c1", value: 1, by: learner });
		await h.tutor.idle(sessionId);
		const final = h.of("answered").at(-1);
		expect(final?.result).toEqual({
			answer: "3/4",
			correct: true,
			attempts: [{ answer: "2/6", correct: false }],
			by: learner,
		});
		expect(quizOutput(model.doStreamCalls.at(-1)!).at(-1)).toContain('"attempts":[{"answer":"2/6","correct":false}]');
		const summary = await h.tutor.getSession(sessionId);
		expect(summary?.plan?.mastery?.unlike).toBe("shaky");
		expect((await h.store.get(sessionId))?.struggle).toBeUndefined();
		await h.tutor.close();
	});

	it("two misses reveal the answer; the result says so", async () => {
		const { h } = await atCheck("terminal:struggle-2", [{ text: "It was 3/4." }]);
		const sessionId = "terminal:struggle-2";
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "c1", value: 0, by: learner });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "c1", value: 2, by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("answered").at(-1)?.result).toEqual({
			answer: "1/6",
			correct: false,
			revealed: true,
			note: REVEALED_NOTE,
			attempts: [{ answer: "2/6", correct: false }],
			by: learner,
		});
		await h.tutor.close();
	});

	it("Show answer resolves the question at once, revealed, with no attempt needed", async () => {
		const { h } = await atCheck("terminal:struggle-3", [{ text: "Here is why." }]);
		const sessionId = "terminal:struggle-3";
		await h.tutor.handle(sessionId, { type: "help", toolCallId: "c1", kind: "show", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("answered").at(-1)?.result).toMatchObject({ correct: false, revealed: true, answer: "" });
		expect((await h.tutor.getSession(sessionId))?.plan?.mastery?.unlike).toBe("shaky");
		await h.tutor.close();
	});

	it("a hint is a bounded side call, checked not to contain the answer, recorded for the teacher", async () => {
		const { h, model } = await atCheck("terminal:struggle-4", [
			{ text: "The answer is 3/4, of course." }, // hint 1: gives it away -> the generic hint
			{ text: "Make the denominators the same first." }, // hint 2
			{ text: "Right, well done." },
		]);
		const sessionId = "terminal:struggle-4";
		await h.tutor.handle(sessionId, { type: "help", toolCallId: "c1", kind: "hint", by: learner });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "help", toolCallId: "c1", kind: "hint", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("hint").map((e) => e.text)).toEqual([GENERIC_HINT, "Make the denominators the same first."]);
		const hintRequest = model.doStreamCalls.at(-1)!;
		expect(hintRequest.tools ?? []).toEqual([]);
		expect(JSON.stringify(hintRequest.prompt)).toContain("Do NOT give the answer");
		expect(h.of("answered").map((a) => a.toolCallId)).toEqual(["p1"]); // still open
		expect((await h.store.get(sessionId))?.struggle?.c1?.hints).toHaveLength(2);

		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "c1", value: 1, by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("answered").at(-1)?.result).toEqual({
			answer: "3/4",
			correct: true,
			hints: [GENERIC_HINT, "Make the denominators the same first."],
			hinted: true,
			by: learner,
		});
		expect(quizOutput(model.doStreamCalls.at(-1)!).at(-1)).toContain('"hinted":true');
		expect((await h.tutor.getSession(sessionId))?.plan?.mastery?.unlike).toBe("shaky");
		await h.tutor.close();
	});

	it("a failed hint call gives the generic hint and keeps the question open", async () => {
		const { h } = await atCheck("terminal:struggle-5", [{ error: new Error("model down") }]);
		const sessionId = "terminal:struggle-5";
		await h.tutor.handle(sessionId, { type: "help", toolCallId: "c1", kind: "hint", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("hint").map((e) => e.text)).toEqual([GENERIC_HINT]);
		expect((await h.tutor.getSession(sessionId))?.pending.map((p) => p.toolCallId)).toEqual(["c1"]);
		await h.tutor.close();
	});

	it("attempts survive a restart between tries", async () => {
		const sessionId = "terminal:struggle-6";
		const first = await atCheck(sessionId, []);
		await first.h.tutor.handle(sessionId, { type: "answer", toolCallId: "c1", value: 2, by: learner });
		await first.h.tutor.idle(sessionId);
		await first.h.tutor.close();

		const model = scriptedModel([{ text: "Yes: 3/4." }]);
		const second = await harness(dir.path, model);
		await second.tutor.resume();
		expect(await second.tutor.handle(sessionId, { type: "answer", toolCallId: "c1", value: 1, by: learner })).toEqual({
			ok: true,
		});
		await second.tutor.idle(sessionId);
		expect(second.of("answered").at(-1)?.result).toEqual({
			answer: "3/4",
			correct: true,
			attempts: [{ answer: "1/6", correct: false }],
			by: learner,
		});
		const record = await second.store.get(sessionId);
		const c1 = [...toolParts(record!.messages)].find((p) => p.toolCallId === "c1");
		expect(c1?.output).toMatchObject({ attempts: [{ answer: "1/6", correct: false }] });
		await second.tutor.close();
	});

	it("a wrong prediction is no attempt: it resolves at once, and has no second try", async () => {
		const predict = { ...check, type: "predict" };
		const { h } = await atCheck("terminal:struggle-7", [{ text: "Interesting guess." }], predict);
		const sessionId = "terminal:struggle-7";
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "c1", value: 0, by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("attempt")).toEqual([]);
		expect(h.of("answered").at(-1)?.result).toEqual({ answer: "2/6", correct: false, by: learner });
		await h.tutor.close();
	});

	it("Explain another way keeps the question open: the teacher explains, the card comes again, the answer after it counts", async () => {
		const { h, model } = await atCheck("terminal:struggle-8", [
			{ text: "Another way: think of pizza slices." },
			{ text: "Yes: 3/4." },
		]);
		const sessionId = "terminal:struggle-8";
		await h.tutor.handle(sessionId, { type: "help", toolCallId: "c1", kind: "explain", by: learner });
		await h.tutor.idle(sessionId);
		// Not closed: no result, still pending, offered again under the explanation.
		expect(h.of("answered").map((a) => a.toolCallId)).toEqual(["p1"]);
		expect((await h.tutor.getSession(sessionId))?.pending.map((p) => p.toolCallId)).toEqual(["c1"]);
		expect(
			h
				.of("quiz")
				.filter((q) => q.toolCallId === "c1")
				.map((q) => q.again === true),
		).toEqual([false, true]);
		const explained = model.doStreamCalls.at(-1)!;
		expect(JSON.stringify(explained.prompt.at(-1))).toContain("explain that another way");
		expect(quizOutput(explained).at(-1)).toContain('"status":"pending"');

		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "c1", value: 1, by: learner })).toEqual({
			ok: true,
		});
		await h.tutor.idle(sessionId);
		expect(h.of("answered").at(-1)?.result).toMatchObject({ answer: "3/4", correct: true });
		expect((await h.tutor.getSession(sessionId))?.plan?.mastery?.unlike).not.toBe("not-yet");
		// The model saw the call pending, so it keeps seeing it so; the answer comes in a later message.
		const after = model.doStreamCalls.at(-1)!;
		expect(quizOutput(after).at(-1)).toContain('"status":"pending"');
		expect(JSON.stringify(after.prompt.at(-1))).toMatch(
			/the answer to the question that stayed open.*3\/4.*correct\\":true/,
		);
		await h.tutor.close();
	});
});

describe("Not sure", () => {
	it("in the probe is an answer that the model reads as 'does not know', and is never a guess", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
			{ text: "Fine, we start from the basics." },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:not-sure-1";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "help", toolCallId: "p1", kind: "not-sure", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("answered").at(-1)?.result).toEqual({
			answer: "Not sure",
			correct: false,
			notSure: true,
			note: NOT_SURE_NOTE,
			by: learner,
		});
		const seen = quizOutput(model.doStreamCalls[1]!).at(-1) ?? "";
		expect(seen).toContain('"notSure":true');
		expect(seen).toContain("do not know this");
		expect(seen).toContain("never as a guess");
		// A second click on the resolved question records nothing.
		expect(
			(await h.tutor.handle(sessionId, { type: "help", toolCallId: "p1", kind: "not-sure", by: learner })).ok,
		).toBe(false);
		await h.tutor.close();
	});

	it("an unknown help kind, or a hint past the cap, is refused with a clear message", async () => {
		const { h } = await atCheck("terminal:not-sure-2", [{ text: "h1" }, { text: "h2" }, { text: "h3" }]);
		const sessionId = "terminal:not-sure-2";
		const bad = await h.tutor.handle(sessionId, {
			type: "help",
			toolCallId: "c1",
			kind: "dance" as never,
			by: learner,
		});
		expect(bad).toMatchObject({ ok: false, code: "invalid-answer" });
		for (let i = 0; i < 3; i++) {
			await h.tutor.handle(sessionId, { type: "help", toolCallId: "c1", kind: "hint", by: learner });
			await h.tutor.idle(sessionId);
		}
		const capped = await h.tutor.handle(sessionId, { type: "help", toolCallId: "c1", kind: "hint", by: learner });
		expect(capped).toMatchObject({ ok: false, code: "invalid-answer" });
		expect(h.of("hint")).toHaveLength(3);
		await h.tutor.close();
	});
});
