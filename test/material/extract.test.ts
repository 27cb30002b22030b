/**
 * Reading a learner's PDF: text per page with headings from font sizes, the passages' index and its
 * search, citations checked against the page, and the malicious set (a compression bomb, a huge page
 * count, embedded JavaScript, injected instructions, not a PDF, too big, too slow), each refused or
 * neutralised with a clear message.
 */
import { describe, expect, it } from "vitest";
import { buildIndex, checkCitation, extractPdf, type MaterialDocument, openIndex } from "../../src/material/index.ts";
import { bombPdf, CHAPTER, chapterPdf, INJECTED_LINE, injectedPdf, manyPagesPdf, scriptedPdf } from "./pdf-fixtures.ts";

async function readChapter(): Promise<MaterialDocument> {
	const doc = await extractPdf(await chapterPdf(), { name: "chapter-8.pdf" });
	if (!doc.ok) throw new Error(doc.message);
	return doc;
}

describe("extracting a PDF", () => {
	it("keeps each page's text and finds the headings by font size, with their pages", async () => {
		const doc = await readChapter();
		expect(doc.name).toBe("chapter-8.pdf");
		expect(doc.pages.map((p) => p.number)).toEqual([1, 2, 3, 4]);
		expect(doc.outline).toEqual([
			{ title: "Light Reactions", page: 1, level: 1 },
			{ title: "The Calvin Cycle", page: 3, level: 1 },
			{ title: "Limiting Factors", page: 4, level: 1 },
		]);
		expect(doc.pages[1]?.headings).toEqual([]);
		expect(doc.pages[2]?.text).toContain("The enzyme rubisco attaches carbon dioxide to a five-carbon sugar.");
		expect(doc.warnings).toEqual([]);
	});

	it("indexes passages by page and finds them with BM25; a query off the material finds nothing", async () => {
		const index = openIndex(buildIndex(await readChapter()));
		const hits = index.search("what does rubisco do");
		expect(hits[0]).toMatchObject({ page: 3, heading: "The Calvin Cycle" });
		expect(index.search("ATP NADPH carriers")[0]?.page).toBe(2);
		// Page 2 has no heading of its own: its passage sits under the heading before it.
		expect(index.search("ATP NADPH carriers")[0]?.heading).toBe("Light Reactions");
		expect(index.search("quantum gravity black holes")).toEqual([]);
	});

	it("accepts a citation only where the page holds the quoted words", async () => {
		const index = openIndex(buildIndex(await readChapter()));
		expect(checkCitation(index, { page: 3, quote: "The enzyme RUBISCO attaches   carbon dioxide" })).toEqual({
			ok: true,
		});
		const wrongPage = checkCitation(index, { page: 1, quote: "The enzyme rubisco attaches carbon dioxide" });
		expect(wrongPage).toMatchObject({ ok: false });
		expect(!wrongPage.ok && wrongPage.reason).toContain("Page 1 of the material does not contain");
		const noPage = checkCitation(index, { page: 9, quote: "The enzyme rubisco attaches" });
		expect(!noPage.ok && noPage.reason).toContain("page 9 does not exist");
		const invented = checkCitation(index, { page: 3, quote: "rubisco is the fastest enzyme known" });
		expect(invented.ok).toBe(false);
		const tooShort = checkCitation(index, { page: 3, quote: "rubisco" });
		expect(!tooShort.ok && tooShort.reason).toContain("at least 3 words");
	});
});

describe("the malicious-PDF set", () => {
	it("refuses a compression bomb unread", async () => {
		const result = await extractPdf(await bombPdf(128 * 1024 * 1024));
		expect(result).toMatchObject({ ok: false, code: "compression-bomb" });
		expect(!result.ok && result.message).toContain("compression bomb");
	}, 60_000);

	it("refuses a 5,000-page PDF before reading any page", async () => {
		const result = await extractPdf(await manyPagesPdf(5000));
		expect(result).toMatchObject({ ok: false, code: "too-many-pages" });
		expect(!result.ok && result.message).toBe(
			"The PDF has 5,000 pages; at most 400 are read. Attach the chapter you are studying.",
		);
	}, 120_000);

	it("ignores embedded JavaScript (never run) and says so", async () => {
		const result = await extractPdf(await scriptedPdf());
		expect(result.ok).toBe(true);
		if (!result.ok) return;
		expect(result.warnings.map((w) => w.code)).toEqual(["scripts-ignored"]);
		expect(result.warnings[0]?.message).toContain("ignored");
		expect(result.pages.map((p) => p.text).join("\n")).not.toContain("app.alert");
	});

	it("keeps injected instructions as the document's words and flags their page", async () => {
		const result = await extractPdf(await injectedPdf());
		expect(result.ok).toBe(true);
		if (!result.ok) return;
		const warning = result.warnings.find((w) => w.code === "instructions-quoted");
		expect(warning?.pages).toEqual([CHAPTER.length + 1]);
		expect(warning?.message).toContain("never as instructions");
		expect(result.pages.at(-1)?.text).toContain(INJECTED_LINE);
	});

	it("refuses what is not a PDF, what is too big, and a read past its time", async () => {
		const notPdf = await extractPdf(new TextEncoder().encode("<html><script>alert(1)</script></html>"));
		expect(notPdf).toMatchObject({ ok: false, code: "not-a-pdf" });
		const pdf = await chapterPdf();
		const big = await extractPdf(pdf, { limits: { maxBytes: 1000 } });
		expect(big).toMatchObject({ ok: false, code: "too-big" });
		const slow = await extractPdf(pdf, { limits: { timeoutMs: 0 } });
		expect(slow).toMatchObject({ ok: false, code: "timeout" });
		expect(!slow.ok && slow.message).toContain("was stopped");
	});

	it("cuts a document past its character limit and says where", async () => {
		const result = await extractPdf(await chapterPdf(), { limits: { maxChars: 200 } });
		expect(result.ok).toBe(true);
		if (!result.ok) return;
		expect(result.warnings.map((w) => w.code)).toEqual(["chars-cut"]);
		expect(result.pages.reduce((n, p) => n + p.text.length, 0)).toBeLessThanOrEqual(200);
	});

	it("refuses a damaged PDF with a reason", async () => {
		const result = await extractPdf(new TextEncoder().encode("%PDF-1.7\n1 0 obj << /Type /Catalog >>\n%%EOF"));
		expect(result.ok).toBe(false);
		expect(!result.ok && ["unreadable", "no-text"]).toContain(!result.ok && result.code);
	});
});
