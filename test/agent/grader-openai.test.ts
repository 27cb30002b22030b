import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobModelsOf, modelOf } from "../../src/cli/services.ts";
import { parseConfig } from "../../src/config.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../testkit/fakes/openai.ts";
import { assessmentInput, harness, learner, tempDir } from "./helpers.ts";

interface ChatBody {
	model: string;
	stream?: boolean;
	tools?: Array<{ function: { name: string } }>;
	response_format?: {
		type: string;
		json_schema?: { name?: string; schema?: { properties?: Record<string, unknown> } };
	};
	messages: Array<{ role: string; content: unknown }>;
}

const dir = tempDir();
let openai: FakeOpenAI;
beforeAll(async () => {
	openai = await startFakeOpenAI();
});
afterAll(async () => {
	await openai.close();
	dir.cleanup();
});

const freeQuiz = {
	question: "A list has 8 items. Checking one by one, how many do you check in the worst case?",
	correctAnswer: "8",
};

describe("the grader on an OpenAI-compatible server (LEARNHARNESS_MODEL_GRADER)", () => {
	it("grades on its own model with one structured-output request per undecided answer; a malformed verdict falls back", async () => {
		const parsed = parseConfig({
			LEARNHARNESS_MODEL: "compatible:fake-teacher",
			LEARNHARNESS_MODEL_GRADER: "compatible:fake-grader",
			OPENAI_BASE_URL: openai.baseURL,
		});
		if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
		const models = jobModelsOf(parsed.config);
		expect(models && Object.keys(models)).toEqual(["grader"]);
		openai.reply(
			{ text: "One question first.", toolCalls: [{ id: "call_p1", name: "quiz", arguments: freeQuiz }] },
			{ toolCalls: [{ id: "call_pd", name: "probe_done", arguments: assessmentInput }] },
			{ text: "Now a check.", toolCalls: [{ id: "call_t1", name: "quiz", arguments: { ...freeQuiz, type: "check" } }] },
			{ text: "Let's look at your words together." },
		);
		openai.replyStructured(
			{ json: { verdict: "correct", reason: "All of the 8 items is 8." } },
			{ json: '{"verdict": "correct", "reason": ' }, // cut off: not JSON
		);
		const h = await harness(dir.path, modelOf(parsed.config), { ...(models ? { models } : {}) });
		const sessionId = "terminal:grader-openai";
		await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		const first = {
			type: "reply",
			toolCallId: "call_p1",
			text: "I'd have to look at all of them",
			by: learner,
		} as const;
		expect(await h.tutor.handle(sessionId, first)).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		const second = { type: "reply", toolCallId: "call_t1", text: "as many as there are", by: learner } as const;
		expect(await h.tutor.handle(sessionId, second)).toEqual({ ok: true });
		await h.tutor.idle(sessionId);

		const finals = h.of("answered").filter((a) => a.checking !== true);
		expect(finals.map((a) => a.result)).toEqual([
			{
				answer: "I'd have to look at all of them",
				correct: true,
				judged: "grader",
				reason: "All of the 8 items is 8.",
				by: learner,
			},
			{ answer: "as many as there are", judged: "unsure", by: learner },
		]);
		expect(h.of("answered").filter((a) => a.checking === true)).toHaveLength(2);
		expect(h.of("error")).toHaveLength(0);
		expect(h.of("text").at(-1)?.text).toBe("Let's look at your words together.");

		// The fake's log: exactly one structured-output request per undecided answer, on the grader's model.
		const bodies = openai.requests.map((r) => r.body as unknown as ChatBody);
		const grading = bodies.filter((b) => b.response_format !== undefined);
		expect(grading).toHaveLength(2);
		expect(openai.structuredRequests()).toHaveLength(2);
		for (const body of grading) {
			expect(body.model).toBe("fake-grader");
			expect(body.response_format?.type).toBe("json_schema");
			expect(body.response_format?.json_schema?.name).toBe("learnharness_grade");
			expect(Object.keys(body.response_format?.json_schema?.schema?.properties ?? {})).toEqual([
				"verdict",
				"reason",
				"intent",
			]);
			expect(body.tools).toBeUndefined();
		}
		expect(JSON.stringify(grading[0]?.messages)).toContain("I'd have to look at all of them");
		const lesson = bodies.filter((b) => b.response_format === undefined);
		expect(lesson).toHaveLength(4);
		expect(lesson.every((b) => b.model === "fake-teacher")).toBe(true);
		// The teacher saw the grader's verdict and reason as the quiz's result.
		expect(JSON.stringify(lesson[1]?.messages)).toContain("All of the 8 items is 8.");
		expect(openai.remaining()).toBe(0);
		await h.tutor.close();
	});
});
