/**
 * The terminal playground on the real engine: a message the store cannot save is refused, and
 * the learner reads, in the lesson's language, that it was not saved and to send it again.
 */

import { PassThrough, Readable } from "node:stream";
import { afterAll, expect, it } from "vitest";
import { createLineSource } from "../../../src/adapters/terminal/input.ts";
import { runPlayground } from "../../../src/adapters/terminal/playground.ts";
import { createSessionStore, createTutor } from "../../../src/agent/index.ts";
import { StoreError } from "../../../src/agent/store/errors.ts";
import type { SessionStore } from "../../../src/agent/store/types.ts";
import { t } from "../../../src/i18n/index.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { tempDir } from "../../agent/helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

it("a message the store refused: the playground says it was not saved and to send it again", async () => {
	const inner = await createSessionStore(`sqlite://${dir.path}/playground.sqlite`);
	// The store fails every save that would record a learner's message (the lesson itself saves fine).
	const store: SessionStore = {
		...inner,
		async set(record, options) {
			if (record.messages.some((m) => m.metadata?.kind === "learner") || record.queued)
				throw new StoreError("store-unavailable", "writing failed: disk full");
			return inner.set(record, options);
		},
	};
	const tutor = createTutor({
		model: scriptedModel([{ text: "Hallo! Was weißt du schon über Brüche?" }]),
		store,
		maxRetries: 0,
		saveRetryMs: 100,
	});
	const out = new PassThrough();
	let text = "";
	out.on("data", (c: Buffer) => {
		text += c.toString();
	});
	const result = await runPlayground({
		tutor,
		source: createLineSource(Readable.from(["ein bisschen\n"]), out),
		output: out,
		topic: "Brüche",
		language: "de",
	});
	await tutor.close();
	expect(result.outcome).toBe("input-ended");
	expect(text).toContain(t("de", "engine.messageNotSaved"));
	expect(text).not.toContain(t("de", "engine.notSaved"));
});
