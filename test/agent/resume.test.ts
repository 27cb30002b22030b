import { afterAll, describe, expect, it } from "vitest";
import { INTERRUPTED_TEXT, MAX_RERUNS } from "../../src/agent/engine/recovery.ts";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import type { SessionRecord } from "../../src/agent/store/types.ts";
import { createTutor } from "../../src/agent/tutor.ts";
import { toolParts } from "../../src/core/transcript.ts";
import { t } from "../../src/i18n/index.ts";
import { assessmentInput, harness, learner, probeQuiz, scriptedModel, tempDir, toolResultsSent } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

describe("a restart in the middle of a lesson", () => {
	it("a new tutor on the same SQLite file answers the quiz posted before the restart and continues", async () => {
		const sessionId = "discord:g1:t1";
		const first = await harness(
			dir.path,
			scriptedModel([{ calls: [{ name: "quiz", input: probeQuiz, id: "before" }] }]),
		);
		await first.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await first.tutor.idle(sessionId);
		expect(first.of("quiz")).toHaveLength(1);
		await first.tutor.close();

		const model = scriptedModel([
			{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
			{ text: "Welcome back: let's map it out." },
		]);
		const second = await harness(dir.path, model);
		expect(await second.tutor.resume()).toBe(0); // nothing was cut off
		expect((await second.tutor.getSession(sessionId))?.pending).toMatchObject([{ toolCallId: "before", kind: "quiz" }]);
		expect(
			await second.tutor.handle(sessionId, { type: "answer", toolCallId: "before", value: "3/4", by: learner }),
		).toEqual({
			ok: true,
		});
		await second.tutor.idle(sessionId);
		expect(JSON.stringify(toolResultsSent(model.doStreamCalls[0]!))).toContain('"correct":true');
		expect(second.of("assessment")).toHaveLength(1);
		expect(second.of("text").at(-1)?.text).toBe("Welcome back: let's map it out.");
		expect((await second.tutor.getSession(sessionId))?.phase).toBe("teach");
		await second.tutor.close();
	});

	it("a turn cut off by a crash: dangling server calls get an interrupted result; the next event continues", async () => {
		const sessionId = "slack:T1:C1:1700000000.000100";
		const setup = await harness(dir.path, scriptedModel([{ calls: [{ name: "quiz", input: probeQuiz, id: "q" }] }]));
		await setup.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await setup.tutor.idle(sessionId);
		await setup.tutor.close();

		// Simulate the crash: a server call without a result and the turn still open.
		const store = await createSessionStore(`sqlite://${dir.path}/lh.sqlite`);
		const record = (await store.get(sessionId))!;
		record.messages.push({
			id: "crashed",
			role: "assistant",
			parts: [
				{ type: "step-start" },
				{ type: "tool-probe_done", toolCallId: "dangling", state: "input-available", input: assessmentInput },
			],
		});
		record.turnOpen = true;
		await store.set(record);
		await store.close();

		const model = scriptedModel([{ text: "Where were we? Try the question above." }]);
		const h = await harness(dir.path, model);
		expect(await h.tutor.resume()).toBe(1);
		const repaired = (await h.store.get(sessionId))!;
		const parts = [...toolParts(repaired.messages)];
		expect(parts.find((p) => p.toolCallId === "dangling")).toMatchObject({
			state: "output-error",
			errorText: INTERRUPTED_TEXT,
		});
		expect(parts.find((p) => p.toolCallId === "q")).toMatchObject({ state: "input-available" });
		expect(repaired.turnOpen).toBe(false);
		// The quiz is still answerable; the model sees the interrupted call's error and the answer.
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: 1, by: learner });
		await h.tutor.idle(sessionId);
		const sent = toolResultsSent(model.doStreamCalls[0]!);
		expect(sent.map((r) => r.toolName)).toEqual(["quiz", "probe_done"]);
		expect(h.of("text").at(-1)?.text).toMatch(/Where were we/);
		await h.tutor.close();
	});
});

describe("resume() re-runs a turn cut off with no question pending (nobody has to type)", () => {
	/** A session whose quiz was answered and whose next turn died mid-way (a server call without result). */
	async function crashed(sessionId: string, tweak: (record: SessionRecord) => void = () => {}) {
		const setup = await harness(dir.path, scriptedModel([{ calls: [{ name: "quiz", input: probeQuiz, id: "q" }] }]));
		await setup.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await setup.tutor.idle(sessionId);
		await setup.tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: 1, by: learner });
		await setup.tutor.close(); // the answer's turn fails (no script left): simulate the crash below
		const store = await createSessionStore(`sqlite://${dir.path}/lh.sqlite`);
		const record = (await store.get(sessionId))!;
		record.messages.push({
			id: `cut-${sessionId}`,
			role: "assistant",
			parts: [
				{ type: "step-start" },
				{ type: "tool-probe_done", toolCallId: `pd-${sessionId}`, state: "input-available", input: assessmentInput },
			],
		});
		record.turnOpen = true;
		tweak(record);
		await store.set(record);
		await store.close();
	}

	it("repairs the dangling call, runs the turn again at once and closes it", async () => {
		const sessionId = "terminal:rerun-1";
		await crashed(sessionId);
		const model = scriptedModel([
			{
				text: "Sorry, I was cut off. Next question:",
				calls: [{ name: "ask", input: { question: "Ready?" }, id: "a" }],
			},
		]);
		const h = await harness(dir.path, model);
		expect(await h.tutor.resume()).toBe(1);
		await h.tutor.idle(sessionId);
		expect(model.doStreamCalls).toHaveLength(1);
		// The model sees the learner's answer and the interrupted call's error, so the replay holds.
		const sent = toolResultsSent(model.doStreamCalls[0]!);
		expect(sent.map((r) => r.toolName)).toEqual(["quiz", "probe_done"]);
		expect(JSON.stringify(sent[1]?.output)).toContain("interrupted");
		expect(h.of("typing").map((t) => t.active)).toEqual([true, false]);
		expect(h.of("ask").map((a) => a.toolCallId)).toEqual(["a"]);
		const record = (await h.store.get(sessionId))!;
		expect(record.turnOpen).toBe(false);
		expect(record.reruns).toBeUndefined();
		await h.tutor.close();
	});

	it("waits for the first subscriber before running (its events must reach a platform)", async () => {
		const sessionId = "terminal:rerun-2";
		await crashed(sessionId);
		const model = scriptedModel([{ text: "Back again." }]);
		const store = await createSessionStore(`sqlite://${dir.path}/lh.sqlite`);
		const tutor = createTutor({ model, store, maxRetries: 0 });
		expect(await tutor.resume()).toBe(1);
		await tutor.idle();
		expect(model.doStreamCalls).toHaveLength(0);
		expect((await store.get(sessionId))?.turnOpen).toBe(true); // still cut off on disk until it runs
		const texts: string[] = [];
		tutor.subscribe((e) => void (e.type === "text" && texts.push(e.text)));
		await tutor.idle(sessionId);
		expect(texts).toEqual(["Back again."]);
		expect((await store.get(sessionId))?.turnOpen).toBe(false);
		await tutor.close();
	});

	it("gives up after two re-runs in a row (a turn that kills the process must not loop), and says so; the next message runs it", async () => {
		const sessionId = "terminal:rerun-3";
		await crashed(sessionId, (record) => {
			record.reruns = MAX_RERUNS;
		});
		const model = scriptedModel([{ text: "You wrote; here I am." }]);
		const h = await harness(dir.path, model);
		expect(await h.tutor.resume()).toBe(1);
		await h.tutor.idle();
		expect(model.doStreamCalls).toHaveLength(0);
		expect((await h.store.get(sessionId))?.turnOpen).toBe(false);
		// Never silence: the learner is told to type something.
		expect(h.of("error")).toEqual([
			{ type: "error", sessionId, code: "cut-off", message: t("en", "engine.cutOff"), retryable: false },
		]);
		await h.tutor.handle(sessionId, { type: "message", text: "hello?", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("text").map((t) => t.text)).toEqual(["You wrote; here I am."]);
		expect((await h.store.get(sessionId))?.reruns).toBeUndefined();
		await h.tutor.close();
	});

	it("the notice is in the lesson's language, and a start after it says nothing again", async () => {
		const sessionId = "terminal:rerun-de";
		await crashed(sessionId, (record) => {
			record.reruns = MAX_RERUNS;
			record.language = "de";
		});
		const h = await harness(dir.path, scriptedModel([]));
		await h.tutor.resume();
		await h.tutor.idle();
		expect(h.of("error").map((e) => e.message)).toEqual([t("de", "engine.cutOff")]);
		expect(t("de", "engine.cutOff")).not.toBe(t("en", "engine.cutOff"));
		await h.tutor.close();
		const again = await harness(dir.path, scriptedModel([]));
		await again.tutor.resume();
		await again.tutor.idle();
		expect(again.of("error")).toEqual([]);
		await again.tutor.close();
	});

	it("a turn aborted by close() stays open on disk and is re-run by the next start", async () => {
		const sessionId = "terminal:rerun-4";
		const first = await harness(dir.path, scriptedModel([{ gate: new Promise<void>(() => {}), text: "never" }]), {
			closeTimeoutMs: 20,
		});
		await first.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await first.tutor.close();
		const check = await createSessionStore(`sqlite://${dir.path}/lh.sqlite`);
		expect((await check.get(sessionId))?.turnOpen).toBe(true);
		await check.close();

		const model = scriptedModel([{ text: "Hi! Let's begin.", calls: [{ name: "quiz", input: probeQuiz, id: "q1" }] }]);
		const h = await harness(dir.path, model);
		expect(await h.tutor.resume()).toBe(1);
		await h.tutor.idle(sessionId);
		expect(h.of("text").map((t) => t.text)).toEqual(["Hi! Let's begin."]);
		expect((await h.tutor.getSession(sessionId))?.pending).toMatchObject([{ toolCallId: "q1", kind: "quiz" }]);
		await h.tutor.close();
	});
});
