/**
 * The app's agent pane (Slack's AI-app split view, manifest `features.agent_view`): a private way in.
 * When a member opens it, Slack starts an app thread in their DM with the app and sends
 * `assistant_thread_started` (https://docs.slack.dev/reference/events/assistant_thread_started); the bot
 * answers at once and then sets up to four suggested prompts for it
 * (`assistant.threads.setSuggestedPrompts`, without thread_ts: an agent app's call with it "will silently
 * fail"): "Review what's due" when reviews are due, then what `/lesson start` would suggest (unfinished lessons,
 * curated topics), then the member's other topics, else two examples. What the
 * member types in that thread (a `message.im` event; events.ts hands it here when no lesson runs there yet)
 * starts a private solo lesson in the same thread, titled with its topic (`assistant.threads.setTitle`), or,
 * for the review prompt, the review, as `/lesson review` would.
 */

import type { App } from "@slack/bolt";
import type { Participant } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { suggestionLabel } from "../lesson/topic-suggestions.ts";
import { type HandlerContext, slackActor } from "./context.ts";
import { encodeSlackThreadId } from "./thread-id.ts";

/** Slack shows at most four suggested prompts. */
const MAX_PROMPTS = 4;
/** A thread title is a line, not the whole question. */
const TITLE_CHARS = 80;

/** An app thread of the pane: the member's DM channel with the app and the thread's ts. */
export interface PaneThread {
	teamId: string;
	channelId: string;
	threadTs: string;
	userId: string;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const obj = (v: unknown): Record<string, unknown> =>
	typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The app thread an `assistant_thread_started` event names (checked, not trusted); undefined when incomplete. */
export function paneThreadOf(body: unknown, event: unknown): PaneThread | undefined {
	const thread = obj(obj(event).assistant_thread);
	const teamId = str(obj(body).team_id) ?? str(obj(thread.context).team_id);
	const channelId = str(thread.channel_id);
	const threadTs = str(thread.thread_ts);
	const userId = str(thread.user_id);
	// The pane is a DM with the app (its channel id starts with D).
	if (!teamId || !channelId?.startsWith("D") || !threadTs || !userId) return undefined;
	return { teamId, channelId, threadTs, userId };
}

/** The message of the review prompt in `locale` (what the member sends when they pick it). */
const reviewMessage = (locale: Locale) => t(locale, "slack.paneReviewMessage");

/** The prompts for a member: the review when something is due, then their topics, else examples; at most four. */
export async function panePrompts(
	ctx: HandlerContext,
	teamId: string,
	by: Participant,
	locale: Locale,
): Promise<Array<{ title: string; message: string }>> {
	const prompts: Array<{ title: string; message: string }> = [];
	const overview = await ctx.controller.profile?.overview(by, teamId, locale).catch((error: unknown) => {
		ctx.logger.warn({ err: error, userId: by.id }, "slack: the pane's prompts could not read the member's progress");
		return undefined;
	});
	if (overview && overview.due > 0)
		prompts.push({
			title: t(locale, "slack.paneReviewTitle", { count: String(overview.due) }),
			message: reviewMessage(locale),
		});
	// Then what /lesson start would suggest (unfinished lessons, the workspace's curated topics; the reviews are
	// the prompt above), then the member's other topics.
	const suggested = (await ctx.controller.suggestTopics(by, teamId, "")).filter((s) => s.source !== "review");
	const seen = new Set(prompts.map((p) => p.message.toLowerCase()));
	const add = (title: string, topic: string) => {
		if (prompts.length >= MAX_PROMPTS || seen.has(topic.toLowerCase())) return;
		seen.add(topic.toLowerCase());
		prompts.push({ title, message: topic });
	};
	for (const s of suggested) add(suggestionLabel(s, locale), s.topic);
	for (const topic of overview?.topics ?? [])
		add(t(locale, "slack.paneTopicTitle", { topic: topic.topic }), topic.topic);
	if (prompts.length === 0)
		for (const example of [t(locale, "slack.paneExampleOne"), t(locale, "slack.paneExampleTwo")])
			prompts.push({ title: example, message: example });
	return prompts.slice(0, MAX_PROMPTS);
}

/** Set the pane's suggested prompts for a thread just started. Never rejects (a failure is logged). */
async function suggest(ctx: HandlerContext, thread: PaneThread): Promise<void> {
	try {
		const locale = (await ctx.admins.locale(thread.userId)) ?? DEFAULT_LOCALE;
		const name = await ctx.admins.displayName(thread.userId);
		const by: Participant = name ? { id: thread.userId, name } : { id: thread.userId };
		await ctx.client.assistant.threads.setSuggestedPrompts({
			channel_id: thread.channelId,
			title: t(locale, "slack.panePromptsTitle"),
			prompts: await panePrompts(ctx, thread.teamId, by, locale),
		} as Parameters<typeof ctx.client.assistant.threads.setSuggestedPrompts>[0]);
	} catch (error) {
		ctx.logger.warn({ err: error, channel: thread.channelId }, "slack: the pane's suggested prompts could not be set");
	}
}

/** Register the pane's thread-started event. */
export function registerAgentPane(app: App, ctx: HandlerContext): void {
	app.event("assistant_thread_started", async ({ body, event }) => {
		const thread = paneThreadOf(body, event);
		if (!thread) return;
		// Answered now; the prompts are set after (their reads and the call never hold Slack's 3 s).
		void suggest(ctx, thread);
	});
}

/**
 * What a member typed in a pane thread that holds no lesson yet: the review prompt starts the review; any other
 * text is the topic of a private solo lesson run in this very thread, which gets the topic as its title.
 */
export async function startInPane(
	ctx: HandlerContext,
	thread: PaneThread,
	by: Participant,
	text: string,
): Promise<void> {
	const locale = (await ctx.admins.locale(by.id)) ?? DEFAULT_LOCALE;
	const target = { channelId: thread.channelId, userId: by.id, threadTs: thread.threadTs };
	const actor = slackActor(ctx, by, target, undefined, locale);
	const topic = text.trim();
	if (topic === "") return;
	if (topic.toLowerCase() === reviewMessage(locale).toLowerCase() && ctx.controller.profile) {
		await ctx.controller.profile.review.start(actor, { community: thread.teamId, channelId: thread.channelId });
		return;
	}
	const threadId = encodeSlackThreadId({
		teamId: thread.teamId,
		channelId: thread.channelId,
		threadTs: thread.threadTs,
	});
	const started = await ctx.controller.start(
		actor,
		{ community: thread.teamId, channelId: thread.channelId, threadId },
		{ topic, mode: "solo" },
	);
	if (!started.ok) return;
	const title = topic.length > TITLE_CHARS ? `${topic.slice(0, TITLE_CHARS - 1)}…` : topic;
	await ctx.client.assistant.threads
		.setTitle({ channel_id: thread.channelId, thread_ts: thread.threadTs, title })
		.catch((error: unknown) =>
			ctx.logger.warn({ err: error, channel: thread.channelId }, "slack: the pane thread's title could not be set"),
		);
}
