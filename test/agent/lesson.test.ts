import { afterAll, describe, expect, it } from "vitest";
import { PROBER_PROMPT, TEACHER_PROMPT } from "../../src/agent/prompts/index.ts";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import { derivePlanStatuses } from "../../src/core/contracts/plan.ts";
import { deriveLessonPhase } from "../../src/core/phases.ts";
import { latestPlanTree, toolParts } from "../../src/core/transcript.ts";
import { fractionsLesson } from "../fixtures/lesson-script.ts";
import { harness, learner, scriptedModel, tempDir, toolResultsSent } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

describe("a whole lesson on MockLanguageModelV3 with the SQLite store", () => {
	it("probes, auto-wakes the teacher, maps, teaches with tagged quizzes, moves the plan, recaps and ends", async () => {
		const model = scriptedModel(
			fractionsLesson({
				greeting: "Hi Ada! A few quick questions first.",
				predictOptions: ["3", "6", "9"],
				closing: "Well done, Ada!",
			}),
		);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:lesson-1";
		expect(await h.tutor.startLesson({ sessionId, topic: "adding fractions", learner, mode: "solo" })).toEqual({
			ok: true,
		});
		await h.tutor.idle(sessionId);
		expect(h.of("quiz").map((e) => e.toolCallId)).toEqual(["p1"]);
		expect(h.of("text")[0]?.text).toBe("Hi Ada! A few quick questions first.");
		// The summary carries what a card or an answer form shows: the pending question's parsed input.
		expect((await h.tutor.getSession(sessionId))?.pending).toEqual([
			{
				toolCallId: "p1",
				kind: "quiz",
				input: { question: "What is 1/2 + 1/4?", options: ["2/6", "3/4", "1/6"], correctAnswer: "3/4" },
			},
		]);

		// The learner picks option 1 ("3/4") by index.
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "p1", value: 1, by: learner })).toEqual({
			ok: true,
		});
		await h.tutor.idle(sessionId);
		expect(h.of("answered")[0]?.result).toMatchObject({ answer: "3/4", correct: true, by: learner });
		expect(h.of("assessment")[0]?.assessment.strands[0]?.strand).toBe("adding fractions");
		const plans = h.of("plan");
		expect(plans.map((p) => [p.reason, p.statuses.current])).toEqual([
			["init", null],
			["moved", "common-denominator"],
		]);
		expect(plans[0]?.tree.version).toBe(1);
		expect(h.of("quiz")[1]).toMatchObject({ toolCallId: "t1", nodeId: "common-denominator" });
		// the plan event precedes the quiz that moved it
		const idxMoved = h.events.findIndex((e) => e.type === "plan" && e.reason === "moved");
		const idxT1 = h.events.findIndex((e) => e.type === "quiz" && e.toolCallId === "t1");
		expect(idxMoved).toBeLessThan(idxT1);

		// The teacher's request: its own system prompt and tools, the assessment in context.
		const teacherCall = model.doStreamCalls[2];
		expect(teacherCall?.prompt[0]).toEqual({ role: "system", content: TEACHER_PROMPT });
		expect(teacherCall?.tools?.map((t) => t.name).sort()).toEqual(["ask", "explain", "plan_init", "quiz"]);
		expect(JSON.stringify(toolResultsSent(teacherCall!))).toContain("Enter at unlike denominators.");
		expect(model.doStreamCalls[0]?.prompt[0]).toEqual({ role: "system", content: PROBER_PROMPT });
		expect(model.doStreamCalls[0]?.tools?.map((t) => t.name).sort()).toEqual(["ask", "probe_done", "quiz"]);

		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "t1", value: "6", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("explain")[0]?.input).toEqual({ body: "Both 3 and 6 divide 6.", role: "concept" });
		expect(h.of("plan")).toHaveLength(2); // same node: no new plan post

		// A typed free answer, graded numerically.
		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "t2", text: " 10 ", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("answered").at(-1)?.result).toMatchObject({ answer: "10", correct: true });
		expect(h.of("plan").at(-1)).toMatchObject({ reason: "moved" });
		expect(h.of("plan").at(-1)?.statuses.current).toBe("unlike");
		expect([...(h.of("plan").at(-1)?.statuses.visited ?? [])]).toEqual(["common-denominator"]);

		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "t3", text: "5/6", by: learner });
		await h.tutor.idle(sessionId);
		// Recall before the recap: the learner names what they learned first.
		expect(h.of("ask").at(-1)?.toolCallId).toBe("recall");
		expect(h.of("ended")).toHaveLength(0);
		const recall = "Common denominators";
		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "recall", text: recall, by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("explain").at(-1)?.input.role).toBe("recap");
		expect(h.of("text").at(-1)?.text).toBe("Well done, Ada!");
		expect(h.of("ended")).toEqual([{ type: "ended", sessionId, reason: "completed" }]);
		const typing = h.of("typing").map((e) => e.active);
		expect(typing.filter((a) => a).length).toBe(typing.filter((a) => !a).length);

		const summary = await h.tutor.getSession(sessionId);
		expect(summary?.phase).toBe("ended");
		expect(summary?.usage).toEqual({ inputTokens: 900, outputTokens: 90, cachedInputTokens: 360 });
		expect(summary?.plan?.statuses.current).toBe("unlike");
		expect(await h.tutor.handle(sessionId, { type: "message", text: "more?", by: learner })).toMatchObject({
			ok: false,
			code: "ended",
		});
		await h.tutor.close();

		// What is on disk: every call has a result, the phase derives to ended.
		const store = await createSessionStore(`sqlite://${dir.path}/lh.sqlite`);
		const record = await store.get(sessionId);
		await store.close();
		expect(record).toBeDefined();
		const parts = [...toolParts(record!.messages)];
		expect(parts.map((p) => p.toolCallId)).toEqual(["p1", "pd", "plan", "t1", "e1", "t2", "t3", "recall", "r"]);
		expect(parts.every((p) => p.state === "output-available")).toBe(true);
		expect(deriveLessonPhase(record!.messages)).toBe("ended");
		const tree = latestPlanTree(record!.messages)!;
		expect(derivePlanStatuses(tree, record!.messages).current).toBe("unlike");
		expect(record!.messages.filter((m) => m.role === "assistant" && m.metadata?.agent === "teacher").length).toBe(5);
		// Each turn's usage sits on its messages; they add up to the session's totals.
		const perMessage = record!.messages.flatMap((m) => (m.metadata?.usage ? [m.metadata.usage] : []));
		expect(perMessage.length).toBe(7);
		const sum = (k: "inputTokens" | "outputTokens" | "cachedInputTokens") =>
			perMessage.reduce((total, u) => total + u[k], 0);
		expect({
			inputTokens: sum("inputTokens"),
			outputTokens: sum("outputTokens"),
			cachedInputTokens: sum("cachedInputTokens"),
		}).toEqual(record!.usage);
	});
});
