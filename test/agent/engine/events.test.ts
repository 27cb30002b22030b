/**
 * Event details docs/engine.md promises that the whole-lesson test does not reach: a quiz
 * carries `nodeId` only when it names a node of the current plan, a second plan_init posts a
 * `rewrite`, and a question claimed by an answer still queued no longer counts as pending.
 */

import { afterAll, describe, expect, it } from "vitest";
import {
	assessmentInput,
	harness,
	learner,
	planMermaid,
	probeQuiz,
	scriptedModel,
	tempDir,
	toolResultsSent,
} from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const quiz = (id: string, nodeId: string) => ({
	name: "quiz",
	id,
	input: { type: "check", nodeId, question: `Quiz ${id}?`, options: ["a", "b"], correctAnswer: "a" },
});

describe("plan and quiz events", () => {
	it("a quiz on a node not on the map is refused (the model sees the map's nodes); a second plan_init is a rewrite", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan1" }] },
			{ calls: [quiz("q1", "no-such-node")] },
			{ calls: [{ name: "plan_init", input: { mermaid: "graph TD\n  halves[Halves] --> quarters[Quarters]" } }] },
			{ calls: [quiz("q2", "quarters")] },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:events-plan";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		// q1 never reaches the learner: the model is told which nodes the map has, and revises the map.
		expect(h.of("quiz").map((q) => q.toolCallId)).toEqual(["q2"]);
		const refused = JSON.stringify(toolResultsSent(model.doStreamCalls[3]!));
		expect(refused).toContain("no-such-node");
		expect(refused).toContain("is not on the lesson map");
		expect(h.of("plan").map((p) => [p.reason, p.tree.version, p.statuses.current])).toEqual([
			["init", 1, null],
			["rewrite", 2, null],
			["moved", 2, "quarters"],
		]);
		expect(h.of("quiz")[0]).toMatchObject({ toolCallId: "q2", nodeId: "quarters" });
		await h.tutor.close();
	});
});

describe("pending questions in the summary", () => {
	it("a question answered while the turn's events are still going out is no longer pending", async () => {
		const model = scriptedModel([
			{ text: "First one.", calls: [{ name: "quiz", input: probeQuiz, id: "q1" }] },
			{ text: "Thanks." },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:events-claims";
		const seen: unknown[] = [];
		h.tutor.subscribe(async (event) => {
			if (event.type !== "quiz") return;
			// The pump is still delivering this turn's events: the answer is admitted and queued.
			expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "q1", value: 1, by: learner })).toEqual({
				ok: true,
			});
			seen.push((await h.tutor.getSession(sessionId))?.pending);
		});
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(seen).toEqual([[]]);
		expect(h.of("answered")[0]?.result).toMatchObject({ answer: "3/4", correct: true });
		expect(h.of("text").at(-1)?.text).toBe("Thanks.");
		await h.tutor.close();
	});
});
