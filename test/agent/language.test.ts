import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROBER_PROMPT, TEACHER_PROMPT } from "../../src/agent/prompts/index.ts";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import { fractionsLesson } from "../fixtures/lesson-script.ts";
import { harness, learner, scriptedModel, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const systemOf = (call: { prompt: Array<{ role: string; content: unknown }> } | undefined) =>
	call?.prompt.find((m) => m.role === "system")?.content;

describe("the lesson's language", () => {
	it("is kept in the session record and told to the prober and the teacher in their system prompts", async () => {
		const model = scriptedModel(
			fractionsLesson({ greeting: "Hallo!", predictOptions: ["3", "6", "9"], closing: "Gut gemacht!" }),
		);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:lang-de";
		expect(
			await h.tutor.startLesson({ sessionId, topic: "Brüche addieren", learner, mode: "solo", language: "de" }),
		).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "p1", value: 1, by: learner });
		await h.tutor.idle(sessionId);
		const prober = systemOf(model.doStreamCalls[0]);
		expect(prober).toContain(PROBER_PROMPT);
		expect(prober).toContain("Lesson language: German (Deutsch, `de`).");
		const teacher = model.doStreamCalls
			.map(systemOf)
			.find((s) => typeof s === "string" && s.startsWith(TEACHER_PROMPT));
		expect(teacher).toContain("Teach this whole lesson in German");
		expect((await h.tutor.getSession(sessionId))?.language).toBe("de");
		await h.tutor.close();
		// It survives a restart: the record on disk keeps it.
		const store = await createSessionStore(`sqlite://${join(dir.path, "lh.sqlite")}`);
		expect((await store.get(sessionId))?.language).toBe("de");
		await store.close();
	});

	it("English lessons send the system prompt unchanged; an unsupported language is not stored", async () => {
		const model = scriptedModel(
			fractionsLesson({ greeting: "Hallo!", predictOptions: ["3", "6", "9"], closing: "Gut gemacht!" }),
		);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:lang-xx";
		await h.store.delete(sessionId);
		const language = "xx" as unknown as "en";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo", language });
		await h.tutor.idle(sessionId);
		expect(systemOf(model.doStreamCalls[0])).toBe(PROBER_PROMPT);
		expect((await h.tutor.getSession(sessionId))?.language).toBe("en");
		await h.tutor.close();
	});
});
