/**
 * Any material file → its index: the bytes decide what it is (a PDF starts with `%PDF-` within its
 * first 1 KB; valid UTF-8 without NUL bytes is text, Markdown when its name says so), never the name
 * or the declared type. Both readers are bounded by the same limits (limits.ts).
 */

import { extractPdf } from "./extract-pdf.ts";
import { extractText, looksLikeText } from "./extract-text.ts";
import type { MaterialLimits, MaterialRefusal } from "./limits.ts";
import { buildIndex, type MaterialIndex } from "./search-index.ts";

/** True when the first KB of `bytes` holds a PDF header (PDF readers allow junk before it). */
export function looksLikePdf(bytes: Uint8Array): boolean {
	return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes("%PDF-");
}

/** True when the bytes are a kind of material that may be read (a PDF, or text): checked before anything is stored. */
export const readableMaterial = (bytes: Uint8Array): boolean => looksLikePdf(bytes) || looksLikeText(bytes);

/** Read and index a document; a refusal (its sentence for the person) when it may not be read. Never rejects. */
export async function readDocument(
	bytes: Uint8Array,
	options: { name: string; limits?: Partial<MaterialLimits> },
): Promise<{ ok: true; index: MaterialIndex } | MaterialRefusal> {
	const doc = looksLikePdf(bytes) ? await extractPdf(bytes, options) : extractText(bytes, options);
	return doc.ok ? { ok: true, index: buildIndex(doc) } : doc;
}
