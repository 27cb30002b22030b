/**
 * A learner's material file (the PDF, text or Markdown file attached to `/lesson start`, or added to the
 * community's library), downloaded for the tutor the way
 * pictures are (images.ts): only from the platform's own file hosts, with its credentials, within a
 * byte cap and a deadline, and accepted only when the bytes start like a PDF or read as UTF-8 text. Reading it (pages,
 * text, the malicious-file checks) is the engine's (src/material); this only brings the bytes.
 */

import { DEFAULT_MATERIAL_LIMITS, readableMaterial } from "../../agent/index.ts";
import type { MaterialUpload } from "../../core/contracts/tutor.ts";
import { allowedUrl, get, type ImageSource, type IncomingFile, readCapped } from "./images.ts";

/** Where a start's material comes from: a platform file (downloaded here) or bytes the terminal read itself. */
export type MaterialSource = { file: IncomingFile } | MaterialUpload;

/** Longest one download of a material file may take. */
const MATERIAL_DOWNLOAD_MS = 30_000;

const mib = (bytes: number): string => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
const quoted = (name: string): string => `"${name.replace(/["\n\r`*_~|<>]/g, "").slice(0, 80)}"`;

/** The material's bytes, or a sentence saying why it could not be taken (English; the start wraps it). Never rejects. */
export async function fetchMaterial(
	material: MaterialSource,
	source: ImageSource | undefined,
	maxBytes = DEFAULT_MATERIAL_LIMITS.maxBytes,
): Promise<{ ok: true; upload: MaterialUpload } | { ok: false; why: string }> {
	if (!("file" in material)) return { ok: true, upload: material };
	const file = material.file;
	const name = file.name ?? "material.pdf";
	const tooBig = (size: number) => ({
		ok: false as const,
		why: `${quoted(name)} is ${mib(size)}; material may be at most ${mib(maxBytes)}.`,
	});
	if (typeof file.declaredSize === "number" && file.declaredSize > maxBytes) return tooBig(file.declaredSize);
	const unavailable = { ok: false as const, why: `${quoted(name)} could not be downloaded from the platform.` };
	if (!source || !file.url || !allowedUrl(file.url, source.origins)) return unavailable;
	try {
		const res = await get(file.url, source, AbortSignal.timeout(MATERIAL_DOWNLOAD_MS));
		if (!res?.ok || !res.body) {
			await res?.body?.cancel().catch(() => {});
			return unavailable;
		}
		const length = Number(res.headers.get("content-length") ?? Number.NaN);
		if (Number.isFinite(length) && length > maxBytes) {
			await res.body.cancel().catch(() => {});
			return tooBig(length);
		}
		const bytes = await readCapped(res.body, maxBytes);
		if (!bytes) return { ok: false, why: `${quoted(name)} is larger than ${mib(maxBytes)}.` };
		// The bytes decide, never the declared type: a PDF starts with %PDF- (after at most 1 KB, as readers allow);
		// a text or Markdown file is valid UTF-8 without NUL bytes.
		if (!readableMaterial(bytes))
			return {
				ok: false,
				why: `${quoted(name)} is neither a PDF nor a text or Markdown file. Attach a PDF, a .txt or a .md file.`,
			};
		return { ok: true, upload: { name: name.slice(0, 200), data: bytes } };
	} catch {
		return unavailable;
	}
}
