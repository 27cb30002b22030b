/**
 * Learner-supplied material (a PDF, a text or Markdown file): read within bounds, indexed by page for search, cited only
 * where the page holds the words. Pure of the engine: the agent stores and serves it.
 */

export { type Citation, checkCitation, MAX_QUOTE_CHARS, normalizeForCitation } from "./citation.ts";
export { extractPdf, type MaterialDocument, type MaterialHeading, type MaterialPage } from "./extract-pdf.ts";
export { extractText, isMarkdownName, looksLikeText, PART_CHARS } from "./extract-text.ts";
export {
	DEFAULT_MATERIAL_LIMITS,
	type MaterialLimits,
	type MaterialRefusal,
	type MaterialRefusalCode,
	type MaterialWarning,
} from "./limits.ts";
export { looksLikePdf, readableMaterial, readDocument } from "./read.ts";
export {
	buildIndex,
	type MaterialIndex,
	type MaterialPassage,
	type OpenIndex,
	openIndex,
	type PassageHit,
	terms,
} from "./search-index.ts";
