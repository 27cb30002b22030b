/**
 * A typed answer with pictures of the learner's working (Discord's Answer box takes an upload): the text is
 * the answer, judged and recorded as the question's result as any typed answer is; the pictures are checked,
 * stored and charged as a message's are, and reach the model as image parts right after that result. A
 * picture the engine's checks refuse refuses the event whole (nothing recorded); a vote takes none.
 */

import { afterAll, describe, expect, it } from "vitest";
import type { LearnerImage } from "../../../src/core/learner-images.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { harness, learner, stranger, tempDir, toolResultsSent } from "../helpers.ts";

const PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const png: LearnerImage = { mediaType: "image/png", base64: PNG_B64, filename: "working.png" };
const freeQuiz = { question: "What is 5 + 5?", correctAnswer: "10" };
const dir = tempDir();
afterAll(() => dir.cleanup());

describe("a typed answer with pictures of the working", () => {
	it("records the answer as the result and sends the pictures to the model after it", async () => {
		const model = scriptedModel([
			{ text: "A first question.", calls: [{ name: "quiz", input: freeQuiz, id: "q1" }] },
			{ text: "Right, and your working is tidy." },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:answer-pictures";
		await h.tutor.startLesson({ sessionId, topic: "sums", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		const reply = { type: "reply" as const, toolCallId: "q1", text: "10", by: learner, images: [png] };
		expect(await h.tutor.handle(sessionId, reply)).toEqual({ ok: true });
		await h.tutor.idle(sessionId);

		expect(h.of("answered")[0]?.result).toMatchObject({ answer: "10", correct: true });
		const request = model.doStreamCalls[1];
		expect(toolResultsSent(request!)[0]?.output).toMatchObject({ value: expect.objectContaining({ answer: "10" }) });
		const users = (request?.prompt ?? []).filter((m) => m.role === "user");
		const last = users.at(-1);
		expect(last?.content).toEqual([
			{ type: "text", text: "(my working for the answer above)" },
			{ type: "file", mediaType: "image/png", filename: "working.png", data: PNG_B64 },
		]);
		// The result comes before the pictures: the model reads the answer, then the working.
		const prompt = request?.prompt ?? [];
		expect(prompt.findIndex((m) => m.role === "tool")).toBeLessThan(prompt.indexOf(last!));
		await h.tutor.close();
	});

	it("is refused whole when a picture fails the checks, and a vote takes no pictures", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "quiz", input: freeQuiz, id: "q1" }] },
			{ calls: [{ name: "quiz", input: freeQuiz, id: "g1" }] },
		]);
		const h = await harness(dir.path, model);
		await h.tutor.startLesson({ sessionId: "terminal:bad-working", topic: "sums", learner, mode: "solo" });
		await h.tutor.idle("terminal:bad-working");
		const pdf = { mediaType: "image/png" as const, base64: Buffer.from("%PDF-1.7 fake").toString("base64") };
		expect(
			await h.tutor.handle("terminal:bad-working", {
				type: "reply",
				toolCallId: "q1",
				text: "10",
				by: learner,
				images: [pdf],
			}),
		).toMatchObject({ ok: false, code: "invalid-answer" });
		expect((await h.tutor.getSession("terminal:bad-working"))?.pending).toMatchObject([{ toolCallId: "q1" }]);

		await h.tutor.startLesson({ sessionId: "terminal:vote-working", topic: "sums", learner, mode: "group" });
		await h.tutor.idle("terminal:vote-working");
		const vote = { type: "reply" as const, toolCallId: "g1", text: "10", by: stranger, images: [png] };
		expect(await h.tutor.handle("terminal:vote-working", vote)).toMatchObject({
			ok: false,
			code: "invalid-answer",
			message: "A vote takes no pictures: send them in the thread.",
		});
		await h.tutor.close();
	});
});
