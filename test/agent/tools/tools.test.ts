import { describe, expect, it } from "vitest";
import { createAgents } from "../../../src/agent/engine/agents.ts";
import type { LessonMessage } from "../../../src/agent/store/types.ts";
import { createPlanInitTool } from "../../../src/agent/tools/plan-init.ts";
import { createProbeDoneTool } from "../../../src/agent/tools/probe-done.ts";
import { createQuizTool } from "../../../src/agent/tools/quiz.ts";
import { parseQuizInput } from "../../../src/core/tool-parts.ts";
import { assessmentInput, planMermaid } from "../helpers.ts";

/** The SDK-facing validate of a tool (what the boundary runs). */
async function boundary(tool: ReturnType<typeof createQuizTool>, value: unknown) {
	const schema = tool.tool.inputSchema as { validate?: (v: unknown) => unknown };
	return (await schema.validate?.(value)) as { success: boolean; value?: unknown; error?: Error };
}

const ctx = (messages: LessonMessage[] = [], learnerCallsInStep = 0) => ({ messages, learnerCallsInStep });

describe("tool boundaries", () => {
	it("accept exactly what the display parse shows (correctAnswer 17, encoded type)", async () => {
		const teacher = createQuizTool("teacher");
		const raw = { question: "16 + 1?", options: ["16", "17"], correctAnswer: 17, type: '"check"', nodeId: "n" };
		const verdict = await boundary(teacher, raw);
		expect(verdict.success).toBe(true);
		// the SDK keeps the healed raw input; it parses for display
		expect(parseQuizInput(verdict.value)).toMatchObject({ correctAnswer: "17", type: "check" });
		expect((verdict.value as { nodeId: string }).nodeId).toBe("n");
	});
	it("refuse with a readable reason", async () => {
		const verdict = await boundary(createQuizTool("prober"), {
			question: "Pick",
			options: ["a", "b"],
			correctAnswer: "c",
		});
		expect(verdict.success).toBe(false);
		expect(verdict.error?.message).toMatch(/not one of the options/);
		const missing = await boundary(createQuizTool("prober"), { options: ["a"] });
		expect(missing.error?.message).toMatch(/question|correctAnswer/);
	});
	it("show the model plain JSON Schema with descriptions", () => {
		const { prober, teacher } = createAgents();
		expect(Object.keys(prober.toolSet)).toEqual(["quiz", "ask", "probe_done"]);
		expect(Object.keys(teacher.toolSet)).toEqual(["quiz", "ask", "explain", "plan_init"]);
		for (const t of [...prober.tools.values(), ...teacher.tools.values()]) {
			expect(t.tool.description?.length).toBeGreaterThan(40);
			expect(t.tool).not.toHaveProperty("execute");
		}
	});
});

describe("plan_init", () => {
	const tool = createPlanInitTool();
	it("canonicalizes the block and versions each success", () => {
		const first = tool.settle({ mermaid: planMermaid }, ctx());
		expect(first).toMatchObject({ kind: "output", output: { ok: true, tree: { version: 1 } } });
		const messages: LessonMessage[] = [
			{
				id: "m",
				role: "assistant",
				parts: [
					{
						type: "tool-plan_init",
						toolCallId: "p",
						state: "output-available",
						input: { mermaid: planMermaid },
						output: (first as { output: unknown }).output,
					},
				],
			},
		];
		expect(tool.settle({ mermaid: "graph TD\n a --> b" }, ctx(messages))).toMatchObject({
			output: { tree: { version: 2, nodes: [{ id: "a" }, { id: "b" }] } },
		});
	});
	it("answers a bad block with the parser's reason", () => {
		const selfEdge = tool.settle({ mermaid: "graph TD\n a --> a" }, ctx());
		expect(selfEdge).toMatchObject({
			kind: "error",
			errorText: expect.stringMatching(/^The plan was not accepted: .*a/),
		});
		expect(tool.settle({ mermaid: 5 }, ctx())).toMatchObject({
			kind: "error",
			errorText: expect.stringMatching(/graph/),
		});
		expect(tool.settle({ plan: "x" }, ctx())).toMatchObject({
			kind: "error",
			errorText: expect.stringMatching(/mermaid/),
		});
	});
});

describe("probe_done", () => {
	const tool = createProbeDoneTool();
	it("is refused while a question of this step is open, and after the probe concluded", () => {
		expect(tool.settle(assessmentInput, ctx([], 1))).toMatchObject({ kind: "error" });
		const done = tool.settle(assessmentInput, ctx());
		expect(done).toMatchObject({ kind: "output", output: { ok: true, assessment: assessmentInput.assessment } });
		const concluded: LessonMessage[] = [
			{
				id: "m",
				role: "assistant",
				parts: [
					{
						type: "tool-probe_done",
						toolCallId: "pd",
						state: "output-available",
						input: assessmentInput,
						output: (done as { output: unknown }).output,
					},
				],
			},
		];
		expect(tool.settle(assessmentInput, ctx(concluded))).toMatchObject({
			kind: "error",
			errorText: expect.stringMatching(/already concluded/),
		});
	});
});

describe("explain: recall before the recap", () => {
	it("refuses a recap until an ask after the last quiz was answered, with a fix the model can follow", async () => {
		const { createExplainTool, RECALL_FIRST } = await import("../../../src/agent/tools/explain.ts");
		const tool = createExplainTool();
		const part = (type: string, toolCallId: string, state: string) => ({ type, toolCallId, state, input: {} });
		const turn = (...parts: object[]) => [{ id: "m", role: "assistant", parts }] as never;
		const recap = { body: "You learned it.", role: "recap" };
		const quizOnly = turn(part("tool-quiz", "q1", "output-available"));
		expect(tool.settle(recap, ctx(quizOnly))).toEqual({ kind: "error", errorText: RECALL_FIRST });
		// Asked but not answered yet (the same step): still refused.
		const pending = turn(part("tool-quiz", "q1", "output-available"), part("tool-ask", "a1", "input-available"));
		expect(tool.settle(recap, ctx(pending))).toMatchObject({ kind: "error" });
		// An ask before the last quiz does not count.
		const early = turn(part("tool-ask", "a0", "output-available"), part("tool-quiz", "q1", "output-available"));
		expect(tool.settle(recap, ctx(early))).toMatchObject({ kind: "error" });
		const recalled = turn(part("tool-quiz", "q1", "output-available"), part("tool-ask", "a1", "output-available"));
		expect(tool.settle(recap, ctx(recalled))).toMatchObject({ kind: "output" });
		// Other explanations are never refused.
		expect(tool.settle({ body: "An idea.", role: "concept" }, ctx(quizOnly))).toMatchObject({ kind: "output" });
	});
});

describe("explain: shaky nodes come back before the recap", () => {
	const plan = {
		type: "tool-plan_init",
		toolCallId: "plan",
		state: "output-available",
		input: { mermaid: planMermaid },
		output: {
			ok: true,
			tree: {
				nodes: [
					{ id: "common-denominator", title: "Common denominators" },
					{ id: "unlike", title: "Unlike denominators" },
				],
				edges: [{ from: "common-denominator", to: "unlike" }],
				version: 1,
			},
		},
	};
	const by = { id: "u1", name: "Ada" };
	const check = (toolCallId: string, nodeId: string, output: object) => ({
		type: "tool-quiz",
		toolCallId,
		state: "output-available",
		input: { question: "1/2 + 1/4?", options: ["2/6", "3/4"], correctAnswer: "3/4", type: "check", nodeId },
		output: { by, ...output },
	});
	const recallAsk = {
		type: "tool-ask",
		toolCallId: "recall",
		state: "output-available",
		input: {},
		output: { answer: "x", by },
	};
	const turn = (...parts: object[]) => [{ id: "m", role: "assistant", parts }] as never;
	const recap = { body: "You learned it.", role: "recap" };

	it("refuses a recap naming each shaky node not checked again, before asking for recall", async () => {
		const { createExplainTool } = await import("../../../src/agent/tools/explain.ts");
		const tool = createExplainTool();
		const missed = turn(
			plan,
			check("q1", "common-denominator", { answer: "2/6", correct: false }),
			check("q2", "unlike", { answer: "3/4", correct: true, hinted: true, hints: ["add"] }),
			recallAsk,
		);
		const refused = tool.settle(recap, ctx(missed));
		expect(refused).toMatchObject({ kind: "error" });
		const text = (refused as { errorText: string }).errorText;
		expect(text).toContain('`common-denominator` ("Common denominators")');
		expect(text).toContain('`unlike` ("Unlike denominators")');
		expect(text).toMatch(/`check` quiz tagged with its `nodeId`/);
		expect(text).toMatch(/value is `move-on`/);
		// Checked again and right: the recap still waits for a recall ask after the last quiz.
		const rechecked = turn(
			plan,
			check("q1", "common-denominator", { answer: "2/6", correct: false }),
			check("q2", "common-denominator", { answer: "3/4", correct: true }),
		);
		expect(tool.settle(recap, ctx(rechecked))).toMatchObject({
			kind: "error",
			errorText: expect.stringMatching(/^Recall comes before the recap/),
		});
		expect(
			tool.settle(recap, ctx(turn(...(rechecked as unknown as [{ parts: object[] }])[0].parts, recallAsk))),
		).toEqual({
			kind: "output",
			output: { ok: true, shown: true },
		});
	});

	it("lets the learner move on: the move-on choice releases the nodes but is no recall", async () => {
		const { createExplainTool } = await import("../../../src/agent/tools/explain.ts");
		const tool = createExplainTool();
		const moveOn = {
			type: "tool-ask",
			toolCallId: "choice",
			state: "output-available",
			input: {},
			output: { answer: "move-on", label: "Move on", by },
		};
		const parts = [plan, check("q1", "unlike", { answer: "2/6", correct: false }), moveOn];
		expect(tool.settle(recap, ctx(turn(...parts)))).toMatchObject({
			kind: "error",
			errorText: expect.stringMatching(/^Recall comes before the recap/),
		});
		expect(tool.settle(recap, ctx(turn(...parts, recallAsk)))).toMatchObject({ kind: "output" });
	});
});
