/**
 * A community's library on Discord (the real discord.js client against the fake, the real tutor playing the
 * built-in demo): an admin adds a PDF made with pdf-lib (`/lesson material add`, the file an attachment option),
 * lists it, a learner starts a lesson from it (`/lesson start library:`), and a card cites a page that holds the
 * words it quotes; a member is refused until an admin lets members add; a Markdown file is added and cited by part;
 * an unknown name is refused with what the library holds; remove takes an item out; forget-me and the retention
 * sweep delete items. On Slack: a mention sharing a file adds it, `start … from:` starts from it, and a Markdown
 * file shared with a start mention is read in parts.
 */

import { MockLanguageModelV3 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "../../../src/agent/models/demo-model.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { extractPdf, extractText, normalizeForCitation } from "../../../src/material/index.ts";
import { testClock } from "../../fixtures/profile-stack.ts";
import { chapterPdf } from "../../material/pdf-fixtures.ts";
import { noticeOf, useChat } from "./chat.ts";
import { citedWordsHold } from "./citations.ts";

const demo = () => {
	const model = createDemoModel();
	return new MockLanguageModelV3({ doStream: (options) => model.doStream(options) });
};

const NOTES = [
	"# Cell Biology",
	"",
	"Every living cell is built from small parts that each do one job for the whole cell.",
	"",
	"## The Nucleus",
	"",
	"The nucleus holds the cell's DNA and controls which genes are expressed in the cell.",
	"",
	"## Mitochondria",
	"",
	"Mitochondria release energy from glucose through cellular respiration and make ATP for the cell.",
	"",
].join("\n");

let pdf: Uint8Array;
let pdfPages: string[];
let notesParts: string[];
const markdown = new TextEncoder().encode(NOTES);
beforeAll(async () => {
	pdf = await chapterPdf();
	const doc = await extractPdf(pdf);
	if (!doc.ok) throw new Error(doc.message);
	pdfPages = doc.pages.map((p) => normalizeForCitation(p.text));
	const notes = extractText(markdown, { name: "notes.md" });
	if (!notes.ok) throw new Error(notes.message);
	notesParts = notes.pages.map((p) => normalizeForCitation(p.text));
});

type Explain = Extract<TutorEvent, { type: "explain" }>;
const explains = (events: TutorEvent[], sessionId: string) =>
	events.filter((e): e is Explain => e.type === "explain" && e.sessionId === sessionId);

describe("a community's library on discord", () => {
	const clock = testClock();
	const handle = useChat("discord", { model: demo(), clock });

	it("admins add a PDF, anyone lists it, a lesson starts from it and cites a page holding the quoted words", async () => {
		const { chat } = handle;
		// A member may not add (the default rule); nothing is stored.
		const refused = await chat.command("learner", "material add Chapter 8", undefined, {
			name: "chapter-8.pdf",
			data: pdf,
		});
		expect(refused.text).toContain("Only admins");
		expect((await chat.command("learner", "material list")).text).toContain("The library is empty");

		const added = await chat.command("admin", "material add Chapter 8", undefined, {
			name: "chapter-8.pdf",
			data: pdf,
		});
		expect(added.text).toContain("Added **Chapter 8** to the library (4 pages)");
		// Names are unique whatever their case.
		const again = await chat.command("admin", "material add chapter 8", undefined, { name: "other.pdf", data: pdf });
		expect(again.text).toContain("already has a document named");
		const listed = await chat.command("learner", "material list");
		expect(listed.text).toContain("The library (1 of 50)");
		expect(listed.text).toMatch(/Chapter 8\*\* · 4 pages · added by <@\d+>/);

		// A learner starts from it (any case); the lesson teaches from the library's copy.
		const { sessionId, reply } = await chat.start("learner", "photosynthesis", { library: "chapter 8" });
		expect(reply.text).toContain("Teaching from Chapter 8 (4 pages)");
		const first = await chat.waitFor(() => explains(chat.events, sessionId)[0], "the first explanation");
		expect(first.citation).toEqual({ source: "Chapter 8", page: 1 });
		const card = await chat.waitFor(
			() => chat.posts(sessionId).find((p) => p.includes("📄 Chapter 8, p. 1")),
			"the cited card",
		);
		expect(citedWordsHold(card, "Chapter 8", pdfPages)).toEqual({ page: 1, holds: true });
		await chat.backend.tutor.idle(sessionId);

		// A name the library does not hold: refused, with what it holds; no thread is opened.
		const threads = chat.threads();
		const unknown = await chat.command("learner", "start photosynthesis library:biology");
		expect(unknown.text).toContain("The library has no document named **biology**. It holds: **Chapter 8**.");
		expect(chat.threads()).toBe(threads);
		expect(chat.problems()).toEqual([]);
	}, 60_000);

	it("lets members add once an admin allows it, reads Markdown by parts and cites the part", async () => {
		const { chat } = handle;
		expect((await chat.command("learner", "config members_add_material on")).text).toContain("Only admins");
		const rules = await chat.command("admin", "config members_add_material on");
		expect(rules.text).toContain("Library: members may add documents");
		const added = await chat.command("learner", "material add", undefined, { name: "notes.md", data: markdown });
		expect(added.text).toContain("Added **notes.md** to the library (1 part)");

		const { sessionId, reply } = await chat.start("learner", "cells", { library: "notes.md" });
		expect(reply.text).toContain("Teaching from notes.md (a text file read in parts of about 3,000 characters: 1)");
		const plan = await chat.waitFor(
			() => chat.events.find((e) => e.type === "plan" && e.sessionId === sessionId),
			"the lesson map",
		);
		expect(plan.type === "plan" && plan.tree.nodes.map((n) => n.title)).toEqual([
			"Cell Biology",
			"The Nucleus",
			"Mitochondria",
		]);
		const first = await chat.waitFor(() => explains(chat.events, sessionId)[0], "the first explanation");
		expect(first.citation).toEqual({ source: "notes.md", page: 1, part: true });
		const card = await chat.waitFor(
			() => chat.posts(sessionId).find((p) => p.includes("📄 notes.md, part 1")),
			"the card citing part 1",
		);
		expect(citedWordsHold(card, "notes.md", notesParts, "part")).toEqual({ page: 1, holds: true });
		await chat.backend.tutor.idle(sessionId);
		expect(chat.problems()).toEqual([]);
	}, 60_000);

	it("removes an item (admins only): its list entry and its index go", async () => {
		const { chat } = handle;
		expect((await chat.command("learner", "material remove Chapter 8")).text).toContain("Only admins");
		expect((await chat.command("admin", "material remove CHAPTER 8")).text).toContain(
			"Removed **Chapter 8** from the library.",
		);
		const listed = await chat.command("admin", "material list");
		expect(listed.text).not.toContain("Chapter 8");
		expect(listed.text).toContain("notes.md");
		expect(await chat.backend.library.get(chat.community, "chapter 8")).toBeUndefined();
		const gone = await chat.command("learner", "start photosynthesis library:chapter-8");
		expect(gone.text).toContain("It holds: **notes.md**");
		expect(chat.problems()).toEqual([]);
	}, 60_000);

	it("forget-me takes out what the member added; the retention sweep what is older than the retention", async () => {
		const { chat } = handle;
		await chat.command("admin", "material add Chapter 8", undefined, { name: "chapter-8.pdf", data: pdf });
		const names = async () => (await chat.backend.library.list(chat.community)).map((i) => i.name);
		expect(await names()).toEqual(["Chapter 8", "notes.md"]);
		// The learner added notes.md: forget-me deletes it (their upload), and leaves the admin's.
		const ask = await chat.command("learner", "forget-me");
		await noticeOf(chat, "learner", ask, "lh:pick:lh-forget-me:0", /./);
		expect(await names()).toEqual(["Chapter 8"]);
		expect(await chat.backend.library.get(chat.community, "notes.md")).toBeUndefined();
		// A day short of the retention (365 days by default) it stays; past it, the sweep deletes it.
		clock.advanceDays(364);
		await chat.backend.learning.sweep();
		expect(await names()).toEqual(["Chapter 8"]);
		clock.advanceDays(2);
		await chat.backend.learning.sweep();
		expect(await names()).toEqual([]);
		expect(await chat.backend.library.communities()).not.toContain(chat.community);
	}, 60_000);
});

describe("a community's library on slack", () => {
	const handle = useChat("slack", { model: demo() });

	it("adds a file shared with a mention, lists it, and starts a lesson `from:` it", async () => {
		const { chat } = handle;
		const refused = await chat.command("learner", "material add Chapter 8", undefined, {
			name: "chapter-8.pdf",
			data: pdf,
		});
		expect(refused.text).toContain("Only admins");
		const added = await chat.command("admin", "material add Chapter 8", undefined, {
			name: "chapter-8.pdf",
			data: pdf,
		});
		expect(added.text).toContain("Added *Chapter 8* to the library (4 pages)");
		expect((await chat.command("learner", "material list")).text).toContain("Chapter 8");
		expect((await chat.command("admin", "material add")).text).toContain("share the file");

		const reply = await chat.command("learner", "start photosynthesis from:chapter 8");
		expect(reply.text).toContain("Teaching from Chapter 8 (4 pages)");
		const sessionId = await chat.waitFor(
			() => chat.events.find((e) => e.type === "explain" && e.citation?.source === "Chapter 8")?.sessionId,
			"a cited explanation",
		);
		const card = await chat.waitFor(
			() => chat.posts(sessionId).find((p) => p.includes("📄 Chapter 8, p. 1")),
			"the cited card",
		);
		expect(citedWordsHold(card, "Chapter 8", pdfPages)).toEqual({ page: 1, holds: true });
		await chat.backend.tutor.idle(sessionId);
		expect((await chat.command("admin", "material remove chapter 8")).text).toContain("Removed");
		expect(chat.problems()).toEqual([]);
	}, 60_000);

	it("starts a lesson on a Markdown file shared with the start mention, cited by part", async () => {
		const { chat } = handle;
		const { sessionId, reply } = await chat.start("learner", "cells", {
			material: { name: "notes.md", data: markdown },
		});
		expect(reply.text).toContain("Teaching from notes.md (a text file read in parts of about 3,000 characters: 1)");
		await chat.waitFor(
			() => chat.posts(sessionId).find((p) => p.includes("📄 notes.md, part 1")),
			"the card citing part 1",
		);
		await chat.backend.tutor.idle(sessionId);
		expect(chat.problems()).toEqual([]);
	}, 60_000);
});
