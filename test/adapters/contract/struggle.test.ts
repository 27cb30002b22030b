/**
 * Struggle before the answer, on every platform: a wrong check turns its card into "Not quite" (Try again, Hint,
 * Show answer) with no answer shown and nothing recorded; Try again shows the choices again; Hint posts the
 * teacher's hint; the right answer then resolves it carrying the attempt and the hint; Not sure on the next
 * check is an answer of its own. Chats click the card's controls; the terminal types the same moves.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { assessmentInput, checkQuiz, planMermaid, probeQuiz } from "../../fixtures/lesson-script.ts";
import { answered, type Chat, useChat } from "./chat.ts";
import { openTerminal, type Terminal } from "./terminal.ts";

const HINT = "Make the denominators match first.";
const model = () =>
	scriptedModel([
		{ calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
		{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
		{ text: "Now check it.", calls: [checkQuiz("c1")] },
		{ text: HINT }, // the hint side call
		{ text: "Right.", calls: [checkQuiz("c2")] },
		{ text: "Let's go over it together." },
	]);

/** A learner's move on a question: a choice (0-based) or a help control (HELP_KINDS: hint, again, explain, show, not sure). */
type Move = { pick: number } | { help: 0 | 1 | 2 | 3 | 4 };
const TYPED = ["hint", "again", "explain", "show", "not sure"];

/** One platform as the learner meets it: a move, and what the question's card (or screen) shows after it. */
interface Learner {
	events: () => Parameters<typeof answered>[0];
	/** The question's controls (undefined on the terminal: it types). */
	controls(id: string): Promise<string[] | undefined>;
	move(id: string, move: Move, until: string): Promise<string>;
	/** Payloads outside the platform's limits, refused calls. */
	problems(): unknown[];
}

function chatLearner(handle: { chat: Chat }): Learner {
	let sessionId = "";
	return {
		events: () => handle.chat.events,
		async controls(id) {
			const { chat } = handle;
			if (!sessionId) sessionId = (await chat.start("learner", "fractions")).sessionId;
			return chat.view(await chat.card(sessionId, id)).controls;
		},
		async move(id, move, until) {
			const { chat } = handle;
			const card = await chat.card(sessionId, id);
			const control = "pick" in move ? `lh:pick:${id}:${move.pick}` : `lh:help:${id}:${move.help}`;
			await chat.click("learner", card, control);
			await chat.waitFor(
				() => chat.view(card).text.includes(until) || chat.posts(sessionId).some((p) => p.includes(until)),
				`"${until}" after ${control}`,
			);
			await chat.backend.tutor.idle(sessionId);
			await chat.flush();
			return chat.view(card).text;
		},
		problems: () => handle.chat.problems(),
	};
}

function terminalLearner(): Learner & { open(): Promise<void>; close(): Promise<string>; screen(): string } {
	let term: Terminal | undefined;
	const live = () => {
		if (!term) throw new Error("not started");
		return term;
	};
	return {
		async open() {
			term = await openTerminal(model(), "fractions");
		},
		close: () => live().close(),
		screen: () => live().output(),
		events: () => live().events,
		controls: async () => undefined,
		problems: () => [],
		move: (_id, move, until) =>
			live().type("pick" in move ? ("ABC"[move.pick] ?? "") : (TYPED[move.help] ?? ""), until),
	};
}

describe.each(["discord", "slack", "terminal"] as const)(
	"struggle before the answer on %s",
	{ timeout: 60_000 },
	(name) => {
		const terminal = name === "terminal" ? terminalLearner() : undefined;
		const learner = terminal ?? chatLearner(useChat(name as "discord" | "slack", { model: model() }));
		if (terminal) {
			beforeAll(() => terminal.open());
			afterAll(async () => {
				expect(await terminal.close()).toBe("input-ended");
			});
		}

		it("a wrong check: Not quite with Try again, Hint and Show answer; no answer shown, nothing recorded", async () => {
			// The probe's quiz has the help row too.
			expect((await learner.controls("p1")) ?? ["lh:help:p1:4"]).toContain("lh:help:p1:4");
			await learner.move("p1", { pick: 1 }, "correct");
			expect((await learner.controls("c1")) ?? []).toEqual(
				terminal
					? []
					: ["lh:pick:c1:0", "lh:pick:c1:1", "lh:pick:c1:2", "lh:help:c1:0", "lh:help:c1:2", "lh:help:c1:4"],
			);
			const missed = await learner.move("c1", { pick: 0 }, "Not quite");
			expect(missed).toContain("“2/6”");
			expect(missed).not.toContain("Correct answer");
			expect((await learner.controls("c1")) ?? []).toEqual(
				terminal ? [] : ["lh:help:c1:1", "lh:help:c1:0", "lh:help:c1:3"],
			);
			if (terminal) expect(missed).toContain("Type again (or your next answer), hint, or show.");
			expect(answered(learner.events(), "c1")).toBeUndefined();
		});

		it("Try again shows the choices again; Hint posts the teacher's hint; the right answer carries both", async () => {
			expect(await learner.move("c1", { help: 1 }, "Second try")).toContain("Second try");
			expect((await learner.controls("c1")) ?? ["lh:pick:c1:1"]).toContain("lh:pick:c1:1");
			await learner.move("c1", { help: 0 }, HINT);
			expect(await learner.move("c1", { pick: 1 }, "correct on the second try")).toContain(
				"correct on the second try, with a hint",
			);
			expect(answered(learner.events(), "c1")).toMatchObject({
				correct: true,
				attempts: [{ answer: "2/6", correct: false }],
				hints: [HINT],
				hinted: true,
			});
		});

		it("Not sure is an answer: the card says so and shows no answer", async () => {
			const done = await learner.move("c2", { help: 4 }, "not sure");
			expect(done).toContain(terminal ? "🤷 not sure" : "was not sure");
			expect(done).not.toContain("Correct answer");
			expect(answered(learner.events(), "c2")).toMatchObject({ notSure: true, correct: false });
			expect(learner.problems()).toEqual([]);
			if (terminal)
				expect(terminal.screen()).toContain(
					"On a quiz: hint, again (try again), explain (another way), not sure, show (the answer).",
				);
		});
	},
);
