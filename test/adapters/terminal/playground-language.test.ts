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

describe("the playground's banner", () => {
	it("is in the lesson's language, a resumed lesson's own when none is given", async () => {
		const { t } = await import("../../../src/i18n/index.ts");
		const store = await createSessionStore("memory://");
		const banner = (locale: "en" | "de" | "es") =>
			t(locale, "play.banner", { model: "demo", store: "memory", log: "x.log" });
		const run = async (options: { language?: "de"; resume?: string }, input: string[]) => {
			const tutor = createTutor({ model: createDemoModel(), store });
			const out = new PassThrough();
			let text = "";
			out.on("data", (c: Buffer) => {
				text += c.toString();
			});
			const result = await runPlayground({
				tutor,
				source: createLineSource(Readable.from(input.map((l) => `${l}\n`)), out),
				output: out,
				topic: "binary search",
				banner,
				...options,
			});
			await tutor.close();
			return { result, text };
		};
		const first = await run({ language: "de" }, ["/quit"]);
		expect(first.result.outcome).toBe("paused");
		expect(first.text.startsWith(banner("de"))).toBe(true);
		const resumed = await run({ resume: first.result.sessionId ?? "" }, ["/quit"]);
		expect(resumed.text.startsWith(banner("de"))).toBe(true);
		expect(resumed.text).not.toContain(banner("en"));
	});
});
