/** What the material contract tests check on a card: the page (or part) it cites holds the words it quotes. */

import { normalizeForCitation } from "../../../src/material/index.ts";

/**
 * The words a card quotes (its "> …" line), checked against the page (or a text file's part) it cites as
 * "📄 <source>, p. N" (or ", part N"); `pages` are the document's pages, normalised for citations.
 */
export function citedWordsHold(
	card: string,
	source: string,
	pages: readonly string[],
	unit: "p." | "part" = "p.",
): { page: number; holds: boolean } | undefined {
	const cite = new RegExp(`📄 ${source.replace(".", "\\.")}, ${unit.replace(".", "\\.")} (\\d+)`).exec(card);
	const quote = card
		.split("\n")
		.find((l) => l.startsWith("> "))
		?.slice(2)
		.replace(/ …$/, "");
	if (!cite || !quote) return undefined;
	const page = Number(cite[1]);
	return { page, holds: pages[page - 1]?.includes(normalizeForCitation(quote)) === true };
}
