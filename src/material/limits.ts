/**
 * The bounds every learner-supplied document is read within. A file over any of them is refused
 * (or, for characters, cut) with a clear reason; nothing in a document may cost more than these.
 */

/** How much one document may cost to read. */
export interface MaterialLimits {
	/** Most bytes of the file itself. */
	maxBytes: number;
	/** Most pages; a longer document is refused before any page is read. */
	maxPages: number;
	/** Most characters kept across all pages (the rest is cut, and the learner told). */
	maxChars: number;
	/** Most bytes all compressed streams may inflate to together (a compression bomb is refused unread). */
	maxInflatedBytes: number;
	/** Longest the whole extraction may take, in ms. */
	timeoutMs: number;
}

/** Defaults: 20 MiB, 400 pages, 1.5 M characters, 96 MiB inflated, 20 s. */
export const DEFAULT_MATERIAL_LIMITS: MaterialLimits = {
	maxBytes: 20 * 1024 * 1024,
	maxPages: 400,
	maxChars: 1_500_000,
	maxInflatedBytes: 96 * 1024 * 1024,
	timeoutMs: 20_000,
};

/** Why a document was refused. */
export type MaterialRefusalCode =
	| "not-a-pdf"
	| "too-big"
	| "too-many-pages"
	| "compression-bomb"
	| "encrypted"
	| "unreadable"
	| "no-text"
	| "timeout";

/** A refusal, with a sentence for the learner (English; the controller may word it in the lesson's language). */
export interface MaterialRefusal {
	ok: false;
	code: MaterialRefusalCode;
	message: string;
}

/** Something in a document that was neutralised rather than refused. */
export type MaterialWarningCode = "scripts-ignored" | "instructions-quoted" | "chars-cut";

/** One neutralised thing, with a sentence for the learner. */
export interface MaterialWarning {
	code: MaterialWarningCode;
	message: string;
	/** The pages it was found on, when known. */
	pages?: number[];
}

const mib = (bytes: number): string => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/** The refusal sentence of each code. */
export function refusal(code: MaterialRefusalCode, limits: MaterialLimits, detail?: string): MaterialRefusal {
	const why: Record<MaterialRefusalCode, string> = {
		"not-a-pdf": "The material is not a PDF (its bytes do not start with %PDF-). Attach a PDF file.",
		"too-big": `The PDF is larger than ${mib(limits.maxBytes)}${detail ? ` (${detail})` : ""}. Attach a shorter excerpt, such as one chapter.`,
		"too-many-pages": `The PDF has ${detail ?? "too many"} pages; at most ${limits.maxPages} are read. Attach the chapter you are studying.`,
		"compression-bomb": `The PDF's compressed content would unpack to more than ${mib(limits.maxInflatedBytes)} (a compression bomb, or a document far too large); it was not read.`,
		encrypted: "The PDF is password-protected or encrypted; attach an unprotected copy.",
		unreadable: `The PDF could not be read${detail ? ` (${detail})` : ""}; it may be damaged.`,
		"no-text": "The PDF holds no text that can be read (a scan, or pictures only). Attach a PDF with selectable text.",
		timeout: `Reading the PDF took longer than ${Math.round(limits.timeoutMs / 1000)} s; it was stopped. Attach a shorter excerpt.`,
	};
	return { ok: false, code, message: why[code] };
}
