/**
 * The learner's natural moves, once for every platform (Discord, Slack, the terminal), each through its real
 * adapter, the lesson controller, the real engine and SQLite: at an open check quiz the learner
 * 1. types a question of their own in the thread: the quiz stays open (never "skipped"), the tutor's model
 *    sees it pending and the question (Slack's escaped text decoded), and the quiz is offered again;
 * 2. types a wrong answer in the thread: it is judged like a form reply, a first miss, a second try, no turn;
 * 3. picks the right option: accepted, with the miss among its attempts, and the model reads it in a later
 *    message (it saw the call pending).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
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

const lesson = () =>
	scriptedModel([
		{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
		{ text: "Now check it.", calls: [checkQuiz("c1")] },
		{ text: "Because only like parts can be added." },
		{ text: "Right: 3/4." },
	]);

/** What a platform run leaves to check. */
interface Moves {
	events: TutorEvent[];
	requests: LanguageModelV3CallOptions[];
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
		return { events: stack.events, requests: model.doStreamCalls, asked: QUESTION };
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
		await tutor.idle();
		return { events, requests: model.doStreamCalls, asked: "wait, why must the denominators match if 1/2 < 3/4?" };
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
			source: createLineSource(Readable.from([QUESTION, WRONG, "B"].map((l) => `${l}\n`)), out),
			output: out,
			topic: "fractions",
			learner: { id: "terminal-learner", name: "bob" },
			plansDir: join(dir, "plans"),
		});
		expect(result.outcome).toBe("input-ended");
		return { events, requests: model.doStreamCalls, asked: QUESTION };
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
		"%s: a question mid-quiz keeps it open, a typed answer is judged with a second try, then the click counts",
		async (_name, run) => {
			const { events, requests, asked } = await run();
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
			expect(of(events, "attempt").filter((a) => a.state === "missed")).toMatchObject([
				{ toolCallId: "c1", state: "missed", attempts: [{ answer: "2/6", correct: false }] },
			]);
			expect(requests).toHaveLength(5);
			// 3. The click: accepted, carrying the miss; the model still sees c1 pending, and the answer after it.
			expect(of(events, "answered").map((a) => [a.toolCallId, a.result.answer, a.result.correct])).toEqual([
				["c1", "3/4", true],
			]);
			expect(of(events, "answered")[0]?.result.attempts).toEqual([{ answer: "2/6", correct: false }]);
			const after = requests[4];
			expect(c1Output(after)).toContain('"status":"pending"');
			expect(JSON.stringify(after?.prompt.at(-1))).toMatch(/the question that stayed open.*3\/4.*\\"correct\\":true/);
		},
	);
});
