/**
 * Pictures a learner sends with a message: the types we accept (recognized by
 * their first bytes, never by a declared type alone) and the hard ceilings the
 * engine holds every message to, whatever an adapter was configured with; and
 * the transcript's reference to a stored picture (its bytes live once in the
 * picture store, never in the session record), how long a picture goes to the
 * model, and the words the model reads in its place after that.
 */

/** The image types a learner may send: what vision models read. */
export const LEARNER_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** One of LEARNER_IMAGE_TYPES. */
export type LearnerImageType = (typeof LEARNER_IMAGE_TYPES)[number];

/** Hard ceilings on the pictures of one message. */
export const LEARNER_IMAGE_LIMITS = {
	/** Most bytes of one picture (5 MiB: a phone photo or a screenshot fits; OpenAI takes up to 20 MB). */
	maxBytes: 5 * 1024 * 1024,
	/** Most pictures in one message. */
	maxPerMessage: 4,
} as const;

/** A picture as the engine receives it: its sniffed type and its bytes as base64. */
export interface LearnerImage {
	mediaType: LearnerImageType;
	/** The bytes, base64 (no data: prefix). */
	base64: string;
	/** The name it was uploaded under, when the platform gave one. */
	filename?: string;
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0): boolean =>
	bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b);

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** The image type of `bytes` by their magic number; undefined when they are not PNG, JPEG, GIF or WebP. */
export function sniffImageType(bytes: Uint8Array): LearnerImageType | undefined {
	if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
	if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
	if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
	if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
	return undefined;
}

/** Longest base64 text of one picture under the byte ceiling. */
export const MAX_LEARNER_IMAGE_BASE64 = Math.ceil(LEARNER_IMAGE_LIMITS.maxBytes / 3) * 4;

/**
 * Why a message's pictures may not be stored (undefined when they may): too many, too big,
 * not base64, or bytes that are not the declared image type. Cheap: only the first bytes
 * are decoded.
 */
export function learnerImagesProblem(images: unknown): string | undefined {
	if (images === undefined) return undefined;
	if (!Array.isArray(images)) return "The pictures are malformed.";
	if (images.length > LEARNER_IMAGE_LIMITS.maxPerMessage)
		return `Send at most ${LEARNER_IMAGE_LIMITS.maxPerMessage} pictures in one message.`;
	for (const image of images as Partial<LearnerImage>[]) {
		if (typeof image !== "object" || image === null || typeof image.base64 !== "string")
			return "A picture is malformed.";
		if (!LEARNER_IMAGE_TYPES.includes(image.mediaType as LearnerImageType)) return "A picture has an unknown type.";
		if (image.base64.length > MAX_LEARNER_IMAGE_BASE64) return "A picture is too big.";
		// Head and tail only: the adapter encoded the bytes; this catches a payload that is not ours, cheaply.
		const b64 = /^[A-Za-z0-9+/]*={0,2}$/;
		if (image.base64.length % 4 !== 0 || !b64.test(image.base64.slice(0, 64)) || !b64.test(image.base64.slice(-64)))
			return "A picture is not base64.";
		const head = Uint8Array.from(atob(image.base64.slice(0, 24)), (c) => c.charCodeAt(0));
		if (sniffImageType(head) !== image.mediaType) return "A picture's bytes do not match its type.";
	}
	return undefined;
}

/** Turns a picture goes to the model: the turn it came with and the next two; after that, a placeholder. */
export const PICTURE_TURNS = 3;

/** The transcript part type of a learner's picture (a reference; the bytes are in the picture store). */
export const PICTURE_PART = "data-picture";

/** What the transcript keeps of a picture: enough to find its bytes, never the bytes. */
export interface PictureRef {
	mediaType: LearnerImageType;
	/** sha256 of the bytes, lowercase hex: the picture store's key within the lesson. */
	sha256: string;
	/** Size of the bytes. */
	bytes: number;
	filename?: string;
	/** The lesson's turn count when it was attached: it goes to the model in turns `turn + 1 … turn + PICTURE_TURNS`. */
	turn: number;
	/** The provider refused a request that carried it: never sent again. */
	refused?: true;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** A picture reference from a transcript part's data, or undefined when it is not one (parse, don't cast). */
export function parsePictureRef(data: unknown): PictureRef | undefined {
	if (typeof data !== "object" || data === null) return undefined;
	const d = data as Record<string, unknown>;
	if (!LEARNER_IMAGE_TYPES.includes(d.mediaType as LearnerImageType)) return undefined;
	if (typeof d.sha256 !== "string" || !SHA256.test(d.sha256)) return undefined;
	if (typeof d.bytes !== "number" || !Number.isSafeInteger(d.bytes) || d.bytes < 0) return undefined;
	if (typeof d.turn !== "number" || !Number.isSafeInteger(d.turn) || d.turn < 0) return undefined;
	return {
		mediaType: d.mediaType as LearnerImageType,
		sha256: d.sha256,
		bytes: d.bytes,
		...(typeof d.filename === "string" ? { filename: d.filename.slice(0, 200) } : {}),
		turn: d.turn,
		...(d.refused === true ? { refused: true as const } : {}),
	};
}

/** Whether a picture attached at `ref.turn` still goes to the model while the lesson's turn count is `turns`. */
export function pictureLive(ref: Pick<PictureRef, "turn" | "refused">, turns: number): boolean {
	return ref.refused !== true && turns - ref.turn <= PICTURE_TURNS;
}

/**
 * The text the model reads instead of a picture (its window passed, the provider refused it, or its
 * bytes are gone). A function of the reference only: the same bytes in every later request.
 */
export function picturePlaceholder(ref: Pick<PictureRef, "filename" | "refused">): string {
	const alt = ref.filename ? ref.filename.replace(/[[\]\n\r]/g, "").slice(0, 80) : "photo";
	return ref.refused
		? `[the learner's picture, which the model could not read: ${alt}]`
		: `[the learner's picture from earlier: ${alt}]`;
}
