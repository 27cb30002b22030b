/**
 * Why a model request failed, whether to try again, how long to wait, and what to tell the
 * learner. The delay honours `retry-after-ms` / `retry-after` exactly as the AI SDK does
 * (its `getRetryDelayInMs` is not exported from `ai`'s public entry point, and the public
 * `retryWithExponentialBackoff` of `@ai-sdk/provider-utils` reads no headers and throws on
 * a close instead of ending the wait: so the loop and the delay live here); retryable is
 * the SDK's public `APICallError.isRetryable` (408, 409, 429, 5xx, lost connections), plus
 * our own timeouts.
 */

import { APICallError } from "ai";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";

/** A duration as a learner reads it: "800 ms", "45 s", "3 min". */
export const duration = (ms: number): string =>
	ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;

/** An attempt that ran out of time: no progress for `timeoutMs` (`idle`), or longer than its total deadline (`total`). */
export class ModelTimeoutError extends Error {
	override readonly name = "ModelTimeoutError";
	constructor(
		readonly timeoutMs: number,
		readonly kind: "idle" | "total",
	) {
		super(
			kind === "idle"
				? `no response from the model for ${duration(timeoutMs)}`
				: `the model's reply took longer than ${duration(timeoutMs)}`,
		);
	}
}

/** The tutor closed while the request ran. */
export class ClosedError extends Error {
	override readonly name = "ClosedError";
}

/**
 * The account behind the model has no credit left: waiting never helps, an operator must look at billing.
 * OpenAI answers 429 with `insufficient_quota` (its Error codes page: "You exceeded your current quota, please
 * check your plan and billing details"), or `billing_hard_limit_reached`; Anthropic 400 "Your credit balance is
 * too low". The SDK calls the 429 retryable like any rate limit.
 */
export function isQuotaError(error: unknown): boolean {
	if (!APICallError.isInstance(error)) return false;
	const body = (error.responseBody ?? "").slice(0, 4_000);
	return (
		body.includes("insufficient_quota") ||
		body.includes("billing_hard_limit_reached") ||
		/credit balance is too low/i.test(body)
	);
}

/** Worth another attempt: the SDK's verdict for provider errors (an exhausted quota is not), and our timeouts. */
export const retryable = (error: unknown): boolean =>
	error instanceof ModelTimeoutError || (APICallError.isInstance(error) && error.isRetryable && !isQuotaError(error));

/** The APICallError behind a failure (thrown as it is, or as the cause of a wrapper), if any. */
function apiCallError(error: unknown): APICallError | undefined {
	if (APICallError.isInstance(error)) return error;
	const cause = (error as { cause?: unknown } | undefined)?.cause;
	return APICallError.isInstance(cause) ? cause : undefined;
}

/** Client errors that say nothing about the request's content: credentials, a missing model, timeouts, conflicts, rate limits. */
const NOT_ABOUT_CONTENT = new Set([401, 403, 404, 407, 408, 409, 429]);

/**
 * Whether a failed request was refused for the pictures it carried, so the turn should be retried
 * without them: only when it carried any, and only for a 4xx about its content (400 "invalid
 * image", 413 too large, 422 unprocessable): a provider's wording differs, and cannot always say
 * which picture, or that it was a picture. Not for auth, rate limits, timeouts or server errors.
 */
export function isPictureRefusal(error: unknown, carriedPictures: boolean): boolean {
	if (!carriedPictures) return false;
	const api = apiCallError(error);
	if (!api) return false;
	const status = api.statusCode;
	return status !== undefined && status >= 400 && status < 500 && !NOT_ABOUT_CONTENT.has(status);
}

/** The delay before the next attempt: a `retry-after-ms` / `retry-after` the server asked for (under a minute, or under the backoff), else the backoff. */
export function retryDelay(error: unknown, backoffMs: number): number {
	const headers = APICallError.isInstance(error)
		? error.responseHeaders
		: APICallError.isInstance((error as { cause?: unknown } | undefined)?.cause)
			? (error as { cause: APICallError }).cause.responseHeaders
			: undefined;
	if (!headers) return backoffMs;
	let ms: number | undefined;
	const afterMs = headers["retry-after-ms"];
	if (afterMs && !Number.isNaN(Number.parseFloat(afterMs))) ms = Number.parseFloat(afterMs);
	const after = headers["retry-after"];
	if (ms === undefined && after) {
		const seconds = Number.parseFloat(after);
		ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
	}
	return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < 60_000 || ms < backoffMs) ? ms : backoffMs;
}

/** Wait `ms`, or less when `signal` aborts (resolves either way; the caller checks the signal). */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((done) => {
		const timer = setTimeout(finish, ms);
		function finish() {
			clearTimeout(timer);
			signal?.removeEventListener("abort", finish);
			done();
		}
		signal?.addEventListener("abort", finish, { once: true });
	});
}

/** The host (and port) of a request URL, nothing else: no path, query, or credentials. */
export function hostOf(url: string | undefined): string | undefined {
	if (!url || !URL.canParse(url)) return undefined;
	return new URL(url).host || undefined;
}

/** An error code and a message a learner can act on (and an operator can trace), from whatever the provider threw. */
export function describeModelError(
	last: unknown,
	attempts: number,
	locale: Locale = DEFAULT_LOCALE,
): { code: string; message: string } {
	const tries = attempts > 1 ? t(locale, "engine.tries", { count: attempts }) : "";
	const again = t(locale, "engine.again");
	const doctor = t(locale, "engine.doctor");
	if (last instanceof ModelTimeoutError) {
		const key = last.kind === "idle" ? "engine.timeoutIdle" : "engine.timeoutSlow";
		return { code: "model-timeout", message: t(locale, key, { time: duration(last.timeoutMs), tries, again, doctor }) };
	}
	if (last instanceof ClosedError) return { code: "closed", message: t(locale, "engine.restarting") };
	if (APICallError.isInstance(last)) {
		const status = last.statusCode;
		const host = hostOf(last.url);
		const server = host ? t(locale, "engine.serverHost", { host }) : t(locale, "engine.server");
		if (isQuotaError(last)) return { code: "model-quota", message: t(locale, "engine.quota", { server }) };
		if (status === 429) return { code: "rate-limited", message: t(locale, "engine.rateLimited", { tries }) };
		if (status === 401 || status === 403)
			return { code: "model-auth", message: t(locale, "engine.auth", { status: String(status), server }) };
		if (status === undefined)
			return { code: "model-unreachable", message: t(locale, "engine.unreachable", { server, tries, again, doctor }) };
		// Refused as asked (a parameter, a model name, a malformed request): waiting never helps; say what it said.
		if (status >= 400 && status < 500 && status !== 408 && status !== 409)
			return {
				code: "model-refused",
				message: t(locale, "engine.refused", {
					status: String(status),
					server,
					detail: oneLineOf(last.message),
					doctor,
				}),
			};
		return {
			code: "model-unavailable",
			message: t(locale, "engine.unavailable", { status: String(status), server, tries, again, doctor }),
		};
	}
	const text = last instanceof Error ? last.message : typeof last === "string" ? last : safeJson(last);
	return { code: "model-error", message: t(locale, "engine.failed", { detail: text.slice(0, 200), again }) };
}

/** The provider's own words, on one line and bounded (they reach the thread). */
const oneLineOf = (text: string): string => {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length <= 200 ? line : `${line.slice(0, 199)}…`;
};

function safeJson(value: unknown): string {
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}
