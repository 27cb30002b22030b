/**
 * A lesson on OpenAI's Responses API (what `openai:gpt-4.1-mini` and a bare model id with OPENAI_API_KEY
 * use), through the real `@ai-sdk/openai` provider against the fake's `/v1/responses`, which refuses what
 * OpenAI refuses: a function tool is strict unless it says `strict: false`, and a strict schema needs every
 * property required (a free-answer quiz, whose `options` is optional, cannot be said in it). From the
 * probe to the recap, with a free-answer quiz and a typed answer the grader judges (its structured output
 * through `text.format`).
 */

import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../testkit/fakes/openai.ts";
import { strictSchemaProblem } from "../../testkit/fakes/openai-responses.ts";
import { assessmentInput, harness, learner, planMermaid, tempDir } from "./helpers.ts";

const dir = tempDir();
let openai: FakeOpenAI;
beforeAll(async () => {
	openai = await startFakeOpenAI();
});
afterAll(async () => {
	await openai.close();
	dir.cleanup();
});

interface ResponsesBody {
	model: string;
	stream?: boolean;
	tools?: Array<{ type: string; name: string; strict?: boolean; parameters: unknown }>;
	text?: { format?: { type: string; name?: string; strict?: boolean } };
	input: unknown[];
}

const freeQuiz = {
	question: "A list has 8 items. Checking one by one, how many do you check in the worst case?",
	correctAnswer: "8",
};

describe("the fake's strict-schema rule (as OpenAI documents it)", () => {
	it("refuses an optional property, a missing additionalProperties: false and minLength; accepts a strict schema", () => {
		const strict = {
			type: "object",
			properties: { a: { type: "string" }, b: { type: ["string", "null"] } },
			required: ["a", "b"],
			additionalProperties: false,
		};
		expect(strictSchemaProblem(strict)).toBeUndefined();
		expect(strictSchemaProblem({ ...strict, required: ["a"] })).toMatch(/Missing 'b'/);
		expect(strictSchemaProblem({ ...strict, additionalProperties: undefined })).toMatch(/additionalProperties/);
		expect(
			strictSchemaProblem({ ...strict, properties: { ...strict.properties, a: { type: "string", minLength: 1 } } }),
		).toMatch(/'minLength' is not permitted/);
	});
});

describe("a lesson on the Responses API (openai:gpt-4.1-mini)", () => {
	it("runs from the probe to the recap with a free-answer quiz and a graded typed answer", async () => {
		const model = createOpenAI({ baseURL: openai.baseURL, apiKey: "test-key" })("gpt-4.1-mini");
		openai.reply(
			{ text: "One question first.", toolCalls: [{ id: "call_p1", name: "quiz", arguments: freeQuiz }] },
			{ toolCalls: [{ id: "call_pd", name: "probe_done", arguments: assessmentInput }] },
			{ toolCalls: [{ id: "call_plan", name: "plan_init", arguments: { mermaid: planMermaid } }] },
			{
				text: "Now a check.",
				toolCalls: [{ id: "call_t1", name: "quiz", arguments: { ...freeQuiz, type: "check" } }],
			},
			{ text: "Right: every item, 8 checks. That's the lesson: linear search looks at each item in turn." },
		);
		openai.replyStructured({ json: { verdict: "correct", reason: "All 8 items is 8 checks." } });
		const h = await harness(dir.path, model);
		const sessionId = "terminal:openai-responses";
		await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("error")).toEqual([]);
		expect(h.of("quiz")[0]).toMatchObject({ toolCallId: "call_p1" });

		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "call_p1", text: "8", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("assessment")).toHaveLength(1);
		expect(h.of("plan").length).toBeGreaterThan(0);

		const typed = {
			type: "reply",
			toolCallId: "call_t1",
			text: "I'd have to look at all of them",
			by: learner,
		} as const;
		expect(await h.tutor.handle(sessionId, typed)).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		const finals = h.of("answered").filter((a) => a.checking !== true);
		expect(finals.map((a) => a.result)).toEqual([
			{ answer: "8", correct: true, by: learner },
			{
				answer: "I'd have to look at all of them",
				correct: true,
				judged: "grader",
				reason: "All 8 items is 8 checks.",
				by: learner,
			},
		]);
		expect(h.of("text").at(-1)?.text).toMatch(/^Right: every item/);
		expect(h.of("error")).toEqual([]);
		expect(openai.remaining()).toBe(0);

		const bodies = openai.requests.map((r) => r.body as unknown as ResponsesBody);
		expect(openai.requests.every((r) => r.path === "/v1/responses")).toBe(true);
		const lesson = bodies.filter((b) => b.text?.format?.type !== "json_schema");
		expect(lesson).toHaveLength(5);
		for (const body of lesson) {
			expect(body.stream).toBe(true);
			// Every function tool says strict: false (OpenAI would otherwise hold it to strict mode).
			expect(body.tools?.every((t) => t.type === "function" && t.strict === false)).toBe(true);
		}
		const grading = bodies.filter((b) => b.text?.format?.type === "json_schema");
		expect(grading).toHaveLength(1);
		expect(grading[0]?.text?.format?.name).toBe("learnharness_grade");
		await h.tutor.close();
	});
});
