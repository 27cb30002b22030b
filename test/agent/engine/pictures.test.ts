/**
 * A learner's pictures by reference: the bytes are stored once beside the session (never in
 * the record), a picture goes to the model for PICTURE_TURNS turns and then as a placeholder,
 * a picture the provider refuses is dropped and the turn retried without it, and the byte
 * budget is shared by every tutor on the same store.
 */

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { APICallError } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import { createPictureStore } from "../../../src/agent/store/picture-store.ts";
import { createMemoryStateStore, openStateStore } from "../../../src/agent/store/state-store.ts";
import { createTutor } from "../../../src/agent/tutor.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { type LearnerImage, PICTURE_TURNS } from "../../../src/core/learner-images.ts";
import { replyStream } from "../../../testkit/model-stream.ts";
import { harness, learner, tempDir } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A picture of `size` bytes: a PNG signature and random bytes (the engine sniffs only the head). */
function picture(size: number, name: string): LearnerImage {
	return {
		mediaType: "image/png",
		base64: Buffer.concat([PNG_HEAD, randomBytes(size - PNG_HEAD.length)]).toString("base64"),
		filename: name,
	};
}

/** The file parts a request sent (the learner's pictures, inline). */
const filesIn = (options: LanguageModelV3CallOptions) =>
	options.prompt.flatMap((m) => (m.role === "user" ? m.content.filter((p) => p.type === "file") : []));

/** The text parts of the user messages a request sent. */
const userTexts = (options: LanguageModelV3CallOptions) =>
	options.prompt.flatMap((m) =>
		m.role === "user" ? m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])) : [],
	);

/** A model that answers every request with a short text; `refuse`: requests for which it throws instead. */
function textModel(refuse?: (options: LanguageModelV3CallOptions) => Error | undefined): MockLanguageModelV3 {
	return new MockLanguageModelV3({
		doStream: async (options) => {
			const error = refuse?.(options);
			if (error) throw error;
			return { stream: replyStream({ text: "Go on." }) };
		},
	});
}

const invalidImage = () =>
	new APICallError({
		message: "Invalid image.",
		url: "https://api.example.test/v1/chat/completions",
		requestBodyValues: {},
		statusCode: 400,
		responseBody: '{"error":{"message":"Invalid image.","type":"invalid_request_error"}}',
		isRetryable: false,
	});

describe("pictures by reference", () => {
	it("keep their bytes out of the record: 6 messages of 4 pictures leave it small", async () => {
		const model = textModel();
		const h = await harness(join(dir.path, "size"), model);
		const sessionId = "terminal:picture-size";
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		const size = 256 * 1024;
		for (let m = 0; m < 6; m++) {
			const images = Array.from({ length: 4 }, (_, i) => picture(size, `page-${m}-${i}.png`));
			expect(await h.tutor.handle(sessionId, { type: "message", text: `page ${m}`, by: learner, images })).toEqual({
				ok: true,
			});
			await h.tutor.idle(sessionId);
		}
		const record = await h.store.get(sessionId);
		const json = JSON.stringify(record);
		// 24 pictures of 256 KiB would be 8 MB of base64 inline; references are a few hundred bytes each.
		expect(json.length).toBeLessThan(64 * 1024);
		const refs = (record?.messages ?? []).flatMap((m) => m.parts.filter((p) => p.type === "data-picture"));
		expect(refs).toHaveLength(24);
		// The last request carries only the pictures still in their window (here: the last PICTURE_TURNS messages).
		const last = model.doStreamCalls.at(-1);
		expect(last && filesIn(last)).toHaveLength(4 * PICTURE_TURNS);
		await h.tutor.close();
	});

	it(`are sent for ${PICTURE_TURNS} turns, then as a placeholder (the prefix changes once)`, async () => {
		const model = textModel();
		const h = await harness(join(dir.path, "window"), model);
		const sessionId = "terminal:picture-window";
		await h.tutor.startLesson({ sessionId, topic: "geometry", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		const photo = picture(4096, "triangle.png");
		await h.tutor.handle(sessionId, { type: "message", text: "my drawing", by: learner, images: [photo] });
		await h.tutor.idle(sessionId);
		for (let i = 0; i < PICTURE_TURNS + 1; i++) {
			await h.tutor.handle(sessionId, { type: "message", text: `and ${i}`, by: learner });
			await h.tutor.idle(sessionId);
		}
		// Requests: the first turn, then the picture's turn and PICTURE_TURNS + 1 more.
		const sent = model.doStreamCalls.map((c) => filesIn(c).length);
		expect(sent).toEqual([0, ...Array(PICTURE_TURNS).fill(1), 0, 0]);
		const later = model.doStreamCalls.at(-1);
		expect(later && userTexts(later)).toContain("[the learner's picture from earlier: triangle.png]");
		expect(model.doStreamCalls.at(1) && filesIn(model.doStreamCalls[1] as LanguageModelV3CallOptions)[0]).toMatchObject(
			{ mediaType: "image/png", data: photo.base64, filename: "triangle.png" },
		);
		// The prefix changes once: where the picture became its placeholder, and never after.
		const json = model.doStreamCalls.map((c) => JSON.stringify(c.prompt));
		const extends_ = (n: number) => json[n]?.startsWith(json[n - 1]?.slice(0, -1) ?? "?");
		expect([2, 3, 4, 5].map(extends_)).toEqual([true, true, false, true]);
		await h.tutor.close();
	});

	it("drop a picture the provider refuses: the learner is told, the turn and the next ones go on", async () => {
		// A provider that refuses every request carrying the picture (a body its decoder rejects).
		const model = textModel((options) => (filesIn(options).length > 0 ? invalidImage() : undefined));
		const h = await harness(join(dir.path, "refused"), model);
		const sessionId = "terminal:picture-refused";
		await h.tutor.startLesson({ sessionId, topic: "algebra", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		const bad = picture(2048, "blurry.png");
		await h.tutor.handle(sessionId, { type: "message", text: "here is my work", by: learner, images: [bad] });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "message", text: "did you see it?", by: learner });
		await h.tutor.idle(sessionId);
		const errors = h.of("error");
		expect(errors.map((e) => e.code)).toEqual(["picture-refused"]);
		expect(errors[0]?.message).toMatch(/could not read a picture/);
		// Every turn answered: the refused request was retried without the picture, and later ones never carry it.
		expect(h.of("text").map((e: Extract<TutorEvent, { type: "text" }>) => e.text)).toEqual([
			"Go on.",
			"Go on.",
			"Go on.",
		]);
		const last = model.doStreamCalls.at(-1);
		expect(last && filesIn(last)).toEqual([]);
		expect(last && userTexts(last)).toContain("[the learner's picture, which the model could not read: blurry.png]");
		const record = await h.store.get(sessionId);
		const ref = record?.messages.flatMap((m) => m.parts).find((p) => p.type === "data-picture") as
			| { data: { refused?: boolean } }
			| undefined;
		expect(ref?.data.refused).toBe(true);
		await h.tutor.close();
	});
});

describe("the picture budget", () => {
	it("is shared by two tutors on the same store (per learner, across lessons)", async () => {
		// Two state stores on one SQLite file stand for two processes (each has its own connection).
		const url = `sqlite://${join(dir.path, "pictures.sqlite")}`;
		const states = [openStateStore(url, "learnharness:pictures"), openStateStore(url, "learnharness:pictures")];
		const budget = { lessonBytesPerHour: Number.POSITIVE_INFINITY, learnerBytesPerDay: 5 * 4096 };
		const tutors = await Promise.all(
			states.map((state, i) =>
				harness(join(dir.path, `budget-${i}`), textModel(), { pictures: createPictureStore(state, { budget }) }),
			),
		);
		const [one, two] = tutors;
		if (!one || !two) throw new Error("two tutors");
		const send = async (h: typeof one, sessionId: string, count: number) => {
			const images = Array.from({ length: count }, (_, i) => picture(4096, `p${i}.png`));
			expect(await h.tutor.handle(sessionId, { type: "message", text: "look", by: learner, images })).toEqual({
				ok: true,
			});
			await h.tutor.idle(sessionId);
		};
		await one.tutor.startLesson({ sessionId: "terminal:budget-a", topic: "maps", learner, mode: "solo" });
		await two.tutor.startLesson({ sessionId: "terminal:budget-b", topic: "maps", learner, mode: "solo" });
		await one.tutor.idle();
		await two.tutor.idle();
		await send(one, "terminal:budget-a", 3);
		await send(two, "terminal:budget-b", 3); // 6 pictures of 4 KiB: the sixth is over the learner's day
		expect(one.of("error")).toEqual([]);
		expect(two.of("error").map((e) => [e.code, e.retryable])).toEqual([["picture-budget", false]]);
		expect(two.of("error")[0]?.message).toMatch(/you have used your pictures for today/);
		// Nothing of the message is lost: its text and its first two pictures are in the lesson.
		const record = await two.store.get("terminal:budget-b");
		const mine = record?.messages.find((m) => m.metadata?.kind === "learner");
		expect(mine?.parts.map((p) => p.type)).toEqual(["text", "data-picture", "data-picture", "text"]);
		expect(mine?.parts[0]).toEqual({ type: "text", text: "look" });
		for (const h of tutors) await h.tutor.close();
		for (const s of states) await s.close();
	});

	it("refuses pictures over a lesson's hour, keeping the text", async () => {
		const pictures = createPictureStore(createMemoryStateStore(), {
			budget: { lessonBytesPerHour: 1.5 * 1024 * 1024, learnerBytesPerDay: Number.POSITIVE_INFINITY },
		});
		const h = await harness(join(dir.path, "lesson-budget"), textModel(), { pictures });
		const sessionId = "terminal:lesson-budget";
		await h.tutor.startLesson({ sessionId, topic: "maps", learner, mode: "group" });
		await h.tutor.idle(sessionId);
		const images = [picture(1024 * 1024, "a.png"), picture(1024 * 1024, "b.png")];
		await h.tutor.handle(sessionId, { type: "message", text: "two", by: learner, images });
		await h.tutor.idle(sessionId);
		expect(h.of("error").map((e) => e.message)).toEqual([
			expect.stringMatching(/this lesson has used its pictures for this hour \(1\.5 MB\)/),
		]);
		await h.tutor.close();
	});
});

describe("a tutor without a picture store of its own", () => {
	it("keeps pictures in memory (one process)", async () => {
		const sessionStore = await import("../../../src/agent/store/session-store.ts");
		const store = await sessionStore.createSessionStore("memory://");
		const tutor = createTutor({ model: textModel(), store, maxRetries: 0 });
		await tutor.startLesson({ sessionId: "terminal:mem", topic: "maps", learner, mode: "solo" });
		await tutor.idle();
		expect(
			await tutor.handle("terminal:mem", {
				type: "message",
				text: "",
				by: learner,
				images: [picture(1024, "x.png")],
			}),
		).toEqual({ ok: true });
		await tutor.idle();
		const parts = (await store.get("terminal:mem"))?.messages.at(-2)?.parts;
		expect(parts?.map((p) => p.type)).toEqual(["text", "data-picture"]);
		await tutor.close();
	});
});
