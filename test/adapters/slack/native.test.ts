/**
 * Slack's own ways of showing a tutor at work, through real Bolt against the strict fake Slack with the real
 * engine: the status under the thread (assistant.threads.setStatus) is on when each turn's first model request
 * is made and cleared ("") once the turn's card landed; a solo lesson's explanation arrives through
 * chat.startStream / appendStream / stopStream addressed to its learner; a group lesson's is a normal post.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MockLanguageModelV3 } from "ai/test";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStateStore, createSessionStore, createTutor } from "../../../src/agent/index.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { type ScriptedReply, scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { assessmentInput, planMermaid, probeQuiz } from "../../fixtures/lesson-script.ts";
import { findControl, type Running, startAdapter, textOf } from "./harness.ts";

const LEARNER = { user: "U1", name: "ada", channel: "C1" };
const PARAGRAPH = "Both 3 and 6 divide 6, so 6 is a common denominator of thirds and sixths. ".repeat(8).trim();
const LONG_BODY = [1, 2, 3].map((n) => `Paragraph ${n}. ${PARAGRAPH}`).join("\n\n");

/** A lesson whose first turn probes, maps and explains (then asks), and whose second turn asks again. */
function lesson(id: string): ScriptedReply[] {
	return [
		{ calls: [{ name: "probe_done", input: assessmentInput, id: `${id}pd` }] },
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: `${id}plan` }] },
		{
			calls: [
				{ name: "explain", id: `${id}e1`, input: { body: LONG_BODY, role: "concept", nodeId: "common-denominator" } },
				{
					name: "quiz",
					id: `${id}q1`,
					input: {
						type: "check",
						nodeId: "common-denominator",
						...probeQuiz,
						question: `(${id}) ${probeQuiz.question}`,
					},
				},
			],
		},
		{
			text: "Good. One more.",
			calls: [
				{
					name: "quiz",
					id: `${id}q2`,
					input: {
						type: "predict",
						nodeId: "unlike",
						question: "1/2 + 1/3 = ?",
						options: ["5/6", "2/5"],
						correctAnswer: "5/6",
					},
				},
			],
		},
	];
}

describe("Slack: a status while the tutor works, explanations streamed", { timeout: 60_000 }, () => {
	let fake: FakeSlack;
	let dir: string;
	let tutor: Tutor;
	let running: Running;
	/** For each model request: whether a status was on under the lesson's thread when it was made. */
	const requests: boolean[] = [];
	/** The solo lesson's first question card (ts). */
	let firstQuestionTs = "";

	/** Waits (bounded by a count of short sleeps, not a clock) until the latest status set is not a clear. */
	async function statusOn(): Promise<boolean> {
		for (let i = 0; i < 400; i++) {
			const last = fake.statuses.at(-1);
			if (last && last.status !== "") return true;
			await new Promise((r) => setTimeout(r, 5));
		}
		return false;
	}

	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "lh-slack-native-"));
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		const script = scriptedModel([...lesson("s"), ...lesson("g")]);
		const model = new MockLanguageModelV3({
			doStream: async (options) => {
				requests.push(await statusOn());
				return script.doStream(options);
			},
		});
		tutor = createTutor({ model, store: await createSessionStore(`sqlite://${join(dir, "l.sqlite")}`), maxRetries: 0 });
		const png = PNG.sync.write(new PNG({ width: 4, height: 4 }));
		running = await startAdapter(fake, { tutor, renderer: stubRenderer(png), state: createMemoryStateStore() });
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await tutor?.close();
		await fake?.close();
		await rm(dir, { recursive: true, force: true });
	});

	const control = (prefix: string) => fake.waitFor(() => findControl(fake, prefix), `a control ${prefix}`, 20_000);
	/** The index among the fake's calls of the post that carries `prefix`'s control. */
	const postIndexOf = (ts: string) =>
		fake.calls.findIndex((c) => c.method === "chat.postMessage" && fake.messages.get(ts)?.text === c.params.text);
	/** The turn's status was cleared after its card `ts` was posted. */
	async function clearedAfter(ts: string): Promise<void> {
		const posted = postIndexOf(ts);
		expect(posted).toBeGreaterThanOrEqual(0);
		const clear = await fake.waitFor(
			() => fake.statuses.find((s) => s.status === "" && s.seq - 1 > posted),
			"the status cleared after the card",
		);
		expect(fake.statuses.at(-1)).toEqual(clear);
	}

	it("sets the status before each turn's first model request, per phase, and clears it after the turn's card", async () => {
		await running.sender.command("/lesson", "start fractions", LEARNER);
		const q1 = await control("lh:pick:sq1:1");
		firstQuestionTs = q1.message.ts;
		const threadTs = q1.message.threadTs ?? "";
		// Turn 1: three requests (probe, map, explain + quiz), a status on for each.
		expect(requests).toEqual([true, true, true]);
		const turn1 = fake.statuses.filter((s) => s.threadTs === threadTs);
		expect(turn1[0]).toMatchObject({ channel: "C1", status: "is thinking…" });
		expect(turn1[0]?.loadingMessages?.length).toBeGreaterThan(0);
		expect(turn1.map((s) => s.status)).toContain("is drawing the map…");
		await clearedAfter(q1.message.ts);
		expect(fake.statusOf("C1", threadTs) ?? "").toBe("");

		// Turn 2, started by the right answer's click: set before its first request, cleared after its quiz.
		const before = fake.statuses.length;
		await running.sender.action(LEARNER, q1.message.ts, { action_id: q1.actionId });
		const q2 = await control("lh:pick:sq2:");
		expect(requests).toEqual([true, true, true, true]);
		expect(fake.statuses.slice(before)[0]?.status).toBe("is thinking…");
		await clearedAfter(q2.message.ts);
		expect(fake.limitProblems()).toEqual([]);
	});

	it("streams a solo lesson's explanation to its learner: start, append per paragraph, stop", async () => {
		const streams = [...fake.streams.values()];
		expect(streams).toHaveLength(1);
		const [stream] = streams;
		expect(stream).toMatchObject({
			channel: "C1",
			recipientUserId: "U1",
			recipientTeamId: fake.teamId,
			streaming: false,
		});
		expect(stream?.parts.length).toBeGreaterThan(2);
		const text = stream?.parts.join("") ?? "";
		for (const n of [1, 2, 3]) expect(text).toContain(`Paragraph ${n}.`);
		expect(fake.callsTo("chat.startStream")).toHaveLength(1);
		expect(fake.callsTo("chat.appendStream").length).toBe((stream?.parts.length ?? 0) - 1);
		expect(fake.callsTo("chat.stopStream")).toHaveLength(1);
		// The explanation is in the thread, in the lesson's order: before the question it leads into.
		expect(stream && stream.ts < firstQuestionTs).toBe(true);
		expect(fake.callsTo("chat.postMessage").some((c) => textOf(c.params).includes("Paragraph 1."))).toBe(false);
	});

	it("posts a group lesson's explanation as a normal message (no stream)", async () => {
		const streamsBefore = fake.callsTo("chat.startStream").length;
		await running.sender.command("/lesson", "start fractions --group", LEARNER);
		await control("lh:pick:gq1:");
		expect(fake.callsTo("chat.startStream")).toHaveLength(streamsBefore);
		const posted = fake.callsTo("chat.postMessage").filter((c) => textOf(c.params).includes("Paragraph 1."));
		expect(posted.length).toBeGreaterThan(0);
		expect(fake.limitProblems()).toEqual([]);
	});
});
