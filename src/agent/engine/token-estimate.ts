/**
 * What a model request will likely cost before it is sent: input tokens from its size, and the
 * default output bound of a turn step. Read by the cost caps' reservation (budget.ts, hint-call.ts,
 * grade-pending.ts) and by the model step, which reserves before each request.
 */

/** Characters per token in the input estimate (English prose and JSON run about 4). */
export const CHARS_PER_TOKEN = 4;
/** What an image or file in a request is estimated at (its bytes say nothing of its tokens; a large picture costs about this much). */
export const FILE_TOKENS = 1_600;
/** A turn step's maximum output tokens by default (TutorOptions.maxOutputTokens): room for a reasoning model's thoughts and a lesson step. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8_192;

/** Parts whose bytes are data, not tokens: counted as FILE_TOKENS each. */
const FILE_TYPES = new Set(["file", "image", "image-data", "file-data", "media"]);

/**
 * The input tokens a request (anything JSON-shaped: a provider prompt with its tools, a system and
 * prompt text) will likely cost: its characters / CHARS_PER_TOKEN, plus FILE_TOKENS per image or file.
 * Linear in the request's size.
 */
export function estimateInputTokens(request: unknown): number {
	let files = 0;
	const text = JSON.stringify(request, (_key, value: unknown) => {
		if (typeof value === "object" && value !== null && FILE_TYPES.has((value as { type?: unknown }).type as string)) {
			files++;
			return 0;
		}
		return value;
	});
	return Math.ceil((text?.length ?? 0) / CHARS_PER_TOKEN) + files * FILE_TOKENS;
}
