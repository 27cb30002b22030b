/**
 * A fake Slack on 127.0.0.1 for tests: the Web API methods the adapter calls (recorded, with
 * Slack's own limits enforced), files (slack/files.ts: the three-step upload with a loopback
 * upload URL, shared files and Slack Connect's, files.info, which image blocks Slack shows),
 * response_url, a Socket Mode websocket, and helpers that sign and send requests to Bolt's
 * HTTP receiver the way Slack does (slash commands, block_actions, view_submission, events;
 * typed text escaped as Slack escapes it).
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";

import { callProblems } from "../fixtures/slack/limits.ts";
import {
	type Actor,
	type BoltResponse,
	type SendOptions,
	SlackSender,
	signSlackRequest,
} from "../fixtures/slack/requests.ts";
import { createSlackAssistant, type FakeAssistant, type FakeStatus, type FakeStream } from "./slack/assistant.ts";
import { BalancedSender, type BalancerOptions } from "./slack/balancer.ts";
import { createSlackFiles, type FakeConnectFile, type FakeSharedFile, type FakeUpload } from "./slack/files.ts";

export { blockProblems, callProblems, SLACK_LIMITS } from "../fixtures/slack/limits.ts";
export type { FakeStatus, FakeStream } from "./slack/assistant.ts";
export { BalancedSender, type BalancerOptions, type DeliveryAttempt } from "./slack/balancer.ts";
export type { FakeConnectFile, FakeSharedFile, FakeUpload } from "./slack/files.ts";
export { type Actor, type BoltResponse, type SendOptions, SlackSender, signSlackRequest };

/** One Web API call (or response_url post) the fake received. */
export interface RecordedCall {
	method: string;
	params: Record<string, unknown>;
	token?: string;
	/** The fake's answer: ok, or the error it gave (set once answered). */
	ok?: boolean;
	error?: string;
	/** A response_url post with replace_original: the message it replaced. */
	replaced?: { channel: string; ts: string };
}

/** A message the bot posted, as the fake keeps it (chat.update edits it in place). */
export interface FakeMessage {
	channel: string;
	ts: string;
	threadTs?: string;
	text?: string;
	blocks?: unknown[];
}

/** A workspace member as users.info returns it. */
export interface FakeSlackUser {
	id: string;
	name: string;
	is_admin?: boolean;
	is_owner?: boolean;
	is_bot?: boolean;
	/** Their Slack language (users.info returns it only with include_locale, as Slack does). */
	locale?: string;
}

/** What an override returns: a JSON body, an HTTP status (e.g. 429 with Retry-After), or undefined to fall through. */
export type FakeReply = { body?: Record<string, unknown>; status?: number; retryAfter?: number } | undefined;

/** Options of the fake workspace. */
export interface FakeSlackOptions {
	teamId?: string;
	signingSecret?: string;
	users?: FakeSlackUser[];
	/** How long a trigger_id may wait for views.open (Slack: 3 s). */
	triggerTtlMs?: number;
	/** The app's Home tab is enabled (default true; off: views.publish answers `not_enabled`). */
	homeTab?: boolean;
}

/** A decoded Socket Mode ack. */
export interface SocketAck {
	envelope_id: string;
	payload?: unknown;
}

/** A started fake Slack. */
export interface FakeSlack {
	/** Web API base URL, ending with a slash (for clientOptions.slackApiUrl). */
	apiUrl: string;
	baseUrl: string;
	teamId: string;
	botUserId: string;
	botId: string;
	signingSecret: string;
	calls: RecordedCall[];
	uploads: FakeUpload[];
	messages: Map<string, FakeMessage>;
	/** Every assistant.threads.setStatus the fake accepted, in order ("" clears). */
	statuses: FakeStatus[];
	/** The status shown under a thread now (a post by the bot in the thread removes it, as Slack does). */
	statusOf(channel: string, threadTs: string): string | undefined;
	/** Streamed messages (chat.startStream … stopStream) by ts. */
	streams: Map<string, FakeStream>;
	/** The Home tab last published (views.publish) per user id. */
	homes: Map<string, Record<string, unknown>>;
	/** The suggested prompts the agent pane shows per DM channel (assistant.threads.setSuggestedPrompts). */
	suggested: FakeAssistant["suggested"];
	/** Thread titles (assistant.threads.setTitle) per `channel:thread_ts`. */
	titles: Map<string, string>;
	/**
	 * A member opens the app's agent pane: Slack starts an app thread in their DM with the app (its root kept
	 * here) and sends `assistant_thread_started` with its channel and thread_ts; the test delivers that event.
	 */
	openAgentThread(userId: string): { channel: string; threadTs: string };
	callsTo(method: string): RecordedCall[];
	/**
	 * Share a file: its bytes are served at its url_private (with the bot token only); put it in an event's `files`.
	 * `connect`: shared in a Slack Connect channel, the event carries only its id (files.info gives the rest).
	 */
	shareFile(file: { name: string; mimetype: string; data: Buffer; size?: number; channel?: string }): FakeSharedFile;
	shareFile(file: {
		name: string;
		mimetype: string;
		data: Buffer;
		size?: number;
		channel?: string;
		connect: true;
	}): FakeConnectFile;
	/** Every GET of a shared file: its path and the bearer token it carried. */
	fileFetches: Array<{ path: string; token?: string }>;
	/** Every limit problem of every recorded call. */
	limitProblems(): string[];
	/** Answer `method` with `reply(params)` instead of the default (undefined falls through). */
	override(method: string, reply: ((params: Record<string, unknown>) => FakeReply) | undefined): void;
	/**
	 * Answer the next `times` calls of `method` (default 1) with Slack's error `error`, as Slack answers errors
	 * (Web API, "Evaluating responses": HTTP 200 with `{ ok: false, error }`; `ratelimited` is HTTP 429 with a
	 * `Retry-After` in seconds, "Rate limits"). E.g. `account_inactive`, `token_revoked`, `not_in_channel`: errors
	 * that waiting does not mend.
	 */
	refuse(method: string, error: string, options?: { times?: number; retryAfter?: number }): void;
	addUser(user: FakeSlackUser): void;
	/** Poll `check` until it returns something truthy (bounded: default 10 s). */
	waitFor<T>(check: () => T | undefined | null | false, what?: string, timeoutMs?: number): Promise<T>;
	/** A sender bound to Bolt's endpoint URL. */
	sender(eventsUrl: string): SlackSender;
	/** A sender that spreads deliveries over several bot processes at random and retries a lost one elsewhere. */
	balancer(eventsUrls: readonly string[], options?: BalancerOptions): BalancedSender;
	/** Socket Mode: resolves on the next client connection (after hello was sent). */
	socketConnected(timeoutMs?: number): Promise<void>;
	/** Socket Mode: send an envelope, resolve with the client's ack (bounded). */
	socketSend(
		type: "events_api" | "slash_commands" | "interactive",
		payload: unknown,
		timeoutMs?: number,
	): Promise<SocketAck>;
	close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

async function parseParams(req: IncomingMessage, raw: Buffer): Promise<Record<string, unknown>> {
	const type = req.headers["content-type"] ?? "";
	if (type.includes("application/json"))
		return raw.length ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>) : {};
	if (type.includes("multipart/form-data")) {
		const form = await new Response(new Uint8Array(raw), { headers: { "content-type": type } }).formData();
		const parts: [string, FormDataEntryValue][] = [];
		form.forEach((v, k) => {
			parts.push([k, v]);
		});
		const out: Record<string, unknown> = {};
		for (const [k, v] of parts) out[k] = typeof v === "string" ? v : Buffer.from(await v.arrayBuffer());
		return out;
	}
	const out: Record<string, unknown> = {};
	for (const [k, v] of new URLSearchParams(raw.toString("utf8"))) {
		// The Web API client JSON-encodes nested values (blocks, view) inside the form.
		out[k] = /^[[{]/.test(v) ? tryJson(v) : v;
	}
	return out;
}

function tryJson(v: string): unknown {
	try {
		return JSON.parse(v);
	} catch {
		return v;
	}
}

/** Start a fake Slack on an ephemeral loopback port. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
	const teamId = options.teamId ?? "T0TEAM";
	const signingSecret = options.signingSecret ?? "fake-signing-secret";
	const triggerTtlMs = options.triggerTtlMs ?? 3000;
	const botUserId = "U0BOT";
	const botId = "B0BOT";
	const calls: RecordedCall[] = [];
	const messages = new Map<string, FakeMessage>();
	const users = new Map<string, FakeSlackUser>();
	for (const u of options.users ?? []) users.set(u.id, u);
	const overrides = new Map<string, (params: Record<string, unknown>) => FakeReply>();
	const triggers = new Map<string, number>();
	const respondUses = new Map<string, number>();
	const views = new Map<string, Record<string, unknown>>();
	let seq = 0;
	const nextTs = (): string => `1700000000.${String(++seq).padStart(6, "0")}`;
	let baseUrl = "";
	const files = createSlackFiles(
		teamId,
		() => baseUrl,
		() => ++seq,
	);
	const assistant = createSlackAssistant({
		messages,
		nextTs,
		callSeq: () => calls.length,
		homeTab: () => options.homeTab !== false,
	});
	/** Limit problems of a message, and image blocks whose file Slack would not show in `channel`. */
	const messageProblems = (method: string, params: Record<string, unknown>, channel: string): string[] => [
		...callProblems({ method, params }),
		...files.blockFileProblems(params.blocks, channel).map((m) => `${method}: ${m}`),
	];

	const methods: Record<string, (p: Record<string, unknown>) => Record<string, unknown>> = {
		"auth.test": () => ({
			url: "https://fake.slack/",
			team: "Fake",
			user: "learnharness",
			team_id: teamId,
			user_id: botUserId,
			bot_id: botId,
		}),
		"users.info": (p) => {
			const user = users.get(String(p.user));
			if (!user) return { ok: false, error: "user_not_found" };
			const { locale, ...rest } = user;
			const withLocale = p.include_locale === true || p.include_locale === "true";
			return {
				user: {
					...rest,
					team_id: teamId,
					real_name: user.name,
					profile: { display_name: user.name },
					...(withLocale ? { locale: locale ?? "en-US" } : {}),
				},
			};
		},
		"conversations.open": (p) => ({ channel: { id: `D${String(p.users ?? "").replace(/[^A-Z0-9]/g, "")}` } }),
		"conversations.info": (p) => ({
			channel: { id: p.channel, name: `chan-${String(p.channel).toLowerCase()}`, is_channel: true },
		}),
		"chat.postMessage": (p) => {
			if (!p.channel) return { ok: false, error: "channel_not_found" };
			const problems = messageProblems("chat.postMessage", p, String(p.channel));
			if (problems.length) return { ok: false, error: "invalid_blocks", errors: problems };
			const ts = nextTs();
			const thread = typeof p.thread_ts === "string" ? p.thread_ts : undefined;
			const msg: FakeMessage = {
				channel: String(p.channel),
				ts,
				text: p.text as string,
				blocks: p.blocks as unknown[],
			};
			if (thread) msg.threadTs = thread;
			messages.set(ts, msg);
			assistant.posted(msg.channel, thread);
			return { channel: p.channel, ts, message: { text: p.text, ts, bot_id: botId } };
		},
		// A thread, oldest first (its parent, then replies), `limit` per page with a cursor (an offset here).
		"conversations.replies": (p) => {
			const parent = messages.get(String(p.ts));
			if (!parent || parent.channel !== p.channel) return { ok: false, error: "thread_not_found" };
			const thread = [...messages.values()]
				.filter((m) => m.channel === parent.channel && (m.ts === parent.ts || m.threadTs === parent.ts))
				.sort((a, b) => a.ts.localeCompare(b.ts));
			const limit = Math.min(1000, Math.max(1, Number(p.limit ?? 1000) || 1000));
			const from = Number(p.cursor ?? 0) || 0;
			const page = thread.slice(from, from + limit);
			const more = from + limit < thread.length;
			return {
				messages: page.map((m) => ({
					type: "message",
					ts: m.ts,
					text: m.text,
					...(m.blocks ? { blocks: m.blocks } : {}),
					...(m.threadTs ? { thread_ts: m.threadTs } : {}),
					bot_id: botId,
				})),
				has_more: more,
				response_metadata: { next_cursor: more ? String(from + limit) : "" },
			};
		},
		"chat.update": (p) => {
			const msg = messages.get(String(p.ts));
			if (!msg || msg.channel !== p.channel) return { ok: false, error: "message_not_found" };
			const problems = messageProblems("chat.update", p, msg.channel);
			if (problems.length) return { ok: false, error: "invalid_blocks", errors: problems };
			msg.text = p.text as string;
			msg.blocks = p.blocks as unknown[];
			return { channel: p.channel, ts: p.ts, text: p.text };
		},
		"chat.getPermalink": (p) => {
			const msg = messages.get(String(p.message_ts));
			if (!msg || msg.channel !== p.channel) return { ok: false, error: "message_not_found" };
			return {
				channel: p.channel,
				permalink: `https://fake.slack.com/archives/${msg.channel}/p${msg.ts.replace(".", "")}`,
			};
		},
		"chat.postEphemeral": (p) =>
			p.user && p.channel ? { message_ts: nextTs() } : { ok: false, error: "user_not_in_channel" },
		"views.open": (p) => {
			const trigger = String(p.trigger_id ?? "");
			const issued = triggers.get(trigger);
			if (issued === undefined) return { ok: false, error: "invalid_trigger_id" };
			triggers.delete(trigger);
			// Slack: "trigger_id expired ... 3 seconds after the interaction".
			if (Date.now() - issued > triggerTtlMs) return { ok: false, error: "expired_trigger_id" };
			const problems = callProblems({ method: "views.open", params: p });
			if (problems.length) return { ok: false, error: "invalid_arguments", errors: problems };
			const view = { ...(p.view as Record<string, unknown>), id: `V${++seq}` };
			views.set(String(view.id), view);
			return { view };
		},
		"views.update": (p) => {
			const id = String(p.view_id ?? "");
			if (!views.has(id)) return { ok: false, error: "not_found" };
			const problems = callProblems({ method: "views.update", params: p });
			if (problems.length) return { ok: false, error: "invalid_arguments", errors: problems };
			const view = { ...(p.view as Record<string, unknown>), id };
			views.set(id, view);
			return { view };
		},
		...files.methods,
		...assistant.methods,
		"apps.connections.open": () => ({ url: `${baseUrl.replace("http", "ws")}/socket-mode` }),
	};

	const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
		res.writeHead(status, { "content-type": "application/json", ...headers });
		res.end(JSON.stringify(body));
	};

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const url = new URL(req.url ?? "/", baseUrl);
		if (files.serve(req, res, url)) return;
		const raw = await readBody(req);
		if (url.pathname.startsWith("/upload/")) {
			files.receive(res, url, await parseParams(req, raw), raw);
			const up = files.uploads.find((u) => u.fileId === url.pathname.slice("/upload/".length));
			if (up?.bytes) calls.push({ method: "upload", params: { fileId: up.fileId, length: up.bytes.length } });
			return;
		}
		if (url.pathname.startsWith("/respond/")) {
			const params = await parseParams(req, raw);
			const call: RecordedCall = { method: "response_url", params };
			calls.push(call);
			// Slack: a response_url works 5 times within 30 minutes; a message action's replaces that message.
			const uses = (respondUses.get(url.pathname) ?? 0) + 1;
			respondUses.set(url.pathname, uses);
			if (uses > 5) return send(res, 404, { ok: false, error: "used_url" });
			if (params.replace_original === true || params.replace_original === "true") {
				const msg = messages.get(url.searchParams.get("ts") ?? "");
				if (!msg || msg.channel !== url.searchParams.get("channel"))
					return send(res, 404, { ok: false, error: "message_not_found" });
				const problems = messageProblems("chat.update", { ...params, channel: msg.channel, ts: msg.ts }, msg.channel);
				if (problems.length) return send(res, 400, { ok: false, error: "invalid_blocks", errors: problems });
				msg.text = params.text as string;
				msg.blocks = params.blocks as unknown[];
				call.replaced = { channel: msg.channel, ts: msg.ts };
			}
			return send(res, 200, { ok: true });
		}
		const method = url.pathname.replace(/^\/api\//, "");
		const params = await parseParams(req, raw);
		const auth = req.headers.authorization;
		const token = auth?.startsWith("Bearer ")
			? auth.slice(7)
			: typeof params.token === "string"
				? params.token
				: undefined;
		const call: RecordedCall = { method, params };
		if (token !== undefined) call.token = token;
		calls.push(call);
		const override = overrides.get(method)?.(params);
		if (override) {
			const headers: Record<string, string> = override.retryAfter ? { "retry-after": String(override.retryAfter) } : {};
			return send(res, override.status ?? 200, override.body ?? { ok: false, error: "fake_error" }, headers);
		}
		const wantsApp = method === "apps.connections.open";
		if (!token?.startsWith(wantsApp ? "xapp-" : "xoxb-")) return send(res, 200, { ok: false, error: "invalid_auth" });
		const impl = methods[method];
		if (!impl) return send(res, 200, { ok: false, error: "unknown_method" });
		const result = impl(params);
		call.ok = result.ok !== false;
		if (typeof result.error === "string") call.error = result.error;
		send(res, 200, { ok: true, ...result });
	};

	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error: unknown) => send(res, 500, { ok: false, error: String(error) }));
	});
	const wss = new WebSocketServer({ noServer: true });
	const sockets = new Set<WebSocket>();
	const connectWaiters: (() => void)[] = [];
	const ackWaiters = new Map<string, (ack: SocketAck) => void>();
	server.on("upgrade", (req, socket, head) => {
		if (!req.url?.startsWith("/socket-mode")) return void socket.destroy();
		wss.handleUpgrade(req, socket, head, (ws) => {
			sockets.add(ws);
			ws.on("close", () => sockets.delete(ws));
			ws.on("message", (data) => {
				const ack = tryJson(String(data)) as SocketAck;
				if (ack && typeof ack.envelope_id === "string") ackWaiters.get(ack.envelope_id)?.(ack);
			});
			ws.send(JSON.stringify({ type: "hello", num_connections: 1, connection_info: { app_id: "A0APP" } }));
			for (const w of connectWaiters.splice(0)) w();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

	const waitFor = async <T>(
		check: () => T | undefined | null | false,
		what = "condition",
		timeoutMs = 10_000,
	): Promise<T> => {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const value = check();
			if (value) return value;
			if (Date.now() > deadline) throw new Error(`fake slack: timed out waiting for ${what}`);
			await new Promise((r) => setTimeout(r, 10));
		}
	};
	const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
		new Promise<T>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`fake slack: timed out waiting for ${what}`)), ms);
			p.then(
				(v) => {
					clearTimeout(timer);
					resolve(v);
				},
				(e: unknown) => {
					clearTimeout(timer);
					reject(e);
				},
			);
		});

	const fake: FakeSlack = {
		apiUrl: `${baseUrl}/api/`,
		baseUrl,
		teamId,
		botUserId,
		botId,
		signingSecret,
		calls,
		uploads: files.uploads,
		messages,
		statuses: assistant.statuses,
		statusOf: assistant.statusOf,
		streams: assistant.streams,
		homes: assistant.homes,
		suggested: assistant.suggested,
		titles: assistant.titles,
		openAgentThread(userId) {
			const channel = `D${userId.replace(/[^A-Z0-9]/g, "")}`;
			const ts = nextTs();
			messages.set(ts, { channel, ts, text: "" });
			return { channel, threadTs: ts };
		},
		callsTo: (method) => calls.filter((c) => c.method === method),
		shareFile: ((file: Parameters<typeof files.share>[0]) => files.share(file)) as FakeSlack["shareFile"],
		fileFetches: files.fileFetches,
		limitProblems: () => calls.flatMap(callProblems),
		override: (method, reply) => (reply ? overrides.set(method, reply) : overrides.delete(method)),
		refuse: (method, error, options = {}) => {
			let left = options.times ?? 1;
			overrides.set(method, () => {
				if (left <= 0) return undefined;
				if (--left === 0) overrides.delete(method);
				return error === "ratelimited"
					? { status: 429, retryAfter: options.retryAfter ?? 1, body: { ok: false, error } }
					: { body: { ok: false, error } };
			});
		},
		addUser: (user) => users.set(user.id, user),
		waitFor,
		sender: (eventsUrl) => new SlackSender(eventsUrl, fake, triggers),
		balancer: (eventsUrls, balancerOptions) => new BalancedSender(eventsUrls, fake, triggers, balancerOptions),
		socketConnected: (timeoutMs = 10_000) =>
			withTimeout(new Promise<void>((resolve) => connectWaiters.push(resolve)), timeoutMs, "a socket connection"),
		socketSend: (type, payload, timeoutMs = 10_000) => {
			const envelopeId = `env-${++seq}`;
			const acked = new Promise<SocketAck>((resolve) => ackWaiters.set(envelopeId, resolve));
			const envelope = {
				envelope_id: envelopeId,
				type,
				payload,
				accepts_response_payload: type !== "events_api",
				retry_attempt: 0,
			};
			for (const ws of sockets) ws.send(JSON.stringify(envelope));
			return withTimeout(acked, timeoutMs, `ack of ${envelopeId}`).finally(() => ackWaiters.delete(envelopeId));
		},
		close: async () => {
			// Finish close handshakes a client started (Bolt's stop() resolves after sending its close frame).
			await Promise.all(
				[...sockets].map(
					(ws) =>
						new Promise<void>((resolve) => {
							const timer = setTimeout(() => {
								ws.terminate();
								resolve();
							}, 1000);
							ws.once("close", () => {
								clearTimeout(timer);
								resolve();
							});
							ws.close(1000);
						}),
				),
			);
			wss.close();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
	return fake;
}
