/**
 * Material benchmark (`npm run bench:material`), on a temp SQLite file (or BENCH_STORE):
 * 1. a 300-page PDF made with pdf-lib (a heading every 10 pages, ~35 lines of text a page);
 * 2. extraction (the bomb pre-read, PDF.js text per page, headings) and indexing: pages per second,
 *    after one 2-page warm-up read (PDF.js loads its worker code once per process, about 1 to 3 s, not per document);
 * 3. the index stored through the material store (`learnharness:material`): its bytes per page;
 *    then loaded cold by another store (read + postings built), timed once;
 * 4. 1,000 queries (2 to 4 words of the text's vocabulary, one in ten off it) through the store's
 *    open index, as search_material runs them: p50 and p99.
 * The last line is one JSON object. Targets: >= 50 pages/s, search p99 < 20 ms.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { createMaterialStore, openStateStore } from "../src/agent/index.ts";
import { buildIndex, extractPdf } from "../src/material/index.ts";

const PAGES = Number(process.env.BENCH_PAGES ?? 300);
const QUERIES = 1_000;
const LINES = 35;

// A seeded generator: the same PDF and queries every run.
let seed = 42;
const rand = (): number => {
	seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
	return seed / 2 ** 31;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

const WORDS = (
	"cell membrane protein enzyme energy light carbon oxygen water sugar glucose chlorophyll stroma thylakoid " +
	"electron transport gradient pump channel receptor signal hormone gene expression transcription translation " +
	"ribosome mitochondria respiration fermentation pathway cycle reaction rate temperature pressure volume " +
	"equilibrium concentration diffusion osmosis gradient tissue organ system population ecosystem species " +
	"evolution selection mutation inheritance allele dominant recessive genotype phenotype variation adaptation"
).split(" ");
const FILLER = "the of and in to is a that by for with as from on which".split(" ");

const sentence = (): string => {
	const n = 10 + Math.floor(rand() * 6);
	const words = Array.from({ length: n }, () => (rand() < 0.45 ? pick(FILLER) : pick(WORDS)));
	const text = words.join(" ");
	return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
};

async function makeBook(pages: number): Promise<Uint8Array> {
	const doc = await PDFDocument.create();
	const font = await doc.embedFont(StandardFonts.Helvetica);
	const bold = await doc.embedFont(StandardFonts.HelveticaBold);
	for (let p = 0; p < pages; p++) {
		const page = doc.addPage([595, 842]);
		let y = 800;
		if (p % 10 === 0) {
			page.drawText(`Chapter ${p / 10 + 1}: ${pick(WORDS)} and ${pick(WORDS)}`, { x: 50, y, size: 20, font: bold });
			y -= 34;
		}
		if (p % 5 === 2) {
			page.drawText(`${pick(WORDS)} ${pick(WORDS)}`, { x: 50, y, size: 14, font: bold });
			y -= 22;
		}
		for (let l = 0; l < LINES && y > 40; l++, y -= 14)
			page.drawText(sentence().slice(0, 95), { x: 50, y, size: 10, font });
	}
	return doc.save();
}

const percentile = (xs: number[], p: number): number => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;
};

const dir = mkdtempSync(join(tmpdir(), "lh-bench-material-"));
const url = process.env.BENCH_STORE ?? `sqlite://${join(dir, "bench.sqlite")}`;
const writerState = openStateStore(url, "learnharness:material");
const readerState = openStateStore(url, "learnharness:material");
try {
	const made = performance.now();
	const pdf = await makeBook(PAGES);
	console.log(
		`made a ${PAGES}-page PDF (${(pdf.byteLength / 1024).toFixed(0)} KiB) in ${(performance.now() - made).toFixed(0)} ms`,
	);

	const warm = performance.now();
	await extractPdf(await makeBook(2));
	console.log(`warm-up (PDF.js's worker code loaded once per process): ${(performance.now() - warm).toFixed(0)} ms`);

	const started = performance.now();
	const doc = await extractPdf(pdf, { name: "book.pdf" });
	if (!doc.ok) throw new Error(doc.message);
	const index = buildIndex(doc);
	const extractMs = performance.now() - started;
	const pagesPerS = PAGES / (extractMs / 1000);
	console.log(
		`extracted and indexed ${doc.pages.length} pages in ${extractMs.toFixed(0)} ms: ${pagesPerS.toFixed(0)} pages/s ` +
			`(${doc.outline.length} headings, ${index.passages.length} passages)`,
	);

	const writer = createMaterialStore(writerState);
	await writer.put("discord:g1:bench", index);
	const bytesPerPage = Math.round(JSON.stringify(index).length / PAGES);
	console.log(`stored index: ${bytesPerPage} bytes a page (${(JSON.stringify(index).length / 1024).toFixed(0)} KiB)`);

	// Another process's store: the first read loads from SQLite and builds the postings.
	const reader = createMaterialStore(readerState);
	const cold = performance.now();
	const opened = await reader.get("discord:g1:bench");
	const loadMs = performance.now() - cold;
	if (!opened) throw new Error("the index did not load");
	console.log(`cold load (read + postings): ${loadMs.toFixed(1)} ms`);

	const ms: number[] = [];
	let found = 0;
	for (let q = 0; q < QUERIES; q++) {
		const words = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(WORDS));
		const query = q % 10 === 9 ? "quantum gravity spacetime" : words.join(" ");
		const t = performance.now();
		const live = await reader.get("discord:g1:bench");
		const hits = live?.search(query, 4) ?? [];
		ms.push(performance.now() - t);
		if (hits.length > 0) found++;
	}
	const p50 = percentile(ms, 0.5);
	const p99 = percentile(ms, 0.99);
	console.log(`${QUERIES} queries: p50 ${p50.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms (${found} with passages)`);
	console.log(
		JSON.stringify({
			bench: "material",
			pages_per_s: Math.round(pagesPerS),
			index_bytes_per_page: bytesPerPage,
			search_ms_p50: Number(p50.toFixed(3)),
			search_ms_p99: Number(p99.toFixed(3)),
			load_ms: Number(loadMs.toFixed(1)),
		}),
	);
} finally {
	await writerState.close();
	await readerState.close();
	rmSync(dir, { recursive: true, force: true });
}
