/**
 * A store error is an error: what the store did not save is never published, the learner is
 * told, an answer the store refused stays answerable, and a turn whose save fails continues by
 * itself once the store is back. The store here is the real SQLite store behind a switch that
 * makes its writes fail (as a dead Redis or a full disk does).
 */
import { afterAll, describe, expect, it } from "vitest";
import { StoreError } from "../../src/agent/store/errors.ts";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import type { SessionStore } from "../../src/agent/store/types.ts";
import { createTutor } from "../../src/agent/tutor.ts";
import type { TutorEvent } from "../../src/core/contracts/events.ts";
import { learner, probeQuiz, scriptedModel, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

/** The SQLite store with a switch: while `down`, every write rejects as an unreachable server does. */
async function switchableStore(
	name: string,
): Promise<{ store: SessionStore; inner: SessionStore; down: (on: boolean) => void; failed: () => number }> {
	const inner = await createSessionStore(`sqlite://${dir.path}/${name}.sqlite`);
	let isDown = false;
	let failures = 0;
	const store: SessionStore = {
		...inner,
		async set(record) {
			if (isDown) {
				failures++;
				throw new StoreError("store-unavailable", "writing failed: connect ECONNREFUSED 127.0.0.1:6399");
			}
			return inner.set(record);
		},
	};
	return { store, inner, down: (on) => (isDown = on), failed: () => failures };
}

/** Wait until `check` holds, polling (bounded: 200 tries, 10 ms apart). */
async function until(check: () => boolean): Promise<void> {
	for (let i = 0; i < 200 && !check(); i++) await new Promise((done) => setTimeout(done, 10));
	expect(check()).toBe(true);
}

describe("store failures", () => {
	it("an answer the store refuses: a notice (store-unavailable), nothing recorded or posted; after recovery it records", async () => {
		const model = scriptedModel([{ calls: [{ name: "quiz", input: probeQuiz, id: "q" }] }, { text: "Right." }]);
		const s = await switchableStore("answer");
		const tutor = createTutor({ model, store: s.store, maxRetries: 0, saveRetryMs: 300 });
		const events: TutorEvent[] = [];
		tutor.subscribe((e) => void events.push(e));
		const sessionId = "terminal:store-answer";
		await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await tutor.idle(sessionId);

		s.down(true);
		const refused = await tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: 1, by: learner });
		expect(refused).toMatchObject({ ok: false, code: "store-unavailable" });
		if (!refused.ok) expect(refused.message).toMatch(/not recorded/);
		expect(s.failed()).toBeGreaterThan(1); // retried within saveRetryMs before giving up
		expect(events.filter((e) => e.type === "answered")).toEqual([]);
		// Rolled back in memory too: the question is still pending and nothing reached the model.
		expect((await tutor.getSession(sessionId))?.pending).toMatchObject([{ toolCallId: "q", kind: "quiz" }]);
		expect(model.doStreamCalls).toHaveLength(1);
		expect((await s.inner.get(sessionId))?.messages.some((m) => JSON.stringify(m).includes('"answer":'))).toBe(false);

		s.down(false);
		expect(await tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: 1, by: learner })).toEqual({
			ok: true,
		});
		await tutor.idle(sessionId);
		expect(events.filter((e) => e.type === "answered").map((e) => e.toolCallId)).toEqual(["q"]);
		expect(events.filter((e) => e.type === "text").map((e) => e.type === "text" && e.text)).toEqual(["Right."]);
		await tutor.close();
	});

	it("a step whose save fails is not posted; the learner is told once; it posts by itself when the store is back", async () => {
		let release!: () => void;
		const gate = new Promise<void>((done) => (release = done));
		const model = scriptedModel([
			{ gate, text: "First question:", calls: [{ name: "quiz", input: probeQuiz, id: "q1" }] },
		]);
		const s = await switchableStore("turn");
		const tutor = createTutor({ model, store: s.store, maxRetries: 0 });
		const events: TutorEvent[] = [];
		tutor.subscribe((e) => void events.push(e));
		const sessionId = "terminal:store-turn";
		await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		s.down(true);
		release(); // the model answers while the store is down
		await until(() => events.some((e) => e.type === "error"));
		expect(events.filter((e) => e.type === "error")).toEqual([
			expect.objectContaining({ code: "store-unavailable", message: expect.stringMatching(/continues by itself/) }),
		]);
		expect(events.some((e) => e.type === "quiz" || e.type === "text")).toBe(false);
		// Meanwhile a click cannot be queued in memory only: refused at once.
		expect(await tutor.handle(sessionId, { type: "message", text: "hello?", by: learner })).toMatchObject({
			code: "store-unavailable",
		});

		s.down(false);
		await tutor.idle(sessionId);
		expect(events.filter((e) => e.type === "quiz").map((e) => e.type === "quiz" && e.toolCallId)).toEqual(["q1"]);
		expect(events.filter((e) => e.type === "error")).toHaveLength(1);
		const saved = await s.inner.get(sessionId);
		expect(JSON.stringify(saved?.messages)).toContain('"toolCallId":"q1"');
		await tutor.close();
	});

	it("a lesson the store cannot save does not start (store-unavailable), and nothing of it stays in memory", async () => {
		const s = await switchableStore("start");
		const tutor = createTutor({ model: scriptedModel([]), store: s.store, maxRetries: 0, saveRetryMs: 100 });
		s.down(true);
		const sessionId = "terminal:store-start";
		expect(await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" })).toMatchObject({
			ok: false,
			code: "store-unavailable",
		});
		expect(await tutor.getSession(sessionId)).toBeUndefined();
		await tutor.close();
	});

	it("an end the store refuses leaves the lesson running and says so", async () => {
		const model = scriptedModel([{ calls: [{ name: "quiz", input: probeQuiz, id: "q" }] }]);
		const s = await switchableStore("end");
		const tutor = createTutor({ model, store: s.store, maxRetries: 0, saveRetryMs: 100 });
		const events: TutorEvent[] = [];
		tutor.subscribe((e) => void events.push(e));
		const sessionId = "terminal:store-end";
		await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await tutor.idle(sessionId);
		s.down(true);
		expect(await tutor.handle(sessionId, { type: "end", by: learner })).toMatchObject({ code: "store-unavailable" });
		expect(events.some((e) => e.type === "ended")).toBe(false);
		s.down(false);
		expect((await tutor.getSession(sessionId))?.phase).toBe("probe");
		expect(await tutor.handle(sessionId, { type: "end", by: learner })).toEqual({ ok: true });
		await tutor.idle(sessionId);
		expect(events.filter((e) => e.type === "ended")).toHaveLength(1);
		await tutor.close();
	});
});
