/**
 * Pictures a learner attaches to a message, downloaded for the tutor: only from
 * the platform's own file hosts (an allowlist of origins: redirects elsewhere are
 * refused, never followed), with the platform's credentials when it needs them,
 * within a byte cap (refused by the declared size or Content-Length first, and
 * the stream cut off past the cap) and a deadline, and accepted only when the
 * bytes themselves are PNG, JPEG, GIF or WebP (a declared type alone proves
 * nothing). What is refused comes back as a problem the controller words for
 * the learner; nothing here throws.
 */

import { LEARNER_IMAGE_LIMITS, type LearnerImage, sniffImageType } from "../../core/learner-images.ts";
import { DEFAULT_LOCALE, type Locale, t, tn } from "../../i18n/index.ts";

/** A file attached to a platform message, as the platform describes it (nothing here is trusted). */
export interface IncomingFile {
	/** Where the platform serves its bytes (Discord's CDN URL, Slack's url_private). */
	url: string | undefined;
	name?: string;
	/** The type the platform (or the uploader) declared. */
	declaredType?: string;
	/** The size in bytes the platform declared. */
	declaredSize?: number;
}

/** How much a message may bring. */
export interface ImageLimits {
	/** Most bytes of one picture (never above LEARNER_IMAGE_LIMITS.maxBytes). */
	maxBytes: number;
	/** Most pictures per message (never above LEARNER_IMAGE_LIMITS.maxPerMessage). */
	maxPerMessage: number;
	/** Longest one download may take, in ms. */
	timeoutMs: number;
}

/**
 * Defaults: 5 MiB, 4 pictures a message, 15 s per download. How many bytes of pictures a lesson
 * and a learner may send is the engine's budget (agent/store/picture-store.ts), shared by every process.
 */
export const DEFAULT_IMAGE_LIMITS: ImageLimits = { ...LEARNER_IMAGE_LIMITS, timeoutMs: 15_000 };

/** Where a platform's files may be downloaded from, and how. */
export interface ImageSource {
	/** Origins (`https://files.slack.com`) a file URL must have; anything else is refused unfetched. */
	origins: readonly string[];
	/** Headers sent with every download (Slack: the bot token); dropped if a redirect changes origin. */
	headers?: Record<string, string>;
	limits?: Partial<ImageLimits>;
	/** The fetch to use (tests); default the global fetch. */
	fetch?: typeof fetch;
}

/** Why a file did not reach the tutor. */
export type ImageProblemReason = "too-big" | "not-an-image" | "too-many" | "unavailable";

/** One refused file. */
export interface ImageProblem {
	reason: ImageProblemReason;
	name: string;
	/** Bytes, when known (too-big). */
	size?: number;
}

/** One file's outcome. */
export type ImageOutcome = { ok: true; image: LearnerImage } | ({ ok: false } & ImageProblem);

const MAX_REDIRECTS = 3;

/** The limits of a source, clamped to the engine's ceilings. */
export function limitsOf(source: Pick<ImageSource, "limits">): ImageLimits {
	const l = { ...DEFAULT_IMAGE_LIMITS, ...source.limits };
	return {
		maxBytes: Math.min(l.maxBytes, LEARNER_IMAGE_LIMITS.maxBytes),
		maxPerMessage: Math.min(l.maxPerMessage, LEARNER_IMAGE_LIMITS.maxPerMessage),
		timeoutMs: l.timeoutMs,
	};
}

/** The origin of a configured API base URL (so tests' fakes serve files), or undefined for none or a bad URL. */
export function originOf(url: string | undefined): string | undefined {
	if (!url || !URL.canParse(url)) return undefined;
	const origin = new URL(url).origin;
	return origin === "null" ? undefined : origin;
}

/** True when `url` may be downloaded under `origins` (exact origin match: scheme, host and port). */
export function allowedUrl(url: string, origins: readonly string[]): boolean {
	if (!URL.canParse(url)) return false;
	const parsed = new URL(url);
	if (parsed.username !== "" || parsed.password !== "") return false;
	return origins.includes(parsed.origin);
}

const fail = (file: IncomingFile, reason: ImageProblemReason, size?: number): ImageOutcome => ({
	ok: false,
	reason,
	name: file.name ?? "the file",
	...(size !== undefined ? { size } : {}),
});

/** Read a body up to `max` bytes; undefined when it is longer (the stream is cancelled there). */
export async function readCapped(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array | undefined> {
	const reader = body.getReader();
	const chunks: Uint8Array[] = [];
	let total = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		total += value.byteLength;
		if (total > max) {
			await reader.cancel().catch(() => {});
			return undefined;
		}
		chunks.push(value);
	}
	const out = new Uint8Array(total);
	let at = 0;
	for (const chunk of chunks) {
		out.set(chunk, at);
		at += chunk.byteLength;
	}
	return out;
}

/** GET `url` following redirects only within the allowlist; the credentials go only to the first origin. */
export async function get(url: string, source: ImageSource, signal: AbortSignal): Promise<Response | undefined> {
	const doFetch = source.fetch ?? fetch;
	const first = new URL(url).origin;
	let current = url;
	for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
		if (!allowedUrl(current, source.origins)) return undefined;
		const sameOrigin = new URL(current).origin === first;
		const res = await doFetch(current, {
			redirect: "manual",
			signal,
			headers: sameOrigin ? (source.headers ?? {}) : {},
		});
		if (res.status < 300 || res.status >= 400) return res;
		await res.body?.cancel().catch(() => {});
		const location = res.headers.get("location");
		if (!location || !URL.canParse(location, current)) return undefined;
		current = new URL(location, current).toString();
	}
	return undefined;
}

/** Download one file and check it; never throws. */
export async function fetchImage(file: IncomingFile, source: ImageSource): Promise<ImageOutcome> {
	const limits = limitsOf(source);
	if (typeof file.declaredSize === "number" && file.declaredSize > limits.maxBytes)
		return fail(file, "too-big", file.declaredSize);
	// A declared non-image (a PDF, a zip) is not fetched at all; a declared image is still sniffed below.
	if (file.declaredType && !file.declaredType.toLowerCase().startsWith("image/")) return fail(file, "not-an-image");
	if (!file.url || !allowedUrl(file.url, source.origins)) return fail(file, "unavailable");
	try {
		const res = await get(file.url, source, AbortSignal.timeout(limits.timeoutMs));
		if (!res?.ok || !res.body) {
			await res?.body?.cancel().catch(() => {});
			return fail(file, "unavailable");
		}
		const length = Number(res.headers.get("content-length") ?? Number.NaN);
		if (Number.isFinite(length) && length > limits.maxBytes) {
			await res.body.cancel().catch(() => {});
			return fail(file, "too-big", length);
		}
		const bytes = await readCapped(res.body, limits.maxBytes);
		if (!bytes) return fail(file, "too-big");
		const mediaType = sniffImageType(bytes);
		if (!mediaType) return fail(file, "not-an-image");
		return {
			ok: true,
			image: {
				mediaType,
				base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
				...(file.name ? { filename: file.name.slice(0, 200) } : {}),
			},
		};
	} catch {
		// A timeout, a refused connection, a reset: the learner is told it could not be read.
		return fail(file, "unavailable");
	}
}

/** The pictures of one message: the first `maxPerMessage` files downloaded at once, and what was refused. */
export async function collectImages(
	files: readonly IncomingFile[],
	source: ImageSource,
): Promise<{ images: LearnerImage[]; problems: ImageProblem[] }> {
	const { maxPerMessage } = limitsOf(source);
	const outcomes = await Promise.all(files.slice(0, maxPerMessage).map((f) => fetchImage(f, source)));
	const images: LearnerImage[] = [];
	const problems: ImageProblem[] = [];
	for (const outcome of outcomes) {
		if (outcome.ok) images.push(outcome.image);
		else {
			const { ok: _ok, ...problem } = outcome;
			problems.push(problem);
		}
	}
	for (const f of files.slice(maxPerMessage)) problems.push({ reason: "too-many", name: f.name ?? "the file" });
	return { images, problems };
}

const megabytes = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
const quoted = (name: string): string => `"${name.replace(/["\n\r`*_~|<>]/g, "").slice(0, 80)}"`;

/** One sentence per refused file, for the learner, in `locale`. */
export function describeImageProblems(
	problems: readonly ImageProblem[],
	limits: ImageLimits,
	locale: Locale = DEFAULT_LOCALE,
): string[] {
	const lines: string[] = [];
	const tooMany = problems.filter((p) => p.reason === "too-many").length;
	for (const p of problems) {
		const name = quoted(p.name);
		if (p.reason === "too-big") {
			const size = p.size !== undefined ? ` (${megabytes(p.size)})` : "";
			lines.push(t(locale, "image.tooBig", { name, size, max: megabytes(limits.maxBytes) }));
		} else if (p.reason === "not-an-image") lines.push(t(locale, "image.notImage", { name }));
		else if (p.reason === "unavailable") lines.push(t(locale, "image.unavailable", { name }));
	}
	if (tooMany > 0) lines.push(tn(locale, "image.tooMany", tooMany, { limit: limits.maxPerMessage }));
	return lines;
}
