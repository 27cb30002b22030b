/**
 * The status under a lesson's thread while the tutor works: `assistant.threads.setStatus`
 * (https://docs.slack.dev/reference/methods/assistant.threads.setStatus; with `chat:write` in
 * channel threads since 2026-03-05), "is thinking…" with a few rotating `loading_messages`, in
 * the lesson's language; `status: ""` clears it (Slack also removes it when the bot posts in
 * the thread, or after two minutes without a post). A failure is logged and never reaches the
 * lesson; a workspace that refuses the method itself (a missing scope, `not_allowed`) is not
 * asked again until the process restarts.
 */

import type { webApi } from "@slack/bolt";
import type { Logger } from "../../core/contracts/logger.ts";
import { type Locale, t } from "../../i18n/index.ts";
import type { WorkPhase } from "../lesson/port.ts";
import { decodeSlackThreadId } from "./thread-id.ts";

/** Errors that say this workspace will never take the call (not a passing failure). */
export const REFUSED_FOR_GOOD = new Set(["missing_scope", "not_allowed", "not_allowed_token_type", "no_permission"]);

/** Slack's error code of a Web API failure, when it has one. */
export const slackError = (error: unknown): string | undefined => {
	const data = (error as { data?: { error?: unknown } } | undefined)?.data;
	return typeof data?.error === "string" ? data.error : undefined;
};

/** The status and its rotating messages for a phase, in `locale`. */
export function statusWords(phase: WorkPhase, locale: Locale): { status: string; loading: string[] } {
	return {
		status: t(locale, `slack.status.${phase}`),
		loading: [t(locale, `slack.loading.${phase}1`), t(locale, `slack.loading.${phase}2`)],
	};
}

/** The port's workStatus over a Web API client (never rejects). */
export function createSlackStatus(
	client: webApi.WebClient,
	logger: Logger,
): (threadId: string, phase: WorkPhase | undefined, locale: Locale) => Promise<void> {
	const off = new Set<string>();
	return async (threadId, phase, locale) => {
		const address = decodeSlackThreadId(threadId);
		if (!address || off.has(address.teamId)) return;
		const words = phase ? statusWords(phase, locale) : undefined;
		try {
			await client.assistant.threads.setStatus({
				channel_id: address.channelId,
				thread_ts: address.threadTs,
				status: words?.status ?? "",
				...(words ? { loading_messages: words.loading } : {}),
			});
		} catch (error) {
			const code = slackError(error);
			if (code && REFUSED_FOR_GOOD.has(code)) {
				off.add(address.teamId);
				logger.info({ code, teamId: address.teamId }, "slack: this workspace refuses the thread status; not using it");
				return;
			}
			logger.warn({ err: error, sessionId: threadId }, "slack: setting the thread status failed");
		}
	};
}
