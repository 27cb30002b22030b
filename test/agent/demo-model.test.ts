import type {
	LanguageModelV3CallOptions,
	LanguageModelV3FunctionTool,
	LanguageModelV3Message,
	LanguageModelV3Prompt,
	LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { jsonSchema, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { DEMO_HELD } from "../../src/agent/models/demo-lesson.ts";
import { createDemoModel, findTopic, planDemoReply } from "../../src/agent/models/demo-model.ts";
import type { TutorEvent } from "../../src/core/contracts/events.ts";
import { parsePlanMermaid } from "../../src/core/plan-mermaid.ts";
import { validateToolInput } from "../../src/core/tool-parts.ts";

const fn = (name: string): LanguageModelV3FunctionTool => ({ type: "function", name, inputSchema: { type: "object" } });
const PROBER_TOOLS = ["quiz", "ask", "probe_done"].map(fn);
const TEACHER_TOOLS = ["quiz", "ask", "explain", "plan_init"].map(fn);

interface Played {
	toolName: string;
	input: Record<string, unknown>;
	text: string;
}

/** Plays one agent against the model like the engine would, answering with `answer`. */
async function play(
	tools: LanguageModelV3FunctionTool[],
	prompt: LanguageModelV3Message[],
	answer: (toolName: string, input: Record<string, unknown>) => unknown,
	maxSteps = 40,
): Promise<{ played: Played[]; finalText: string }> {
	const model = createDemoModel();
	const played: Played[] = [];
	for (let i = 0; i < maxSteps; i++) {
		const result = await model.doGenerate({ prompt, tools } as LanguageModelV3CallOptions);
		const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
		const call = result.content.find((c) => c.type === "tool-call");
		if (call?.type !== "tool-call") {
			expect(result.finishReason.unified).toBe("stop");
			return { played, finalText: text };
		}
		expect(result.finishReason.unified).toBe("tool-calls");
		expect(typeof call.input).toBe("string");
		const input = JSON.parse(call.input) as Record<string, unknown>;
		played.push({ toolName: call.toolName, input, text });
		const content: Extract<LanguageModelV3Message, { role: "assistant" }>["content"] = [];
		if (text) content.push({ type: "text", text });
		content.push({ type: "tool-call", toolCallId: call.toolCallId, toolName: call.toolName, input });
		prompt.push({ role: "assistant", content });
		prompt.push({
			role: "tool",
			content: [
				{
					type: "tool-result",
					toolCallId: call.toolCallId,
					toolName: call.toolName,
					output: { type: "json", value: answer(call.toolName, input) as never },
				},
			],
		});
	}
	throw new Error("the demo model never ended its turn");
}

const rightAnswers = (toolName: string, input: Record<string, unknown>): unknown => {
	if (toolName === "quiz") return { answer: input.correctAnswer, correct: true, by: { id: "u" } };
	if (toolName === "ask") return { answer: "solid", by: { id: "u" } };
	if (toolName === "plan_init") return { ok: true, tree: parsePlanMermaid(String(input.mermaid)) };
	return { ok: true };
};

const wrongAnswers = (toolName: string, input: Record<string, unknown>): unknown => {
	if (toolName === "quiz") return { answer: "nope", correct: false, by: { id: "u" } };
	if (toolName === "ask") return { answer: "new", by: { id: "u" } };
	return rightAnswers(toolName, input);
};

const opening = (): LanguageModelV3Message[] => [
	{ role: "system", content: "You are the prober." },
	{ role: "user", content: [{ type: "text", text: "Topic: quantum tunnelling" }] },
];

describe("demo model: prober", () => {
	it("opens by saying it is the demo and how to configure a real model, naming the requested topic", () => {
		const reply = planDemoReply({ prompt: opening(), tools: PROBER_TOOLS });
		expect(reply.text).toMatch(/built-in demo/);
		expect(reply.text).toMatch(/OPENAI_API_KEY/);
		expect(reply.text).toMatch(/quantum tunnelling/);
		expect(reply.call?.toolName).toBe("quiz");
	});

	it("asks three questions whose inputs pass the real boundary, then concludes with a valid probe_done", async () => {
		const { played, finalText } = await play(PROBER_TOOLS, opening(), rightAnswers);
		expect(played.map((p) => p.toolName)).toEqual(["quiz", "quiz", "quiz", "probe_done"]);
		// The second is one a novice naturally answers with Not sure, and says so.
		expect(played[1]?.text).toMatch(/Not sure\*\* is a fine answer/);
		for (const p of played.slice(0, 3)) {
			const kind = p.toolName === "ask" ? "ask" : "proberQuiz";
			expect(validateToolInput(kind, p.input)).toMatchObject({ ok: true });
		}
		const done = validateToolInput<{ assessment: { strands: unknown[] } }>("probeDone", played[3]?.input);
		expect(done.ok).toBe(true);
		if (done.ok) expect(done.value.assessment.strands.length).toBeGreaterThanOrEqual(2);
		expect(finalText.length).toBeGreaterThan(0);
	});

	it("reacts differently to right and wrong answers and reflects them in the assessment", async () => {
		const right = await play(PROBER_TOOLS, opening(), rightAnswers);
		const wrong = await play(PROBER_TOOLS, opening(), wrongAnswers);
		expect(right.played[1]?.text).toMatch(/^Yes/);
		expect(wrong.played[1]?.text).not.toMatch(/^Yes/);
		expect(JSON.stringify(right.played[3]?.input)).not.toEqual(JSON.stringify(wrong.played[3]?.input));
	});

	it("answers a typed message mid-lesson and carries on", () => {
		const prompt = opening();
		const first = planDemoReply({ prompt, tools: PROBER_TOOLS });
		const id = first.call?.toolCallId ?? "";
		prompt.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "quiz", input: {} }] });
		prompt.push({
			role: "tool",
			content: [
				{
					type: "tool-result",
					toolCallId: id,
					toolName: "quiz",
					output: { type: "json", value: { answer: "", skipped: true } },
				},
			],
		});
		prompt.push({ role: "user", content: [{ type: "text", text: "what's the weather?" }] });
		const reply = planDemoReply({ prompt, tools: PROBER_TOOLS });
		expect(reply.text).toMatch(/demo model/);
		expect(reply.call?.toolName).toBe("quiz");
	});
});

describe("demo model: teacher", () => {
	it("maps, then predict → explain → check per node tagged with real plan nodes, then recall, a recap, then ends", async () => {
		const { played, finalText } = await play(TEACHER_TOOLS, opening(), rightAnswers);
		expect(played[0]?.toolName).toBe("plan_init");
		const plan = parsePlanMermaid(String(played[0]?.input.mermaid));
		expect(plan.ok).toBe(true);
		if (!plan.ok) return;
		expect(plan.tree.nodes.length).toBeGreaterThanOrEqual(4);
		expect(plan.tree.nodes.length).toBeLessThanOrEqual(5);
		const ids = plan.tree.nodes.map((n) => n.id);
		const body = played.slice(1, -2);
		expect(body).toHaveLength(ids.length * 3);
		ids.forEach((id, i) => {
			const [predict, explain, check] = body.slice(i * 3, i * 3 + 3);
			expect(predict).toMatchObject({ toolName: "quiz", input: { type: "predict", nodeId: id } });
			expect(explain).toMatchObject({ toolName: "explain", input: { nodeId: id } });
			expect(check).toMatchObject({ toolName: "quiz", input: { type: "check", nodeId: id } });
			for (const q of [predict, check]) expect(validateToolInput("teacherQuiz", q?.input)).toMatchObject({ ok: true });
			expect(validateToolInput("explain", explain?.input)).toMatchObject({ ok: true });
		});
		expect(played.at(-2)).toMatchObject({
			toolName: "ask",
			input: { question: expect.stringMatching(/what did you learn/) },
		});
		expect(played.at(-1)).toMatchObject({ toolName: "explain", input: { role: "recap" } });
		// Varied lines: no two nodes open their prediction (or their check) with the same words.
		const leads = body.filter((p) => p.toolName === "quiz").map((p) => p.text);
		expect(new Set(leads).size).toBe(leads.length);
		expect(finalText).toMatch(/end of the demo lesson/);
	});

	it("ignores the prober's calls in the transcript it inherits", async () => {
		const prompt = opening();
		const probe = await play(PROBER_TOOLS, prompt, rightAnswers);
		expect(probe.played).toHaveLength(4);
		expect(prompt.length).toBeGreaterThan(8);
		const first = planDemoReply({ prompt, tools: TEACHER_TOOLS });
		expect(first.call?.toolName).toBe("plan_init");
	});
});

describe("demo model: the LanguageModelV3 surface", () => {
	it("streams text then a tool call with a JSON string input and a finish with usage", async () => {
		const model = createDemoModel();
		const { stream } = await model.doStream({ prompt: opening(), tools: PROBER_TOOLS } as LanguageModelV3CallOptions);
		const parts: LanguageModelV3StreamPart[] = [];
		const reader = stream.getReader();
		for (let i = 0; i < 10_000; i++) {
			const { done, value } = await reader.read();
			if (done) break;
			parts.push(value);
		}
		const types = parts.map((p) => p.type);
		expect(types[0]).toBe("stream-start");
		expect(types).toContain("text-delta");
		expect(types.indexOf("text-end")).toBeLessThan(types.indexOf("tool-call"));
		const call = parts.find((p) => p.type === "tool-call");
		expect(call?.type === "tool-call" && typeof call.input === "string").toBe(true);
		const finish = parts.at(-1);
		expect(finish?.type).toBe("finish");
		if (finish?.type === "finish") {
			expect(finish.finishReason.unified).toBe("tool-calls");
			expect(finish.usage.inputTokens.total).toBeGreaterThan(0);
		}
	});

	it("works under the AI SDK's streamText with client-side tools", async () => {
		const schema = jsonSchema<Record<string, unknown>>({ type: "object" });
		const result = streamText({
			model: createDemoModel(),
			messages: [{ role: "user", content: "Topic: rust lifetimes" }],
			tools: {
				quiz: tool({ inputSchema: schema }),
				ask: tool({ inputSchema: schema }),
				probe_done: tool({ inputSchema: schema }),
			},
		});
		const calls = await result.toolCalls;
		expect(calls).toHaveLength(1);
		expect(calls[0]?.toolName).toBe("quiz");
		expect(await result.text).toMatch(/rust lifetimes/);
		expect(await result.finishReason).toBe("tool-calls");
	});

	it("answers a plain request without tools with text", () => {
		const reply = planDemoReply({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [] });
		expect(reply.call).toBeUndefined();
		expect(reply.text).toMatch(/demo/);
	});

	it("finds the topic in the usual phrasings and nothing when absent", () => {
		const user = (text: string): LanguageModelV3Prompt => [{ role: "user", content: [{ type: "text", text }] }];
		expect(findTopic(user("Topic: linear algebra"))).toBe("linear algebra");
		expect(findTopic(user('The **topic**: "photosynthesis".'))).toBe("photosynthesis");
		expect(findTopic(user("hello"))).toBeUndefined();
	});
});

describe("demo model on the real engine (createTutor, in-memory store)", () => {
	it("plays the whole lesson: probe, assessment, plan, a move per node, recap, completed", async () => {
		const { createTutor, createSessionStore } = await import("../../src/agent/index.ts");
		const tutor = createTutor({ model: createDemoModel(), store: await createSessionStore("memory://") });
		const events: TutorEvent[] = [];
		tutor.subscribe((e) => {
			events.push(e);
		});
		const by = { id: "u1" };
		const sessionId = "terminal:demo-test";
		expect(await tutor.startLesson({ sessionId, topic: "binary search", learner: by, mode: "solo" })).toEqual({
			ok: true,
		});
		const answered = new Set<string>();
		for (let i = 0; i < 40 && !events.some((e) => e.type === "ended"); i++) {
			await tutor.idle(sessionId);
			const open = events.find(
				(e): e is Extract<TutorEvent, { type: "quiz" | "ask" }> =>
					(e.type === "quiz" || e.type === "ask") && !answered.has(e.toolCallId),
			);
			if (!open) break;
			answered.add(open.toolCallId);
			const event =
				open.type === "quiz" && open.input.options
					? { type: "answer" as const, toolCallId: open.toolCallId, value: open.input.correctAnswer, by }
					: open.type === "quiz"
						? { type: "reply" as const, toolCallId: open.toolCallId, text: open.input.correctAnswer, by }
						: { type: "answer" as const, toolCallId: open.toolCallId, value: 0, by };
			expect(await tutor.handle(sessionId, event)).toEqual({ ok: true });
		}
		await tutor.idle(sessionId);
		await tutor.close();
		expect(events.filter((e) => e.type === "error")).toEqual([]);
		expect(events.some((e) => e.type === "assessment")).toBe(true);
		const plans = events.filter((e) => e.type === "plan");
		// The basics shown in the probe: the map skips "Sorted input" (three nodes, three moves).
		expect(plans.map((p) => p.reason)).toEqual(["init", "moved", "moved", "moved"]);
		const first = plans[0];
		expect(first?.type === "plan" && first.tree.nodes.map((n) => n.id)).toEqual([
			"check-middle",
			"shrink-range",
			"count-steps",
		]);
		const graded = events.filter((e) => e.type === "answered" && e.kind === "quiz");
		// 3 probe quizzes; predict and check on two nodes; on "Count the steps" only the check (halving is known).
		expect(graded.length).toBe(8);
		for (const g of graded) expect(g.type === "answered" && g.result.correct).toBe(true);
		expect(events.some((e) => e.type === "explain" && e.input.role === "recap")).toBe(true);
		expect(events.at(-1)).toMatchObject({ type: "ended", reason: "completed" });
	});
});

describe("demo model on the real engine: learners who do not follow the script", () => {
	type Question = Extract<TutorEvent, { type: "quiz" | "ask" }>;
	/** Play a lesson, answering each new question with `act` (undefined: stop); at most 40 rounds. */
	async function playWith(act: (q: Question) => import("../../src/core/contracts/events.ts").LearnerEvent | undefined) {
		const { createTutor, createSessionStore } = await import("../../src/agent/index.ts");
		const store = await createSessionStore("memory://");
		const tutor = createTutor({ model: createDemoModel(), store });
		const events: TutorEvent[] = [];
		tutor.subscribe((e) => void events.push(e));
		const sessionId = "terminal:demo-odd";
		await tutor.startLesson({ sessionId, topic: "binary search", learner: by, mode: "solo" });
		const seen = new Set<string>();
		for (let i = 0; i < 40 && !events.some((e) => e.type === "ended"); i++) {
			await tutor.idle(sessionId);
			const open = events.find(
				(e): e is Question => (e.type === "quiz" || e.type === "ask") && !seen.has(e.toolCallId),
			);
			if (!open) break;
			seen.add(open.toolCallId);
			const event = act(open);
			if (!event) break;
			expect(await tutor.handle(sessionId, event)).toEqual({ ok: true });
			// A missed check stays open for a second try: the learner acts on it once more.
			await tutor.idle(sessionId);
			const missed = events.some((e) => e.type === "attempt" && e.toolCallId === open.toolCallId);
			const stillOpen = (await tutor.getSession(sessionId))?.pending.some((p) => p.toolCallId === open.toolCallId);
			const again = missed && stillOpen ? act(open) : undefined;
			if (again) expect(await tutor.handle(sessionId, again)).toEqual({ ok: true });
		}
		await tutor.idle(sessionId);
		const summary = await tutor.getSession(sessionId);
		const record = await store.get(sessionId);
		await tutor.close();
		return { events, summary, record, of: <T extends TutorEvent["type"]>(t: T) => events.filter((e) => e.type === t) };
	}
	const by = { id: "u1" };

	it("a learner who types instead of answering: the question stays open, the demo says so and asks nothing new", async () => {
		const run = await playWith(() => ({ type: "message", text: "hmm, tell me more", by }));
		expect(run.of("error")).toEqual([]);
		expect(run.of("answered")).toEqual([]);
		const asked = run.of("quiz") as Array<Extract<TutorEvent, { type: "quiz" }>>;
		const first = asked[0]?.toolCallId;
		// Offered again under the demo's reply, and still the only question.
		expect(asked.map((q) => [q.toolCallId, q.again === true])).toEqual([
			[first, false],
			[first, true],
		]);
		expect(run.summary?.pending.map((p) => p.toolCallId)).toEqual([first]);
		const texts = (run.of("text") as Array<Extract<TutorEvent, { type: "text" }>>).map((t) => t.text);
		expect(texts.at(-1)).toBe(DEMO_HELD);
	});

	it("a learner who answers everything wrong gets the wrong-answer feedback and an assessment that says so", async () => {
		const run = await playWith((q) => {
			// The choice after a missed second look: one more question (the free recall ask gets typed words).
			if (q.type === "ask" && q.input.options?.some((o) => o.value === "again"))
				return { type: "answer", toolCallId: q.toolCallId, value: "again", by };
			if (q.type === "ask") return { type: "answer", toolCallId: q.toolCallId, value: "new", by };
			const wrong = q.input.options?.find((o) => o !== q.input.correctAnswer);
			return wrong !== undefined
				? { type: "answer", toolCallId: q.toolCallId, value: wrong, by }
				: { type: "reply", toolCallId: q.toolCallId, text: "42", by };
		});
		expect(run.of("error")).toEqual([]);
		expect(run.of("ended")).toMatchObject([{ reason: "completed" }]);
		const graded = (run.of("answered") as Array<Extract<TutorEvent, { type: "answered" }>>).filter(
			(a) => a.kind === "quiz",
		);
		// 3 probe quizzes + predict and check on each of the 4 nodes + two more checks on each (then it is let go).
		expect(graded).toHaveLength(19);
		expect(graded.every((a) => a.result.correct === false)).toBe(true);
		const choices = (run.of("ask") as Array<Extract<TutorEvent, { type: "ask" }>>).filter((a) => a.input.options);
		expect(choices).toHaveLength(4); // one "one more, or move on?" per node, after its first missed second look
		const assessment = run.of("assessment")[0] as Extract<TutorEvent, { type: "assessment" }>;
		expect(JSON.stringify(assessment.assessment)).toMatch(/Did not reach for the middle/);
		const texts = (run.of("text") as Array<Extract<TutorEvent, { type: "text" }>>).map((t) => t.text).join("\n");
		expect(texts).toMatch(/Not quite/);
		expect(texts).not.toMatch(/well done/i);
	});

	/** Right answers, except a wrong one on the first `misses` checks of `nodeId`; `choice` answers the move-on ask. */
	const missing =
		(nodeId: string, misses: number, choice = "again") =>
		(q: Question): import("../../src/core/contracts/events.ts").LearnerEvent => {
			if (q.type === "ask" && q.input.options?.some((o) => o.value === "move-on"))
				return { type: "answer", toolCallId: q.toolCallId, value: choice, by };
			if (q.type === "ask") return { type: "answer", toolCallId: q.toolCallId, value: "sorted lists, halving", by };
			const input = q.input;
			const wrongOne = input.type === "check" && q.type === "quiz" && q.nodeId === nodeId && misses-- > 0;
			const value = wrongOne ? (input.options?.find((o) => o !== input.correctAnswer) ?? "0") : input.correctAnswer;
			return input.options
				? { type: "answer", toolCallId: q.toolCallId, value, by }
				: { type: "reply", toolCallId: q.toolCallId, text: value, by };
		};
	const order = (run: Awaited<ReturnType<typeof playWith>>) =>
		run.events
			.filter((e) => e.type === "quiz" || e.type === "ask" || (e.type === "explain" && e.input.role === "recap"))
			.map((e) =>
				e.type === "quiz"
					? `${e.input.type ?? "probe"}:${e.nodeId ?? ""}`
					: e.type === "ask"
						? e.input.options
							? "choice"
							: "recall"
						: "recap",
			);

	it("a missed check comes back before the recap: a fresh check on that node, then the recall and the recap", async () => {
		const run = await playWith(missing("shrink-range", 2));
		expect(run.of("error")).toEqual([]);
		expect(run.of("ended")).toMatchObject([{ reason: "completed" }]);
		const steps = order(run);
		// After the last node's check, a second look at the shaky node (right this time), then recall, then recap.
		expect(steps.slice(-4)).toEqual(["check:count-steps", "check:shrink-range", "recall", "recap"]);
		const revisit = run.of("quiz").at(-1) as Extract<TutorEvent, { type: "quiz" }>;
		const first = (run.of("quiz") as Array<Extract<TutorEvent, { type: "quiz" }>>).find(
			(q) => q.input.type === "check" && q.nodeId === "shrink-range",
		);
		expect(revisit.input.question).not.toBe(first?.input.question); // a fresh case, not the one missed
		const texts = (run.of("text") as Array<Extract<TutorEvent, { type: "text" }>>).map((t) => t.text).join("\n");
		expect(texts).toMatch(/back to \*\*Shrink the range\*\*: it was shaky earlier/);
		// The explain tool never had to refuse the demo's recap.
		expect(JSON.stringify(run.record?.messages)).not.toMatch(/Shaky ideas come back before the recap/);
	});

	it("a second look that misses again: the learner chooses to move on, and the recap follows", async () => {
		const run = await playWith(missing("check-middle", 4, "move-on"));
		expect(run.of("ended")).toMatchObject([{ reason: "completed" }]);
		expect(order(run).slice(-5)).toEqual(["check:count-steps", "check:check-middle", "choice", "recall", "recap"]);
		expect(JSON.stringify(run.record?.messages)).not.toMatch(/Shaky ideas come back before the recap/);
	});

	it("a learner who ends early: the open question is skipped, nothing else is asked", async () => {
		let rounds = 0;
		const run = await playWith((q) =>
			rounds++ === 0 ? { type: "answer", toolCallId: q.toolCallId, value: 1, by } : { type: "end", by },
		);
		expect(run.of("error")).toEqual([]);
		expect(run.of("ended")).toMatchObject([{ reason: "ended-by-user" }]);
		expect(run.of("assessment")).toHaveLength(0);
		expect(run.of("quiz")).toHaveLength(2); // the second probe question, skipped by the end
		expect(run.summary?.phase).toBe("ended");
		expect(run.summary?.pending).toEqual([]);
	});

	it("after a restart cut off its plan_init, the re-run turn calls plan_init again", async () => {
		const { createTutor, createSessionStore } = await import("../../src/agent/index.ts");
		const store = await createSessionStore("memory://");
		const first = createTutor({ model: createDemoModel(), store });
		const events: TutorEvent[] = [];
		first.subscribe((e) => void events.push(e));
		const sessionId = "terminal:demo-cut";
		await first.startLesson({ sessionId, topic: "binary search", learner: by, mode: "solo" });
		// Answer the three probe questions.
		for (let i = 0; i < 3; i++) {
			await first.idle(sessionId);
			const q = events.filter((e): e is Question => e.type === "quiz" || e.type === "ask").at(-1)!;
			const event =
				q.type === "quiz" && !q.input.options
					? { type: "reply" as const, toolCallId: q.toolCallId, text: "8", by }
					: { type: "answer" as const, toolCallId: q.toolCallId, value: 0, by };
			await first.handle(sessionId, event);
		}
		await first.idle(sessionId);
		expect(events.find((e) => e.type === "plan")).toMatchObject({ reason: "init" });
		// Rewind to a crash right after the teacher's plan_init was streamed (no result yet).
		const record = (await store.get(sessionId))!;
		const at = record.messages.findIndex((m) => m.parts.some((p) => p.type === "tool-plan_init"));
		const cut = record.messages[at]!;
		const planPart = cut.parts.findIndex((p) => p.type === "tool-plan_init");
		record.messages = [
			...record.messages.slice(0, at),
			{
				...cut,
				parts: [
					...cut.parts.slice(0, planPart),
					{ ...(cut.parts[planPart] as object), state: "input-available", output: undefined } as never,
				],
			},
		];
		record.turnOpen = true;
		delete record.planShown;
		await store.set(record);
		// A new tutor on the same store (the memory store outlives the first tutor's close here).
		const second = createTutor({ model: createDemoModel(), store: { ...store, close: async () => {} } });
		const after: TutorEvent[] = [];
		second.subscribe((e) => void after.push(e));
		expect(await second.resume()).toBe(1);
		await second.idle(sessionId);
		expect(after.filter((e) => e.type === "error")).toEqual([]);
		expect(after.find((e) => e.type === "plan")).toMatchObject({ reason: "init" });
		expect(after.some((e) => e.type === "quiz")).toBe(true);
		await second.close();
		await first.close();
	});
});
