/**
 * Web API client options and defaults derived from SlackAdapterConfig. Retries are
 * explicit (Bolt's default retries for ~30 minutes); rate limits are waited out
 * (rejectRateLimitedCalls: false) so a 429 delays a post instead of dropping it.
 */

import type { Logger as BoltLogger, webApi } from "@slack/bolt";
import type { SlackAdapterConfig, SlackRetryConfig } from "./types.ts";

/** Slack's own Web API. */
export const DEFAULT_SLACK_API_URL = "https://slack.com/api/";

/** Default retries: 3 tries more, 0.5 s to 5 s apart (about 10 s at worst per call). */
export const DEFAULT_RETRY: SlackRetryConfig = { retries: 3, minTimeoutMs: 500, maxTimeoutMs: 5000 };

/** Default per-request timeout. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/** The API base URL with the trailing slash the Web API client joins method names onto. */
export function normalizeApiUrl(url: string | undefined): string {
	const base = url && url.trim() !== "" ? url.trim() : DEFAULT_SLACK_API_URL;
	return base.endsWith("/") ? base : `${base}/`;
}

/** WebClient options for the App (and the Socket Mode client). */
export function clientOptionsFor(config: SlackAdapterConfig, logger: BoltLogger): webApi.WebClientOptions {
	const retry = config.retry ?? DEFAULT_RETRY;
	return {
		slackApiUrl: normalizeApiUrl(config.apiUrl),
		logger,
		retryConfig: {
			retries: retry.retries,
			factor: 2,
			minTimeout: retry.minTimeoutMs,
			maxTimeout: retry.maxTimeoutMs,
			randomize: true,
		},
		rejectRateLimitedCalls: false,
		timeout: config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
	};
}
