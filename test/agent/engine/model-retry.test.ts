/**
 * isPictureRefusal: which failures of a request carrying pictures drop them and retry the
 * step without them (a 4xx about the content), and which do not (auth, rate limits, timeouts,
 * server errors, anything from a request without pictures).
 */

import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { isPictureRefusal, ModelTimeoutError } from "../../../src/agent/engine/model-retry.ts";

const apiError = (statusCode: number | undefined, message = "Bad Request") =>
	new APICallError({
		message,
		url: "https://api.example.test/v1/responses",
		requestBodyValues: {},
		...(statusCode !== undefined ? { statusCode } : {}),
		isRetryable: statusCode === undefined || statusCode === 429 || statusCode >= 500,
	});

describe("isPictureRefusal", () => {
	it("is a refusal for a 4xx about the content of a request that carried pictures", () => {
		expect(isPictureRefusal(apiError(400, "Invalid image."), true)).toBe(true);
		expect(isPictureRefusal(apiError(400, "Could not process image"), true)).toBe(true);
		expect(isPictureRefusal(apiError(400, "messages.3: unexpected content"), true)).toBe(true);
		expect(isPictureRefusal(apiError(413, "Request Entity Too Large"), true)).toBe(true);
		expect(isPictureRefusal(apiError(422), true)).toBe(true);
		// Wrapped (a retry error carrying the provider's error as its cause).
		expect(isPictureRefusal(new Error("failed", { cause: apiError(400, "Invalid image.") }), true)).toBe(true);
	});

	it("is not a refusal without pictures, nor for auth, a missing model, timeouts, rate limits or server errors", () => {
		expect(isPictureRefusal(apiError(400, "Invalid image."), false)).toBe(false);
		for (const status of [401, 403, 404, 408, 409, 429, 500, 502, 503])
			expect(isPictureRefusal(apiError(status, "image"), true), String(status)).toBe(false);
		expect(isPictureRefusal(apiError(undefined, "fetch failed"), true)).toBe(false);
		expect(isPictureRefusal(new ModelTimeoutError(1000, "idle"), true)).toBe(false);
		expect(isPictureRefusal(new Error("Invalid image."), true)).toBe(false);
		expect(isPictureRefusal(undefined, true)).toBe(false);
	});
});
