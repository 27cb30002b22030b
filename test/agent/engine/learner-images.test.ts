/**
 * Pictures in a learner's message, in the engine: recognized by their bytes, bounded in
 * number and size (checked again here, whatever the adapter did), kept in the transcript as
 * references (the bytes live in the picture store), and sent to the model as file parts in
 * that request and the next ones of its window (test/agent/engine/pictures.test.ts: after it).
 */

import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import {
	LEARNER_IMAGE_LIMITS,
	type LearnerImage,
	learnerImagesProblem,
	MAX_LEARNER_IMAGE_BASE64,
	sniffImageType,
} from "../../../src/core/learner-images.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { harness, learner, tempDir } from "../helpers.ts";

const PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const png: LearnerImage = { mediaType: "image/png", base64: PNG_B64, filename: "p.png" };
const dir = tempDir();
afterAll(() => dir.cleanup());

describe("sniffImageType and learnerImagesProblem", () => {
	it("know the four types by their first bytes and nothing else", () => {
		const bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
		expect(sniffImageType(Buffer.from(PNG_B64, "base64"))).toBe("image/png");
		expect(sniffImageType(Uint8Array.from([0xff, 0xd8, 0xff, 0xdb]))).toBe("image/jpeg");
		expect(sniffImageType(bytes("GIF87a...."))).toBe("image/gif");
		expect(sniffImageType(bytes("RIFF\x00\x00\x00\x00WEBPVP8 "))).toBe("image/webp");
		for (const other of ["%PDF-1.7", "RIFF\x00\x00\x00\x00WAVEfmt ", "PK\x03\x04", "<svg>", ""])
			expect(sniffImageType(bytes(other)), other).toBeUndefined();
	});

	it("refuse too many, too big, mislabelled or malformed pictures", () => {
		expect(learnerImagesProblem(undefined)).toBeUndefined();
		expect(learnerImagesProblem([png])).toBeUndefined();
		expect(learnerImagesProblem(Array(LEARNER_IMAGE_LIMITS.maxPerMessage + 1).fill(png))).toMatch(/at most 4/);
		expect(learnerImagesProblem([{ ...png, base64: "A".repeat(MAX_LEARNER_IMAGE_BASE64 + 4) }])).toMatch(/too big/);
		expect(learnerImagesProblem([{ ...png, mediaType: "image/jpeg" }])).toMatch(/do not match/);
		expect(learnerImagesProblem([{ ...png, mediaType: "application/pdf" }])).toMatch(/unknown type/);
		expect(learnerImagesProblem([{ ...png, base64: `${PNG_B64.slice(0, -4)}!!!!` }])).toMatch(/not base64/);
		expect(learnerImagesProblem([{ mediaType: "image/png" }])).toMatch(/malformed/);
		expect(learnerImagesProblem("nope")).toMatch(/malformed/);
	});
});

describe("a message with pictures", () => {
	it("is stored with file parts and sent to the model as images, now and in later requests", async () => {
		const model = scriptedModel([{ text: "Hi! Show me." }, { text: "A triangle." }, { text: "Sure." }]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:pictures";
		await h.tutor.startLesson({ sessionId, topic: "geometry", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(await h.tutor.handle(sessionId, { type: "message", text: "", by: learner, images: [png] })).toEqual({
			ok: true,
		});
		await h.tutor.idle(sessionId);
		expect(await h.tutor.handle(sessionId, { type: "message", text: "thanks", by: learner })).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		const record = await h.store.get(sessionId);
		const mine = (record?.messages ?? []).filter((m) => m.metadata?.kind === "learner");
		const bytes = Buffer.from(PNG_B64, "base64");
		expect(mine[0]?.parts).toEqual([
			{ type: "text", text: "(sent a picture)" },
			{
				type: "data-picture",
				data: {
					mediaType: "image/png",
					sha256: createHash("sha256").update(bytes).digest("hex"),
					bytes: bytes.byteLength,
					filename: "p.png",
					turn: 1,
				},
			},
		]);
		const filesSent = (n: number) =>
			(model.doStreamCalls[n]?.prompt ?? []).flatMap((m) =>
				m.role === "user" ? m.content.filter((p) => p.type === "file") : [],
			);
		expect(filesSent(1)).toEqual([{ type: "file", mediaType: "image/png", filename: "p.png", data: PNG_B64 }]);
		expect(filesSent(2)).toEqual(filesSent(1));
		await h.tutor.close();
	});

	it("is refused whole when a picture fails the engine's checks (nothing recorded)", async () => {
		const h = await harness(dir.path, scriptedModel([{ text: "Hi!" }]));
		const sessionId = "terminal:bad-pictures";
		await h.tutor.startLesson({ sessionId, topic: "geometry", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		const before = (await h.store.get(sessionId))?.messages.length;
		const pdf = { mediaType: "image/png" as const, base64: Buffer.from("%PDF-1.7 fake").toString("base64") };
		expect(
			await h.tutor.handle(sessionId, { type: "message", text: "look", by: learner, images: [pdf] }),
		).toMatchObject({ ok: false, code: "invalid-answer" });
		expect(await h.tutor.handle(sessionId, { type: "message", text: " ", by: learner, images: [] })).toMatchObject({
			ok: false,
			code: "invalid-answer",
		});
		expect((await h.store.get(sessionId))?.messages.length).toBe(before);
		await h.tutor.close();
	});
});
