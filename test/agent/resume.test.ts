import { afterAll, describe, expect, it } from "vitest";
import { INTERRUPTED_TEXT } from "../../src/agent/engine/repair.ts";
import { toolParts } from "../../src/agent/engine/transcript.ts";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
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
		expect((await second.tutor.getSession(sessionId))?.pending).toEqual([{ toolCallId: "before", kind: "quiz" }]);
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
