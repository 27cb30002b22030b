/**
 * A lesson's material as a search index: the document's pages cut into passages (never across a
 * page, so a passage's page is its citation; each under the heading it follows), ranked by BM25.
 * What is stored is `MaterialIndex` (plain JSON: the passages, the outline, the warnings); the
 * postings are built from it when it is loaded (`openIndex`), which costs a few milliseconds for
 * hundreds of pages and keeps the stored bytes close to the text's own.
 */

import type { MaterialDocument, MaterialHeading } from "./extract-pdf.ts";
import type { MaterialWarning } from "./limits.ts";

/** One passage: a page's lines under one heading, about PASSAGE_WORDS words. */
export interface MaterialPassage {
	page: number;
	/** The heading the passage sits under (on its page or an earlier one). */
	heading?: string;
	text: string;
}

/** The stored form of a lesson's material. */
export interface MaterialIndex {
	format: 1;
	name: string;
	pageCount: number;
	outline: MaterialHeading[];
	passages: MaterialPassage[];
	warnings: MaterialWarning[];
	/** `part`: a text file's parts stand for pages (cited "part N"); absent: a PDF's pages. */
	unit?: "part";
}

/** Words per passage (a paragraph or two: enough context, short enough to cite). */
const PASSAGE_WORDS = 90;

/** The document's passages and outline, ready to store. */
export function buildIndex(doc: MaterialDocument): MaterialIndex {
	const passages: MaterialPassage[] = [];
	let heading: string | undefined;
	for (const page of doc.pages) {
		const headings = new Set(page.headings);
		let lines: string[] = [];
		let words = 0;
		const flush = () => {
			if (lines.length === 0) return;
			passages.push({ page: page.number, ...(heading ? { heading } : {}), text: lines.join("\n") });
			lines = [];
			words = 0;
		};
		for (const line of page.text.split("\n")) {
			if (headings.has(line)) {
				flush();
				heading = line;
			}
			lines.push(line);
			words += line.split(" ").length;
			if (words >= PASSAGE_WORDS) flush();
		}
		flush();
	}
	return {
		format: 1,
		name: doc.name,
		pageCount: doc.pages.length,
		outline: doc.outline,
		passages,
		warnings: doc.warnings,
		...(doc.unit ? { unit: doc.unit } : {}),
	};
}

const STOP = new Set(
	"a an and are as at be by for from has have how in is it its of on or that the this to was were what when where which who why will with do does did can you your i me my we our".split(
		" ",
	),
);

/** Words of a text as the index counts them: lower case, letters and digits, stop words dropped, a plural s off. */
export function terms(text: string): string[] {
	const out: string[] = [];
	for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
		if (raw === "" || STOP.has(raw)) continue;
		out.push(raw.length > 3 && raw.endsWith("s") && !raw.endsWith("ss") ? raw.slice(0, -1) : raw);
	}
	return out;
}

/** A passage found, with its score. */
export interface PassageHit extends MaterialPassage {
	score: number;
}

/** An index ready to search. */
export interface OpenIndex {
	readonly stored: MaterialIndex;
	/** The best `limit` passages for `query` (BM25; none when no word of the query is in the material). */
	search(query: string, limit?: number): PassageHit[];
	/** A page's whole text (its passages joined), or undefined for a page the material does not have. */
	pageText(page: number): string | undefined;
}

const K1 = 1.2;
const B = 0.75;
/** Longest query read (the rest is ignored). */
const MAX_QUERY_CHARS = 500;

/** The `k` best entries (highest score, then lowest index), by one pass that keeps a short sorted list (no sort of all). */
function topOf(scores: Iterable<[number, number]>, k: number): Array<[number, number]> {
	const top: Array<[number, number]> = [];
	const better = (a: [number, number], b: [number, number]) => a[1] > b[1] || (a[1] === b[1] && a[0] < b[0]);
	for (const entry of scores) {
		const last = top[top.length - 1];
		if (top.length === k && last && !better(entry, last)) continue;
		let at = top.length;
		while (at > 0 && better(entry, top[at - 1] as [number, number])) at--;
		top.splice(at, 0, entry);
		if (top.length > k) top.pop();
	}
	return top;
}

/** Build the postings of a stored index. */
export function openIndex(stored: MaterialIndex): OpenIndex {
	const postings = new Map<string, Array<[number, number]>>();
	const lengths: number[] = [];
	stored.passages.forEach((p, i) => {
		const words = terms(`${p.heading ?? ""} ${p.text}`);
		lengths.push(words.length);
		const tf = new Map<string, number>();
		for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
		for (const [w, n] of tf) {
			const list = postings.get(w);
			if (list) list.push([i, n]);
			else postings.set(w, [[i, n]]);
		}
	});
	const n = lengths.length;
	const avg = n === 0 ? 1 : lengths.reduce((s, l) => s + l, 0) / n || 1;
	const byPage = new Map<number, string[]>();
	for (const p of stored.passages) {
		const list = byPage.get(p.page);
		if (list) list.push(p.text);
		else byPage.set(p.page, [p.text]);
	}
	return {
		stored,
		search(query, limit = 4) {
			// Scores in a flat array (one slot a passage) and the passages touched: no map, no sort of everything.
			const acc = new Float64Array(n);
			const touched: number[] = [];
			for (const w of new Set(terms(query.slice(0, MAX_QUERY_CHARS)))) {
				const list = postings.get(w);
				if (!list) continue;
				const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
				for (const [i, tf] of list) {
					const len = lengths[i] ?? 0;
					if (acc[i] === 0) touched.push(i);
					acc[i] = (acc[i] ?? 0) + (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg));
				}
			}
			const scores = touched.map((i): [number, number] => [i, acc[i] ?? 0]);
			return topOf(scores, Math.max(1, Math.min(limit, 10))).flatMap(([i, score]) => {
				const p = stored.passages[i];
				return p ? [{ ...p, score: Math.round(score * 1000) / 1000 }] : [];
			});
		},
		pageText: (page) => byPage.get(page)?.join("\n"),
	};
}
