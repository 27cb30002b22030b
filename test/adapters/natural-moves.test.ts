/**
 * The learner's natural moves, once for every platform (Discord, Slack, the terminal), each through its real
 * adapter, the lesson controller, the real engine and SQLite: at an open check quiz the learner
 * 1. types a question of their own in the thread: the quiz stays open (never "skipped"), the tutor's model
 *    sees it pending and the question (Slack's escaped text decoded), and the quiz is offered again;
 * 2. types a wrong answer in the thread: it is judged like a form reply, a first miss, a second try, no turn;
 * 3. picks the right option: accepted, with the miss among its attempts, and the model reads it in a later
 *    message (it saw the call pending);
 * then at a free-answer check it
 * 4. asks for another explanation (the help control): the question stays open and is offered again;
 * 5. types words the judge cannot decide, which the grader marks wrong: a first miss like any other, a second try;
 * 6. types the right answer in the thread: accepted.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import { createLineSource } from "../../src/adapters/terminal/input.ts";
import { runPlayground } from "../../src/adapters/terminal/playground.ts";
import { createSessionStore, createTutor, openStateStore } from "../../src/agent/index.ts";
import type { TutorEvent } from "../../src/core/contracts/events.ts";
import { startFakeDiscord } from "../../testkit/fakes/discord.ts";
import { startFakeSlack } from "../../testkit/fakes/slack.ts";
import { scriptedModel } from "../../testkit/model-stream.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { assessmentInput, checkQuiz, planMermaid } from "../fixtures/lesson-script.ts";
import { customIds, startStack } from "./discord/helpers.ts";
import { controlsOf, startAdapter } from "./slack/harness.ts";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const QUESTION = "wait, why must the denominators match?";
const WRONG = "it is 2/6";
/** Words with no number in them: the judge cannot decide, the grader does. */
const VAGUE = "the sum of both parts";

/** A free-answer check (no options: typed answers only). */
const freeCheck = {
	name: "quiz",
	id: "c2",
	input: { type: "check", nodeId: "unlike", question: "(c2) Add 1/3 and 1/6 and simplify.", correctAnswer: "1/2" },
};

/** The lesson's model: the scripted turns, and (as the grader: a structured-output request) one verdict. */
const lesson = () => {
	const turns = scriptedModel([
		{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
		{ text: "Now check it.", calls: [checkQuiz("c1")] },
		{ text: "Because only like parts can be added." },
		{ text: "Right: 3/4.", calls: [freeCheck] },
		{ text: "Think of sixths: 2/6 + 1/6." },
		{ text: "Yes: 3/6 is 1/2." },
	]);
	const verdict = JSON.stringify({ verdict: "incorrect", reason: "Names no value.", intent: "answer" });
	return new MockLanguageModelV3({
		doStream: (options) => turns.doStream(options),
		doGenerate: async (): Promise<LanguageModelV3GenerateResult> => ({
			content: [{ type: "text", text: verdict }],
			finishReason: { unified: "stop", raw: "stop" },
			usage: {
				inputTokens: { total: 50, noCache: 50, cacheRead: 0, cacheWrite: 0 },
				outputTokens: { total: 12, text: 12, reasoning: 0 },
			},
			warnings: [],
		}),
	});
};

/** What a platform run leaves to check. */
interface Moves {
	events: TutorEvent[];
	requests: LanguageModelV3CallOptions[];
	/** Grading requests (structured output) made. */
	gradings: number;
	/** The learner's question as the model read it. */
	asked: string;
}

const dir = mkdtempSync(join(tmpdir(), "lh-moves-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const of = <T extends TutorEvent["type"]>(events: TutorEvent[], type: T) =>
	events.filter((e): e is Extract<TutorEvent, { type: T }> => e.type === type);

/** Resolves once `check` holds, polling (bounded by count, not by the clock's speed). */
async function until(check: () => boolean, what: string): Promise<void> {
	for (let i = 0; i < 3000; i++) {
		if (check()) return;
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	throw new Error(`never happened: ${what}`);
}

async function onDiscord(): Promise<Moves> {
	const fake = await startFakeDiscord();
	const model = lesson();
	const stack = await startStack(fake, model, { png: PNG });
	try {
		const learner = fake.users.learner;
		fake.slash({ user: learner, channelId: fake.ids.general, subcommand: "start", options: { topic: "fractions" } });
		const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
		const cards = () =>
			fake.channelMessages(thread.id).filter((m) => customIds(m).some((c) => c.split(":")[2] === "c1"));
		await fake.waitFor(() => cards()[0], "the check's card", 15_000);
		fake.say({ user: learner, channelId: thread.id, content: QUESTION });
		await fake.waitFor(() => cards()[1], "the check offered again", 15_000);
		fake.say({ user: learner, channelId: thread.id, content: WRONG });
		await until(() => of(stack.events, "attempt").length > 0, "the first miss");
		// The missed card offers "Try again" (HELP_KINDS[1]); then its options come back.
		const button = (prefix: string) =>
			fake.waitFor(
				() => {
					const card = cards().find((m) => customIds(m).includes(prefix));
					return card ? { card, id: prefix } : undefined;
				},
				prefix,
				15_000,
			);
		const again = await button("lh:help:c1:1");
		fake.click({ user: learner, messageId: again.card.id, customId: again.id });
		const pick = await button("lh:pick:c1:1");
		fake.click({ user: learner, messageId: pick.card.id, customId: pick.id });
		await until(() => of(stack.events, "answered").length > 0 && model.doStreamCalls.length >= 5, "the answer");
		// The free-answer check: Explain another way (HELP_KINDS[2]), then typed answers in the thread.
		const c2 = () => fake.channelMessages(thread.id).filter((m) => customIds(m).includes("lh:help:c2:2"));
		const explain = await fake.waitFor(() => c2()[0], "the free check's card", 15_000);
		fake.click({ user: learner, messageId: explain.id, customId: "lh:help:c2:2" });
		await until(() => of(stack.events, "quiz").some((q) => q.toolCallId === "c2" && q.again === true), "c2 again");
		fake.say({ user: learner, channelId: thread.id, content: VAGUE });
		await until(() => of(stack.events, "attempt").some((a) => a.toolCallId === "c2"), "the grader's miss");
		fake.say({ user: learner, channelId: thread.id, content: "1/2" });
		await until(() => model.doStreamCalls.length >= 7, "the tutor's last reply");
		await stack.tutor.idle();
		return {
			events: stack.events,
			requests: model.doStreamCalls,
			gradings: model.doGenerateCalls.length,
			asked: QUESTION,
		};
	} finally {
		await stack.close();
		await fake.close();
	}
}

async function onSlack(): Promise<Moves> {
	const fake = await startFakeSlack({ users: [{ id: "U1", name: "bob" }] });
	const learner = { user: "U1", name: "bob", channel: "C1" };
	const model = lesson();
	const storeUrl = `sqlite://${join(dir, "slack.sqlite")}`;
	const tutor = createTutor({ model, store: await createSessionStore(storeUrl), maxRetries: 0 });
	const events: TutorEvent[] = [];
	tutor.subscribe((e) => void events.push(e));
	const state = openStateStore(storeUrl, "slack");
	const running = await startAdapter(fake, { tutor, renderer: stubRenderer(PNG), state });
	try {
		await running.sender.command("/lesson", "start fractions", learner);
		const parent = await fake.waitFor(() => [...fake.messages.values()].find((m) => !m.threadTs), "the parent");
		const cards = () =>
			[...fake.messages.values()].filter(
				(m) => m.threadTs === parent.ts && controlsOf(m).some((c) => c.actionId.split(":")[2] === "c1"),
			);
		const say = (text: string) =>
			running.sender.event({
				type: "message",
				user: "U1",
				text,
				ts: running.sender.nextTs(),
				channel: "C1",
				thread_ts: parent.ts,
			});
		await fake.waitFor(() => cards()[0], "the check's card", 15_000);
		// Typed with a `<`: the fake sends it escaped, as Slack escapes `<`, `>` and `&` in what people type.
		await say("wait, why must the denominators match if 1/2 < 3/4?");
		await fake.waitFor(() => cards()[1], "the check offered again", 15_000);
		await say(WRONG);
		await until(() => of(events, "attempt").length > 0, "the first miss");
		// The missed card offers "Try again" (HELP_KINDS[1]); then its options come back.
		const button = (id: string) =>
			fake.waitFor(() => cards().find((m) => controlsOf(m).some((c) => c.actionId === id)), id, 15_000);
		await running.sender.action(learner, (await button("lh:help:c1:1")).ts, { action_id: "lh:help:c1:1" });
		await running.sender.action(learner, (await button("lh:pick:c1:1")).ts, { action_id: "lh:pick:c1:1" });
		await until(() => of(events, "answered").length > 0 && model.doStreamCalls.length >= 5, "the answer");
		// The free-answer check: Explain another way (HELP_KINDS[2]), then typed answers in the thread.
		const explain = await fake.waitFor(
			() => [...fake.messages.values()].find((m) => controlsOf(m).some((c) => c.actionId === "lh:help:c2:2")),
			"the free check's card",
			15_000,
		);
		await running.sender.action(learner, explain.ts, { action_id: "lh:help:c2:2" });
		await until(() => of(events, "quiz").some((q) => q.toolCallId === "c2" && q.again === true), "c2 again");
		await say(VAGUE);
		await until(() => of(events, "attempt").some((a) => a.toolCallId === "c2"), "the grader's miss");
		await say("1/2");
		await until(() => model.doStreamCalls.length >= 7, "the tutor's last reply");
		await tutor.idle();
		return {
			events,
			requests: model.doStreamCalls,
			gradings: model.doGenerateCalls.length,
			asked: "wait, why must the denominators match if 1/2 < 3/4?",
		};
	} finally {
		await running.adapter.stop();
		await tutor.close();
		await state.close();
		await fake.close();
	}
}

async function onTerminal(): Promise<Moves> {
	const model = lesson();
	const tutor = createTutor({
		model,
		store: await createSessionStore(`sqlite://${join(dir, "t.sqlite")}`),
		maxRetries: 0,
	});
	const events: TutorEvent[] = [];
	tutor.subscribe((e) => void events.push(e));
	const out = new PassThrough();
	out.resume();
	try {
		// At the check's menu: the question, a wrong answer in words, then the right letter.
		const result = await runPlayground({
			tutor,
			renderer: stubRenderer(PNG),
			source: createLineSource(
				Readable.from([QUESTION, WRONG, "B", "explain", VAGUE, "1/2"].map((l) => `${l}\n`)),
				out,
			),
			output: out,
			topic: "fractions",
			learner: { id: "terminal-learner", name: "bob" },
			plansDir: join(dir, "plans"),
		});
		expect(result.outcome).toBe("input-ended");
		return { events, requests: model.doStreamCalls, gradings: model.doGenerateCalls.length, asked: QUESTION };
	} finally {
		await tutor.close();
	}
}

/** The result the `c1` quiz call had in a request (the JSON of its tool result). */
const c1Output = (request: LanguageModelV3CallOptions | undefined): string =>
	JSON.stringify(
		request?.prompt.flatMap((m) =>
			m.role === "tool" ? m.content.filter((p) => p.type === "tool-result" && p.toolCallId === "c1") : [],
		),
	);

describe("the learner's natural moves, on every platform", { timeout: 120_000 }, () => {
	it.each([
		["discord", onDiscord],
		["slack", onSlack],
		["terminal", onTerminal],
	])(
		"%s: a question mid-quiz and another explanation keep the quiz open; typed and graded misses get a second try",
		async (_name, run) => {
			const { events, requests, gradings, asked } = await run();
			// 1. The question: nothing skipped; the model saw c1 pending and the learner's words (decoded).
			expect(of(events, "answered").filter((a) => a.result.skipped === true)).toEqual([]);
			const reply = requests[3];
			expect(c1Output(reply)).toContain('"status":"pending"');
			expect(JSON.stringify(reply?.prompt.at(-1))).toContain(JSON.stringify(asked).slice(1, -1));
			expect(
				of(events, "quiz")
					.filter((q) => q.toolCallId === "c1")
					.map((q) => q.again === true),
			).toEqual([false, true]);
			// 2. The typed wrong answer: judged, a first miss with its second try, and no turn ran for it.
			expect(of(events, "attempt").filter((a) => a.state === "missed" && a.toolCallId === "c1")).toMatchObject([
				{ toolCallId: "c1", state: "missed", attempts: [{ answer: "2/6", correct: false }] },
			]);
			expect(requests).toHaveLength(7);
			// 3. The click: accepted, carrying the miss; the model still sees c1 pending, and the answer after it.
			const final = of(events, "answered").filter((a) => a.checking !== true);
			expect(final.map((a) => [a.toolCallId, a.result.answer, a.result.correct])).toEqual([
				["c1", "3/4", true],
				["c2", "1/2", true],
			]);
			expect(of(events, "answered")[0]?.result.attempts).toEqual([{ answer: "2/6", correct: false }]);
			const after = requests[4];
			expect(c1Output(after)).toContain('"status":"pending"');
			expect(JSON.stringify(after?.prompt.at(-1))).toMatch(/the question that stayed open.*3\/4.*\\"correct\\":true/);
			// 4. Explain another way: c2 not closed; the model saw it pending and the request; offered again.
			const explained = requests[5];
			expect(JSON.stringify(explained?.prompt.at(-1))).toContain("explain that another way");
			expect(JSON.stringify(explained?.prompt)).toContain('"status":"pending"');
			expect(
				of(events, "quiz")
					.filter((q) => q.toolCallId === "c2")
					.map((q) => q.again === true),
			).toEqual([false, true]);
			// 5. The grader's "incorrect" is a first miss: a second try, no turn.
			expect(of(events, "attempt").filter((a) => a.toolCallId === "c2" && a.state === "missed")).toMatchObject([
				{ attempts: [{ answer: VAGUE, correct: false }] },
			]);
			// 6. The typed answer after it counts, carrying the miss.
			expect(final[1]?.result.attempts).toEqual([{ answer: VAGUE, correct: false }]);
			expect(gradings).toBe(1);
			expect(JSON.stringify(requests[6]?.prompt.at(-1))).toMatch(/the question that stayed open.*1\/2/);
		},
	);
});
