/**
 * Learner-supplied material (a PDF): read within bounds, indexed by page for search, cited only
 * where the page holds the words. Pure of the engine: the agent stores and serves it.
 */

export { type Citation, checkCitation, MAX_QUOTE_CHARS, normalizeForCitation } from "./citation.ts";
export { extractPdf, type MaterialDocument, type MaterialHeading, type MaterialPage } from "./extract-pdf.ts";
export {
	DEFAULT_MATERIAL_LIMITS,
	type MaterialLimits,
	type MaterialRefusal,
	type MaterialRefusalCode,
	type MaterialWarning,
} from "./limits.ts";
export {
	buildIndex,
	type MaterialIndex,
	type MaterialPassage,
	type OpenIndex,
	openIndex,
	type PassageHit,
	terms,
} from "./search-index.ts";
