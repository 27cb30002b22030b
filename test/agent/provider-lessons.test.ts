/**
 * A whole lesson on anthropic: and google: against fakes as strict as the services (anthropic-rules.ts and
 * google-rules.ts: a tool call answered in the next turn, no empty text, tool names and schemas the API takes):
 * from the probe to the recap, with a free-answer quiz, a map and a typed answer the grader judges (structured
 * output on each provider). The models come from the configuration (LEARNHARNESS_MODEL=anthropic:… or google:…
 * with their keys and base URLs, through parseConfig and the provider registry). A fake answers 400 to any request
 * its service would refuse, so a lesson that ends without an error sent only requests the service takes.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelOf } from "../../src/cli/services.ts";
import { parseConfig } from "../../src/config.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../../testkit/fakes/anthropic.ts";
import { anthropicRequestProblem } from "../../testkit/fakes/anthropic-rules.ts";
import { type FakeGoogle, startFakeGoogle } from "../../testkit/fakes/google.ts";
import { googleRequestProblem } from "../../testkit/fakes/google-rules.ts";
import type { FakeReply } from "../../testkit/fakes/openai.ts";
import { assessmentInput, harness, learner, planMermaid, tempDir } from "./helpers.ts";

const dir = tempDir();
let anthropic: FakeAnthropic;
let google: FakeGoogle;
beforeAll(async () => {
	[anthropic, google] = await Promise.all([startFakeAnthropic(), startFakeGoogle()]);
});
afterAll(async () => {
	await Promise.all([anthropic.close(), google.close()]);
	dir.cleanup();
});

const freeQuiz = {
	question: "A list has 8 items. Checking one by one, how many do you check in the worst case?",
	correctAnswer: "8",
};

/** The lesson's model replies with tool-call ids `prefix_…`, the grader's verdict in its place. */
const lesson = (prefix: string): FakeReply[] => [
	{ text: "One question first.", toolCalls: [{ id: `${prefix}_p1`, name: "quiz", arguments: freeQuiz }] },
	{ toolCalls: [{ id: `${prefix}_pd`, name: "probe_done", arguments: assessmentInput }] },
	{ toolCalls: [{ id: `${prefix}_plan`, name: "plan_init", arguments: { mermaid: planMermaid } }] },
	{
		text: "Now a check.",
		toolCalls: [{ id: `${prefix}_t1`, name: "quiz", arguments: { ...freeQuiz, type: "check" } }],
	},
	{ json: { verdict: "correct", reason: "All 8 items is 8 checks." } },
	{ text: "Right: every item, 8 checks. That's the lesson: linear search looks at each item in turn." },
];

async function runLesson(model: ReturnType<typeof modelOf>, sessionId: string) {
	const h = await harness(dir.path, model);
	await h.tutor.startLesson({ sessionId, topic: "linear search", learner, mode: "solo" });
	await h.tutor.idle(sessionId);
	expect(h.of("error")).toEqual([]);
	const probe = h.of("quiz")[0]?.toolCallId ?? "";
	await h.tutor.handle(sessionId, { type: "reply", toolCallId: probe, text: "8", by: learner });
	await h.tutor.idle(sessionId);
	expect(h.of("assessment")).toHaveLength(1);
	expect(h.of("plan").length).toBeGreaterThan(0);
	const check = h.of("quiz")[1]?.toolCallId ?? "";
	const typed = { type: "reply", toolCallId: check, text: "I'd have to look at all of them", by: learner } as const;
	expect(await h.tutor.handle(sessionId, typed)).toEqual({ ok: true });
	await h.tutor.idle(sessionId);
	expect(h.of("error")).toEqual([]);
	expect(
		h
			.of("answered")
			.filter((a) => a.checking !== true)
			.map((a) => a.result),
	).toEqual([
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
	await h.tutor.close();
}

describe("a lesson on the strict provider fakes, from the configuration", () => {
	it("anthropic:claude-sonnet-4-5 from the probe to the recap; every request one the Messages API takes", async () => {
		anthropic.reply(...lesson("toolu"));
		const parsed = parseConfig({
			LEARNHARNESS_MODEL: "anthropic:claude-sonnet-4-5",
			ANTHROPIC_API_KEY: "test-anthropic",
			ANTHROPIC_BASE_URL: anthropic.baseURL,
		});
		if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
		await runLesson(modelOf(parsed.config), "terminal:anthropic-lesson");
		expect(anthropic.remaining()).toBe(0);
		expect(anthropic.requests).toHaveLength(6);
		for (const request of anthropic.requests) expect(anthropicRequestProblem(request.body)).toBeUndefined();
		expect(new Set(anthropic.requests.map((r) => r.body.model))).toEqual(new Set(["claude-sonnet-4-5"]));
	});

	it("google:gemini-2.5-flash from the probe to the recap; every request one the Gemini API takes", async () => {
		google.reply(...lesson("unused"));
		const parsed = parseConfig({
			LEARNHARNESS_MODEL: "google:gemini-2.5-flash",
			GOOGLE_GENERATIVE_AI_API_KEY: "test-google",
			GOOGLE_GENERATIVE_AI_BASE_URL: google.baseURL,
		});
		if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
		await runLesson(modelOf(parsed.config), "terminal:google-lesson");
		expect(google.remaining()).toBe(0);
		expect(google.requests).toHaveLength(6);
		for (const request of google.requests) expect(googleRequestProblem(request.body)).toBeUndefined();
		expect(google.requests.every((r) => r.path.includes("/models/gemini-2.5-flash:"))).toBe(true);
	});
});
