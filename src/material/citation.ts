/**
 * A citation checked in code: the page must exist in the lesson's material and hold the quoted
 * words (compared after case, spacing, quotes and dashes are set aside). A citation that fails is
 * refused with a reason the model can act on; it never reaches the learner.
 */

import type { OpenIndex } from "./search-index.ts";

/** A citation as the teacher gives it. */
export interface Citation {
	page: number;
	quote: string;
}

/** Fewest words a quote must have (a single common word proves nothing). */
export const MIN_QUOTE_WORDS = 3;
/** Most characters of a quote. */
export const MAX_QUOTE_CHARS = 300;

/** Text as citations compare it. */
export function normalizeForCitation(text: string): string {
	return text
		.normalize("NFKC")
		.toLowerCase()
		.replace(/[\u2018\u2019\u201a\u201b`´]/g, "'")
		.replace(/[\u201c\u201d\u201e\u201f]/g, '"')
		.replace(/[\u2010-\u2015\u2212]/g, "-")
		.replace(/[^\p{L}\p{N}'"\-.,;:%()/+=<>]+/gu, " ")
		.replace(/\s+/g, " ")
		.trim();
}

/** The verdict on a citation: fine, or why not (addressed to the model). */
export function checkCitation(index: OpenIndex, citation: Citation): { ok: true } | { ok: false; reason: string } {
	const { page, quote } = citation;
	const pages = index.stored.pageCount;
	if (!Number.isInteger(page) || page < 1 || page > pages)
		return {
			ok: false,
			reason: `The material has pages 1 to ${pages}; page ${page} does not exist. Cite a page that search_material returned, or leave out \`source\`.`,
		};
	const wanted = normalizeForCitation(quote);
	if (wanted.split(" ").filter((w) => w !== "").length < MIN_QUOTE_WORDS)
		return {
			ok: false,
			reason: `The quote must be at least ${MIN_QUOTE_WORDS} words copied from the page, so the learner can find them.`,
		};
	const text = index.pageText(page);
	if (text === undefined || !normalizeForCitation(text).includes(wanted))
		return {
			ok: false,
			reason: `Page ${page} of the material does not contain the words "${quote.slice(0, 120)}". Quote words exactly as search_material returned them for that page, or, when the material does not cover this, leave out \`source\` and say so: never invent a citation.`,
		};
	return { ok: true };
}
