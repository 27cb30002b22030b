/**
 * Struggle before the answer on the fake Slack (real Bolt over HTTP, the real engine on a
 * scripted model): a wrong check becomes "Not quite" (Try again, Hint, Show answer) by
 * an update of its card (through the click's response_url), no answer shown; Try again shows the choices again; Hint posts the
 * teacher's hint; the right answer resolves it with the attempt and the hint; Not sure on
 * the next check is an answer of its own.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStateStore, createSessionStore, createTutor } from "../../../src/agent/index.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { assessmentInput, checkQuiz, planMermaid, probeQuiz } from "../../fixtures/lesson-script.ts";
import { controlsOf, findControl, type Running, startAdapter, textOf } from "./harness.ts";

const LEARNER = { user: "U1", name: "ada", channel: "C1" };

describe("struggle before the answer on Slack", { timeout: 60_000 }, () => {
	let fake: FakeSlack;
	let dir: string;
	let tutor: Tutor;
	let running: Running;
	const events: TutorEvent[] = [];

	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "lh-slack-struggle-"));
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		const model = scriptedModel([
			{ calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
			{ text: "Now check it.", calls: [checkQuiz("c1")] },
			{ text: "Make the denominators match first." }, // the hint side call
			{ text: "Right.", calls: [checkQuiz("c2")] },
			{ text: "Let's go over it together." },
		]);
		const store = await createSessionStore(`sqlite://${join(dir, "lessons.sqlite")}`);
		tutor = createTutor({ model, store, maxRetries: 0 });
		tutor.subscribe((e) => void events.push(e));
		running = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined), state: createMemoryStateStore() });
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await tutor?.close();
		await fake?.close();
		await rm(dir, { recursive: true, force: true });
	});

	const control = (prefix: string) => fake.waitFor(() => findControl(fake, prefix), `a control ${prefix}`, 20_000);
	const latest = (ts: string) => {
		const updates = fake.calls.filter(
			(c) => (c.method === "chat.update" && c.params.ts === ts) || c.replaced?.ts === ts,
		);
		return textOf(updates.at(-1)?.params ?? {});
	};
	/** Click `actionId` on the message `ts`, then wait until its card (or the thread) shows `until`. */
	const click = async (ts: string, actionId: string, until: string) => {
		await running.sender.action(LEARNER, ts, { action_id: actionId });
		await fake.waitFor(
			() =>
				latest(ts).includes(until) || fake.callsTo("chat.postMessage").some((c) => textOf(c.params).includes(until)),
			`"${until}" after ${actionId}`,
			20_000,
		);
	};
	const answered = (id: string) =>
		events.find((e): e is Extract<TutorEvent, { type: "answered" }> => e.type === "answered" && e.toolCallId === id)
			?.result;

	it("a wrong check, Try again, a Hint, then the right answer with its attempt and hint", async () => {
		await running.sender.command("/lesson", "start fractions", LEARNER);
		const p1 = await control("lh:pick:p1:1");
		expect(controlsOf(p1.message).map((c) => c.actionId)).toContain("lh:help:p1:4");
		await click(p1.message.ts, "lh:pick:p1:1", "correct");
		const c1 = await control("lh:pick:c1:0");
		expect(controlsOf(c1.message).map((c) => c.actionId)).toEqual([
			"lh:pick:c1:0",
			"lh:pick:c1:1",
			"lh:pick:c1:2",
			"lh:help:c1:0",
			"lh:help:c1:2",
			"lh:help:c1:4",
		]);
		await click(c1.message.ts, "lh:pick:c1:0", "Not quite");
		expect(latest(c1.message.ts)).toContain("lh:help:c1:3");
		expect(latest(c1.message.ts)).not.toContain("Correct answer");
		expect(answered("c1")).toBeUndefined();

		await click(c1.message.ts, "lh:help:c1:1", "Second try");
		expect(latest(c1.message.ts)).toContain("lh:pick:c1:1");
		await click(c1.message.ts, "lh:help:c1:0", "Make the denominators match first.");
		await click(c1.message.ts, "lh:pick:c1:1", "correct on the second try");
		expect(answered("c1")).toMatchObject({
			correct: true,
			attempts: [{ answer: "2/6", correct: false }],
			hints: ["Make the denominators match first."],
			hinted: true,
		});
	});

	it("Not sure is an answer: the card says so and shows no answer", async () => {
		const c2 = await control("lh:help:c2:4");
		await click(c2.message.ts, "lh:help:c2:4", "was not sure");
		expect(latest(c2.message.ts)).not.toContain("Correct answer");
		expect(answered("c2")).toMatchObject({ notSure: true, correct: false });
	});
});
