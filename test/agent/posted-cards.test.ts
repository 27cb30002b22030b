/**
 * The engine owns "posted": where the platform shows a question's card is reported by the output
 * path (`tutor.posted`), kept on the session's record and saved with its next save, never by a save
 * of its own; `postedCard` answers from the record held in memory (no store call), and a restart
 * reads it back from the store. What an adapter reports is checked.
 */

import { afterAll, expect, it } from "vitest";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import { createTutor } from "../../src/agent/tutor.ts";
import { counted } from "../../testkit/counted.ts";
import { harness, learner, probeQuiz, scriptedModel, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

it("a posted card rides the session's next save, and is answered from memory, then from the store after a restart", async () => {
	const model = scriptedModel([
		{ text: "Hi!", calls: [{ name: "quiz", id: "p1", input: probeQuiz }] },
		{ text: "Right.", calls: [{ name: "quiz", id: "p2", input: probeQuiz }] },
	]);
	const url = `sqlite://${dir.path}/lh.sqlite`;
	const { proxy: store, calls } = counted(await createSessionStore(url));
	const h = await harness(dir.path, model, { store });
	const sessionId = "terminal:posted-1";
	expect((await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" })).ok).toBe(true);
	await h.tutor.idle(sessionId);
	calls.length = 0;
	h.tutor.posted?.(sessionId, "p1", { messageIds: ["m1", "m2"], lead: "Hi!" });
	h.tutor.posted?.(sessionId, "p0", { messageIds: [] }); // nothing posted: not remembered
	h.tutor.posted?.(sessionId, "p9", { messageIds: [7, "m9"] as unknown as string[] }); // checked
	expect(h.tutor.postedCard?.(sessionId, "p1")).toEqual({ messageIds: ["m1", "m2"], lead: "Hi!" });
	expect(h.tutor.postedCard?.(sessionId, "p0")).toBeUndefined();
	expect(h.tutor.postedCard?.(sessionId, "p9")).toEqual({ messageIds: ["m9"] });
	expect(calls).toEqual([]); // no save of its own, no read
	expect((await store.get(sessionId))?.posted).toBeUndefined();
	// The next save (the answer's) carries it.
	expect((await h.tutor.handle(sessionId, { type: "answer", toolCallId: "p1", value: 1, by: learner })).ok).toBe(true);
	await h.tutor.idle(sessionId);
	expect((await store.get(sessionId))?.posted?.p1).toEqual({ messageIds: ["m1", "m2"], lead: "Hi!" });
	await h.tutor.close();
	// Restarted: the record read back answers.
	const again = createTutor({ model, store: await createSessionStore(url), maxRetries: 0 });
	await again.getSession(sessionId);
	expect(again.postedCard?.(sessionId, "p1")).toEqual({ messageIds: ["m1", "m2"], lead: "Hi!" });
	await again.close();
});
