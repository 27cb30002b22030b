import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLineSource } from "../../../src/adapters/terminal/input.ts";
import { runPlayground } from "../../../src/adapters/terminal/playground.ts";
import { createSessionStore, createTutor } from "../../../src/agent/index.ts";
import { createDemoModel } from "../../../src/agent/models/demo-model.ts";

/** Answers that walk the whole demo lesson, all correct. */
const ANSWERS = ["B", "C", "8", "B", "A", "B", "8", "B", "B", "A", "A"];

describe("the playground in another language", () => {
	it("a German lesson on the (English) demo model: our words in German, the model's in English", async () => {
		const tutor = createTutor({ model: createDemoModel(), store: await createSessionStore("memory://") });
		const out = new PassThrough();
		let text = "";
		out.on("data", (c: Buffer) => {
			text += c.toString();
		});
		const result = await runPlayground({
			tutor,
			source: createLineSource(Readable.from(ANSWERS.map((l) => `${l}\n`)), out),
			output: out,
			topic: "binary search",
			language: "de",
		});
		expect(result).toMatchObject({ outcome: "ended", exitCode: 0 });
		expect((await tutor.getSession(result.sessionId ?? ""))?.language).toBe("de");
		await tutor.close();
		expect(text).toMatch(/Sitzung terminal:\w+\. Tippe \/quit zum Pausieren/);
		expect(text).toMatch(/Kennenlernen · Frage 3/);
		expect(text).toMatch(/Was ich über dich erfahren habe/);
		expect(text).toMatch(/Legende: ▶ aktuell · ✓ gelernt · ~ wackelig · • besucht · ○ noch nicht/);
		expect(text).toMatch(/Lektion abgeschlossen\. Gut gemacht!/);
		expect(text).toMatch(/Verbrauchte Tokens: /);
		// The lesson's header is ours, in German; none of our English terminal lines shows.
		expect(text).toMatch(/Lektion: binary search/);
		expect(text).not.toMatch(/\bLesson: |thinking \(Ctrl\+C|\bby you\b|von you\b/);
	});
});
