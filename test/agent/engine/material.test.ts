/**
 * The engine with a lesson's material: a refused PDF refuses the start with its reason (nothing stored); an
 * accepted one is searched by search_material (passages with pages, quoted-material note; none off the
 * material); explain's citation is checked in code: a page that does not hold the quoted words is refused as a
 * tool error the model sees (no card), a page that does is shown with the card's citation.
 */

import { afterAll, describe, expect, it } from "vitest";
import { QUOTED_NOTE } from "../../../src/agent/tools/search-material.ts";
import { toolParts } from "../../../src/core/transcript.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { bombPdf, chapterPdf } from "../../material/pdf-fixtures.ts";
import { harness, learner, tempDir } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const assessment = { assessment: { strands: [{ strand: "photosynthesis", assessment: "new to it" }] } };

describe("a lesson with material", () => {
	it("refuses a compression bomb at start, saying why, and stores nothing", async () => {
		const h = await harness(dir.path, scriptedModel([]));
		const sessionId = "terminal:bomb";
		const result = await h.tutor.startLesson({
			sessionId,
			topic: "photosynthesis",
			learner,
			mode: "solo",
			material: { name: "bomb.pdf", data: await bombPdf(128 * 1024 * 1024) },
		});
		expect(result).toMatchObject({ ok: false, code: "material" });
		expect(!result.ok && result.message).toContain("compression bomb");
		expect(await h.tutor.getSession(sessionId)).toBeUndefined();
		await h.tutor.close();
	}, 60_000);

	it("searches with pages, refuses a fake citation, and shows a checked one", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "probe_done", input: assessment, id: "pd" }] },
			{ calls: [{ name: "search_material", input: { query: "rubisco carbon dioxide" }, id: "s1" }] },
			{ calls: [{ name: "search_material", input: { query: "quantum gravity" }, id: "s2" }] },
			{
				calls: [
					{
						name: "explain",
						input: {
							body: "Rubisco is the fastest enzyme.",
							source: { page: 1, quote: "The enzyme rubisco attaches carbon" },
						},
						id: "fake",
					},
				],
			},
			{
				calls: [
					{
						name: "explain",
						input: { body: "Rubisco fixes carbon.", source: { page: 3, quote: "The enzyme rubisco attaches carbon" } },
						id: "real",
					},
				],
			},
			{ text: "Over to you." },
		]);
		const h = await harness(dir.path, model);
		const sessionId = "terminal:chapter";
		const result = await h.tutor.startLesson({
			sessionId,
			topic: "photosynthesis",
			learner,
			mode: "solo",
			material: { name: "chapter-8.pdf", data: await chapterPdf() },
		});
		expect(result).toEqual({ ok: true, material: { name: "chapter-8.pdf", pages: 4, warnings: [] } });
		await h.tutor.idle(sessionId);
		const record = await h.store.get(sessionId);
		const parts = new Map([...toolParts(record?.messages ?? [])].map((p) => [p.toolCallId, p]));
		const found = parts.get("s1");
		expect(found?.state).toBe("output-available");
		expect(found?.output).toMatchObject({ source: "chapter-8.pdf", note: QUOTED_NOTE });
		expect(found?.output).toHaveProperty("passages.0.page", 3);
		expect(found?.output).toHaveProperty("passages.0.heading", "The Calvin Cycle");
		expect(parts.get("s2")?.output).toMatchObject({ passages: [] });
		const fake = parts.get("fake");
		expect(fake?.state).toBe("output-error");
		expect(fake?.errorText).toContain("Page 1 of the material does not contain the words");
		expect(parts.get("real")?.state).toBe("output-available");
		const explains = h.of("explain");
		expect(explains.map((e) => e.toolCallId)).toEqual(["real"]);
		expect(explains[0]?.citation).toEqual({ source: "chapter-8.pdf", page: 3 });
		// The start note told the model the outline, as quoted strings with their pages.
		const note = record?.messages[0]?.parts[0];
		expect(note?.type === "text" && note.text).toContain('- "The Calvin Cycle" (p. 3)');
		await h.tutor.close();
	});
});
