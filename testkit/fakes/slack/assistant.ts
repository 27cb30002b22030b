/**
 * The fake Slack's AI-app and App Home methods, each checked against Slack's documented request shape (a
 * call Slack would refuse is refused here, with the error Slack names where it names one):
 *
 * - `assistant.threads.setStatus` (https://docs.slack.dev/reference/methods/assistant.threads.setStatus):
 *   `channel_id`, `thread_ts` and `status` required ("" clears it); `loading_messages` an array of at most
 *   10 messages; `chat:write` suffices since 2026-03-05
 *   (https://docs.slack.dev/changelog/2026/03/05/set-status-scope-update); errors `channel_not_found` and
 *   `invalid_thread_ts`. The status goes when the app posts in the thread ("A two minute timeout applies,
 *   which will cause the status to be removed if no message has been sent").
 * - `chat.startStream` / `chat.appendStream` / `chat.stopStream`
 *   (https://docs.slack.dev/reference/methods/chat.startStream, …/chat.appendStream, …/chat.stopStream):
 *   `channel` required; `thread_ts` (required by @slack/web-api 8.2's ChatStartStreamArguments: "Streamed
 *   messages should always be replies to a user request"); `recipient_user_id` and `recipient_team_id`
 *   "Required when streaming to channels" (anything but a DM); `markdown_text` at most 12,000 characters;
 *   appendStream needs `ts` and `markdown_text` (or `chunks`); stopStream needs `ts`, its `blocks` at most 50.
 *   A stream that was stopped takes no more text (`message_not_in_streaming_state`).
 * - `assistant.threads.setSuggestedPrompts`
 *   (https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts): `channel_id` and `prompts`
 *   required, "up to four suggested prompts", each with a `title` and a `message`; `title` optional. "The
 *   thread_ts parameter should only be used in the legacy assistant messaging experience. Including it in a call
 *   for an agent app will cause the call to silently fail": this fake is an agent app (manifest `agent_view`), so
 *   a call with `thread_ts` answers ok and shows nothing.
 * - `assistant.threads.setTitle` (https://docs.slack.dev/reference/methods/assistant.threads.setTitle):
 *   `channel_id`, `thread_ts` and `title` required; `invalid_thread_ts` for a thread that is not there.
 * - `views.publish` (https://docs.slack.dev/reference/methods/views.publish): `user_id` and `view` required;
 *   the view of type `home`; at most 100 blocks (Block Kit: "up to 100 blocks" in modals and Home tabs);
 *   `not_enabled` when the app's Home tab is off; `view_too_large` over 250 kB.
 */

import { blockProblems, SLACK_LIMITS } from "../../fixtures/slack/limits.ts";

/** A message the fake keeps (the shape slack.ts records). */
interface KeptMessage {
	channel: string;
	ts: string;
	threadTs?: string;
	text?: string;
	blocks?: unknown[];
}

/** One status the bot set under a thread (`status` "" is a clear), in the order the fake received them. */
export interface FakeStatus {
	channel: string;
	threadTs: string;
	status: string;
	loadingMessages?: string[];
	/** The position of this call among every Web API call the fake received (for "before the model" checks). */
	seq: number;
}

/** A streamed message: its text so far, whether it is still streaming, and to whom. */
export interface FakeStream {
	channel: string;
	ts: string;
	threadTs: string;
	recipientUserId?: string;
	recipientTeamId?: string;
	/** Each markdown_text as it arrived (start, appends, stop). */
	parts: string[];
	streaming: boolean;
}

/** The Web API method implementations and what they recorded. */
export interface FakeAssistant {
	methods: Record<string, (p: Record<string, unknown>) => Record<string, unknown>>;
	statuses: FakeStatus[];
	streams: Map<string, FakeStream>;
	/** The Home tab last published per user. */
	homes: Map<string, Record<string, unknown>>;
	/** The suggested prompts shown per DM channel (the agent pane), as the last accepted call set them. */
	suggested: Map<string, { title?: string; prompts: Array<{ title: string; message: string }> }>;
	/** Thread titles set per `channel:thread_ts`. */
	titles: Map<string, string>;
	/** The bot posted in a thread: its status goes (Slack removes it once a message is sent). */
	posted(channel: string, threadTs: string | undefined): void;
	/** The status shown under a thread now ("" or undefined: none). */
	statusOf(channel: string, threadTs: string): string | undefined;
}

const MARKDOWN_CHARS = 12_000;
const LOADING_MESSAGES = 10;
const VIEW_BYTES = 250_000;
/** "Use this method to set up to four suggested prompts in an app thread." */
const SUGGESTED_PROMPTS = 4;

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
/** The form decoder reads a value that looks like JSON as JSON; markdown_text is always a string on the wire. */
const textParam = (v: unknown): string | undefined =>
	typeof v === "string" ? v : v === undefined ? undefined : JSON.stringify(v);
const refused = (error: string, ...messages: string[]) => ({
	ok: false,
	error,
	...(messages.length ? { response_metadata: { messages } } : {}),
});

/** The AI-app and App Home methods over the fake's messages. */
export function createSlackAssistant(deps: {
	messages: Map<string, KeptMessage>;
	nextTs: () => string;
	/** The sequence number of the call being answered. */
	callSeq: () => number;
	/** Whether the app's Home tab is enabled (manifest `features.app_home.home_tab_enabled`). */
	homeTab: () => boolean;
}): FakeAssistant {
	const statuses: FakeStatus[] = [];
	const current = new Map<string, string>();
	const streams = new Map<string, FakeStream>();
	const homes = new Map<string, Record<string, unknown>>();
	const suggested: FakeAssistant["suggested"] = new Map();
	const titles = new Map<string, string>();
	const threadKey = (channel: string, threadTs: string) => `${channel}:${threadTs}`;
	const threadExists = (channel: string, threadTs: string) => deps.messages.get(threadTs)?.channel === channel;
	const markdownProblem = (p: Record<string, unknown>, required: boolean): string | undefined => {
		const text = textParam(p.markdown_text);
		if (text === undefined) return required && p.chunks === undefined ? "markdown_text is required" : undefined;
		return text.length > MARKDOWN_CHARS ? `markdown_text is ${text.length} characters > ${MARKDOWN_CHARS}` : undefined;
	};
	const streamOf = (p: Record<string, unknown>) => {
		const stream = streams.get(String(p.ts ?? ""));
		return stream && stream.channel === p.channel ? stream : undefined;
	};
	const show = (stream: FakeStream) => {
		const msg = deps.messages.get(stream.ts);
		if (msg) msg.text = stream.parts.join("");
	};

	const methods: FakeAssistant["methods"] = {
		"assistant.threads.setStatus": (p) => {
			const channel = str(p.channel_id);
			const threadTs = str(p.thread_ts);
			const status = str(p.status);
			if (!channel || !threadTs || status === undefined)
				return refused("invalid_arguments", "channel_id, thread_ts and status are required");
			const loading = p.loading_messages;
			if (loading !== undefined) {
				if (!Array.isArray(loading) || loading.some((m) => typeof m !== "string"))
					return refused("invalid_arguments", "loading_messages must be an array of strings");
				if (loading.length > LOADING_MESSAGES)
					return refused("invalid_arguments", `loading_messages: at most ${LOADING_MESSAGES}`);
			}
			if (![...deps.messages.values()].some((m) => m.channel === channel)) return refused("channel_not_found");
			if (!threadExists(channel, threadTs)) return refused("invalid_thread_ts");
			statuses.push({
				channel,
				threadTs,
				status,
				...(Array.isArray(loading) ? { loadingMessages: loading as string[] } : {}),
				seq: deps.callSeq(),
			});
			current.set(threadKey(channel, threadTs), status);
			return {};
		},
		"chat.startStream": (p) => {
			const channel = str(p.channel);
			const threadTs = str(p.thread_ts);
			if (!channel) return refused("channel_not_found");
			if (!threadTs) return refused("invalid_arguments", "thread_ts is required");
			const dm = channel.startsWith("D");
			if (!dm && (!str(p.recipient_user_id) || !str(p.recipient_team_id)))
				return refused("invalid_arguments", "recipient_user_id and recipient_team_id are required outside a DM");
			const problem = markdownProblem(p, false);
			if (problem) return refused("invalid_arguments", problem);
			if (!threadExists(channel, threadTs)) return refused("invalid_thread_ts");
			const ts = deps.nextTs();
			const first = textParam(p.markdown_text) ?? "";
			const stream: FakeStream = {
				channel,
				ts,
				threadTs,
				parts: [first],
				streaming: true,
				...(str(p.recipient_user_id) ? { recipientUserId: str(p.recipient_user_id) } : {}),
				...(str(p.recipient_team_id) ? { recipientTeamId: str(p.recipient_team_id) } : {}),
			};
			streams.set(ts, stream);
			deps.messages.set(ts, { channel, ts, threadTs, text: first });
			current.delete(threadKey(channel, threadTs));
			return { channel, ts };
		},
		"chat.appendStream": (p) => {
			if (!str(p.channel) || !str(p.ts)) return refused("invalid_arguments", "channel and ts are required");
			const problem = markdownProblem(p, true);
			if (problem) return refused("invalid_arguments", problem);
			const stream = streamOf(p);
			if (!stream) return refused("message_not_found");
			if (!stream.streaming) return refused("message_not_in_streaming_state");
			stream.parts.push(textParam(p.markdown_text) ?? "");
			show(stream);
			return { channel: stream.channel, ts: stream.ts };
		},
		"chat.stopStream": (p) => {
			if (!str(p.channel) || !str(p.ts)) return refused("invalid_arguments", "channel and ts are required");
			const problem = markdownProblem(p, false);
			if (problem) return refused("invalid_arguments", problem);
			const blocks = blockProblems(p.blocks);
			if (blocks.length) return refused("invalid_blocks", ...blocks);
			const stream = streamOf(p);
			if (!stream) return refused("message_not_found");
			if (!stream.streaming) return refused("message_not_in_streaming_state");
			const last = textParam(p.markdown_text);
			if (last) stream.parts.push(last);
			stream.streaming = false;
			show(stream);
			const msg = deps.messages.get(stream.ts);
			if (msg && Array.isArray(p.blocks)) msg.blocks = p.blocks;
			return { channel: stream.channel, ts: stream.ts, message: { ts: stream.ts, text: msg?.text } };
		},
		"assistant.threads.setSuggestedPrompts": (p) => {
			const channel = str(p.channel_id);
			if (!channel) return refused("invalid_arguments", "channel_id is required");
			const prompts = p.prompts;
			if (!Array.isArray(prompts) || prompts.length === 0) return refused("invalid_arguments", "prompts is required");
			if (prompts.length > SUGGESTED_PROMPTS)
				return refused("invalid_arguments", `prompts: up to ${SUGGESTED_PROMPTS} suggested prompts`);
			const parsed: Array<{ title: string; message: string }> = [];
			for (const prompt of prompts) {
				const o = (typeof prompt === "object" && prompt !== null ? prompt : {}) as Record<string, unknown>;
				const title = str(o.title);
				const message = str(o.message);
				if (!title || !message) return refused("invalid_arguments", "each prompt needs a title and a message");
				parsed.push({ title, message });
			}
			if (p.title !== undefined && typeof p.title !== "string")
				return refused("invalid_arguments", "title must be a string");
			if (!channel.startsWith("D")) return refused("channel_not_found");
			// An agent app's call with thread_ts "will silently fail": ok, and nothing is shown.
			if (p.thread_ts !== undefined) return {};
			suggested.set(channel, { ...(str(p.title) ? { title: str(p.title) } : {}), prompts: parsed });
			return {};
		},
		"assistant.threads.setTitle": (p) => {
			const channel = str(p.channel_id);
			const threadTs = str(p.thread_ts);
			const title = str(p.title);
			if (!channel || !threadTs || !title)
				return refused("invalid_arguments", "channel_id, thread_ts and title are required");
			if (!threadExists(channel, threadTs)) return refused("invalid_thread_ts");
			titles.set(threadKey(channel, threadTs), title);
			return {};
		},
		"views.publish": (p) => {
			const userId = str(p.user_id);
			const view = p.view;
			if (!userId || typeof view !== "object" || view === null || Array.isArray(view))
				return refused("invalid_arguments", "user_id and view are required");
			const v = view as Record<string, unknown>;
			if (v.type !== "home") return refused("invalid_arguments", "views.publish publishes a view of type home");
			if (!deps.homeTab()) return refused("not_enabled");
			if (JSON.stringify(v).length > VIEW_BYTES) return refused("view_too_large");
			const problems = blockProblems(v.blocks, SLACK_LIMITS.modalBlocks);
			if (!Array.isArray(v.blocks)) problems.push("view.blocks is required");
			if (String(v.private_metadata ?? "").length > SLACK_LIMITS.privateMetadata)
				problems.push("private_metadata too long");
			if (String(v.callback_id ?? "").length > SLACK_LIMITS.callbackId) problems.push("callback_id too long");
			if (problems.length) return refused("invalid_arguments", ...problems);
			const published = { ...v, id: `VH${userId}` };
			homes.set(userId, published);
			return { view: published };
		},
	};

	return {
		methods,
		statuses,
		streams,
		homes,
		suggested,
		titles,
		posted(channel, threadTs) {
			if (threadTs) current.delete(threadKey(channel, threadTs));
		},
		statusOf: (channel, threadTs) => current.get(threadKey(channel, threadTs)),
	};
}
