/**
 * A fake Discord on 127.0.0.1: the REST API (v10) and the gateway, enough for
 * discord.js 14 to log in, receive a guild and interactions, and post, edit,
 * thread and upload. Every REST call is recorded (multipart attachments with
 * their bytes), every body is checked against Discord's limits, and tests
 * drive users through helpers: slash commands, clicks, selects, modal submits
 * and typed messages. Point discord.js at it with `rest: { api: fake.apiUrl }`.
 */

import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import {
	buttonPayload,
	type CommandOptionValue,
	type InteractionBase,
	modalSubmitPayload,
	selectPayload,
	slashCommandPayload,
} from "../fixtures/discord/interactions.ts";
import { commandProblems, messageProblems, modalProblems, threadNameProblems } from "../fixtures/discord/limits.ts";
import {
	channelObject,
	type FakeAttachment,
	type FakeChannel,
	type FakeMember,
	type FakeMessage,
	type FakeRole,
	type FakeUser,
	guildCreateObject,
	memberObject,
	memberPermissions,
	messageObject,
	PERMISSIONS,
	snowflake,
	userObject,
} from "../fixtures/discord/payloads.ts";

export type { FakeAttachment, FakeChannel, FakeMember, FakeMessage, FakeUser } from "../fixtures/discord/payloads.ts";

/** One file of a multipart request. */
export interface FakeFile {
	field: string;
	filename: string;
	contentType: string;
	data: Buffer;
}

/** A REST call as the fake received it. */
export interface RecordedCall {
	method: string;
	/** The route after `/api/v10`, e.g. `/channels/123/messages`. */
	path: string;
	query: Record<string, string>;
	body: unknown;
	files: FakeFile[];
	status: number;
	/** Limit violations found in the body (the call was answered 400 when any). */
	problems: string[];
	at: number;
}

/** An interaction the fake dispatched, and how the bot answered it. */
export interface FakeInteraction {
	id: string;
	token: string;
	kind: "command" | "button" | "select" | "modal";
	user: FakeUser;
	channelId: string;
	guildId: string;
	createdAt: number;
	/** The message a component sits on (buttons, selects, modals opened from a component). */
	messageId?: string;
	/** The first callback's type (4 reply, 5 deferred reply, 6 deferred update, 7 update, 9 modal). */
	responseType?: number;
	ackedAt?: number;
	originalMessageId?: string;
	modal?: { custom_id: string; title: string; components: unknown[] };
	followupIds: string[];
	/** Callbacks refused (a second ack, a late ack). */
	rejectedCallbacks: number;
}

/** A scripted REST failure: the next `times` calls matching answer `status`. */
export interface FakeFault {
	method?: string;
	path: RegExp;
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
	times?: number;
}

/** Options of the fake. */
export interface FakeDiscordOptions {
	token?: string;
	/** HELLO's heartbeat interval; short values exercise heartbeat ACKs. */
	heartbeatIntervalMs?: number;
	/** Discord refuses a first interaction response after 3 s; so does the fake. */
	ackDeadlineMs?: number;
}

interface GatewaySession {
	id: string;
	seq: number;
	intents: number;
	socket: WebSocket | null;
	log: Array<{ s: number; payload: string }>;
}

type Handler = (req: RouteRequest) => Promise<[number, unknown?]> | [number, unknown?];
interface RouteRequest {
	params: string[];
	body: unknown;
	files: FakeFile[];
	query: Record<string, string>;
	call: RecordedCall;
}

const MESSAGE_CONTENT_INTENT = 1 << 15;
const GUILD_MESSAGES_INTENT = 1 << 9;
const err = (status: number, code: number, message: string, errors?: unknown): [number, unknown] => [
	status,
	{ code, message, ...(errors ? { errors } : {}) },
];

/** The fake Discord. Start it with startFakeDiscord(). */
export class FakeDiscord {
	readonly token: string;
	readonly applicationId = snowflake();
	readonly bot: FakeUser = { id: this.applicationId, username: "learnharness", bot: true };
	readonly guild = { id: snowflake(), name: "Study Group", ownerId: "" };
	readonly users: { admin: FakeUser; learner: FakeUser; other: FakeUser } = {
		admin: { id: snowflake(), username: "alice" },
		learner: { id: snowflake(), username: "bob" },
		other: { id: snowflake(), username: "carol" },
	};
	readonly roles: FakeRole[];
	readonly members: FakeMember[];
	readonly channels = new Map<string, FakeChannel>();
	readonly messages = new Map<string, FakeMessage>();
	readonly interactions = new Map<string, FakeInteraction>();
	readonly calls: RecordedCall[] = [];
	readonly commands = { global: [] as Array<Record<string, unknown>>, guild: new Map<string, Array<Record<string, unknown>>>() };
	readonly gateway = { connections: 0, identifies: 0, resumes: 0, heartbeats: 0 };
	/** Channel ids of the default guild: a text channel, a second one, a voice channel and an existing thread. */
	readonly ids: { general: string; other: string; voice: string; thread: string };
	apiUrl = "";
	gatewayUrl = "";
	private baseUrl = "";
	private readonly server: Server;
	private readonly wss: WebSocketServer;
	private readonly sessions = new Map<string, GatewaySession>();
	private readonly faults: FakeFault[] = [];
	private readonly events = new EventEmitter();
	private readonly routes: Array<[string, RegExp, Handler]> = [];
	private readonly heartbeatIntervalMs: number;
	private readonly ackDeadlineMs: number;

	constructor(options: FakeDiscordOptions = {}) {
		this.token = options.token ?? "fake-bot-token";
		this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 41_250;
		this.ackDeadlineMs = options.ackDeadlineMs ?? 3_000;
		this.events.setMaxListeners(100);
		this.guild.ownerId = this.users.admin.id;
		const adminRole = snowflake();
		const everyone = PERMISSIONS.ViewChannel | PERMISSIONS.SendMessages | PERMISSIONS.ReadMessageHistory;
		this.roles = [
			{ id: this.guild.id, name: "@everyone", permissions: everyone | PERMISSIONS.UseApplicationCommands },
			{ id: adminRole, name: "Admin", permissions: PERMISSIONS.ManageGuild },
			{ id: snowflake(), name: "learnharness", permissions: PERMISSIONS.AttachFiles | PERMISSIONS.SendMessagesInThreads },
		];
		this.members = [
			{ user: this.users.admin, roles: [adminRole] },
			{ user: this.users.learner, roles: [] },
			{ user: this.users.other, roles: [] },
			{ user: this.bot, roles: [this.roles[2]!.id] },
		];
		this.ids = { general: snowflake(), other: snowflake(), voice: snowflake(), thread: snowflake() };
		const g = this.guild.id;
		this.addChannel({ id: this.ids.general, type: 0, name: "general", guildId: g });
		this.addChannel({ id: this.ids.other, type: 0, name: "off-topic", guildId: g });
		this.addChannel({ id: this.ids.voice, type: 2, name: "Voice", guildId: g });
		this.addChannel({ id: this.ids.thread, type: 11, name: "existing thread", guildId: g, parentId: this.ids.general });
		this.server = createServer((req, res) => {
			this.onRequest(req, res).catch((error: unknown) => {
				if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
				res.end(JSON.stringify({ code: 0, message: String(error) }));
			});
		});
		this.wss = new WebSocketServer({ noServer: true });
		this.server.on("upgrade", (req, socket, head) => {
			if (!req.url?.startsWith("/gateway")) return socket.destroy();
			this.wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws));
		});
		this.defineRoutes();
	}

	/** Listen on 127.0.0.1 (a free port). */
	async listen(): Promise<this> {
		await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
		const { port } = this.server.address() as AddressInfo;
		this.baseUrl = `http://127.0.0.1:${port}`;
		this.apiUrl = `${this.baseUrl}/api`;
		this.gatewayUrl = `ws://127.0.0.1:${port}/gateway`;
		return this;
	}

	/** Close every socket and the server. */
	async close(): Promise<void> {
		for (const client of this.wss.clients) client.terminate();
		this.wss.close();
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	/** Add a channel or thread to the guild (and tell connected clients). */
	addChannel(channel: FakeChannel): FakeChannel {
		this.channels.set(channel.id, channel);
		return channel;
	}

	/** The member record of a user. */
	member(user: FakeUser): FakeMember {
		const m = this.members.find((x) => x.user.id === user.id);
		if (!m) throw new Error(`user ${user.username} is not a member of the guild`);
		return m;
	}

	/** Make the next matching REST calls fail (e.g. a 429 with retry-after, a 500, a 403). */
	injectFault(fault: FakeFault): void {
		this.faults.push({ times: 1, ...fault });
	}

	/** A 429 for the next matching call, with Discord's headers and body. */
	rateLimitNext(path: RegExp, retryAfterSeconds = 0.05, method = "POST"): void {
		this.injectFault({
			method,
			path,
			status: 429,
			headers: { "retry-after": String(retryAfterSeconds), "x-ratelimit-scope": "user" },
			body: { message: "You are being rate limited.", retry_after: retryAfterSeconds, global: false },
		});
	}

	/** Every limit problem any recorded call had. */
	problems(): Array<{ call: string; problems: string[] }> {
		return this.calls
			.filter((c) => c.problems.length > 0)
			.map((c) => ({ call: `${c.method} ${c.path}`, problems: c.problems }));
	}

	/** Non-ephemeral, non-deleted messages of a channel, oldest first. */
	channelMessages(channelId: string): FakeMessage[] {
		return [...this.messages.values()].filter((m) => m.channelId === channelId && !m.deleted && !m.visibleTo);
	}

	/** Ephemeral messages shown to a user. */
	ephemeralsFor(user: FakeUser): FakeMessage[] {
		return [...this.messages.values()].filter((m) => m.visibleTo === user.id && !m.deleted);
	}

	/** Threads created through the API. */
	createdThreads(): FakeChannel[] {
		return [...this.channels.values()].filter((c) => (c.type === 11 || c.type === 12) && c.id !== this.ids.thread);
	}

	/** Wait (bounded) until `predicate` holds; re-checked after every call, dispatch and gateway event. */
	async waitFor<T>(predicate: () => T | undefined | false, label: string, timeoutMs = 10_000): Promise<T> {
		const first = predicate();
		if (first) return first;
		return await new Promise<T>((resolve, reject) => {
			const check = () => {
				const v = predicate();
				if (v) {
					cleanup();
					resolve(v);
				}
			};
			const timer = setTimeout(() => {
				cleanup();
				reject(new Error(`fake discord: timed out after ${timeoutMs} ms waiting for ${label}`));
			}, timeoutMs);
			const cleanup = () => {
				clearTimeout(timer);
				this.events.off("change", check);
			};
			this.events.on("change", check);
		});
	}

	// ─── users acting ────────────────────────────────────────────────────────

	/** A user runs `/<command> <subcommand> ...options` in a channel; option types come from the registered command. */
	slash(options: {
		user: FakeUser;
		channelId: string;
		subcommand?: string;
		options?: Record<string, string | number | boolean>;
		command?: string;
	}): FakeInteraction {
		const name = options.command ?? "lesson";
		const def = [...this.commands.global, ...(this.commands.guild.get(this.guild.id) ?? [])].find((c) => c.name === name);
		if (!def) throw new Error(`command /${name} is not registered`);
		let optionDefs = (def.options ?? []) as Array<Record<string, unknown>>;
		if (options.subcommand !== undefined) {
			const sub = optionDefs.find((o) => o.name === options.subcommand && o.type === 1);
			if (!sub) throw new Error(`/${name} has no subcommand ${options.subcommand}`);
			optionDefs = (sub.options ?? []) as Array<Record<string, unknown>>;
		}
		const values: CommandOptionValue[] = [];
		const users: FakeMember[] = [];
		const channels: FakeChannel[] = [];
		for (const [key, value] of Object.entries(options.options ?? {})) {
			const od = optionDefs.find((o) => o.name === key);
			if (!od) throw new Error(`option ${key} is not defined`);
			const type = od.type as number;
			if (type === 6) users.push(this.member({ id: String(value), username: "" }));
			if (type === 7) {
				const ch = this.channels.get(String(value));
				if (ch) channels.push(ch);
			}
			values.push({ name: key, type, value });
		}
		for (const od of optionDefs) {
			if (od.required === true && !(String(od.name) in (options.options ?? {})))
				throw new Error(`required option ${String(od.name)} missing`);
		}
		const it = this.newInteraction("command", options.user, options.channelId);
		const payload = slashCommandPayload(
			this.interactionBase(it),
			{ id: String(def.id), name },
			options.subcommand,
			values,
			{ users, channels },
		);
		this.dispatch("INTERACTION_CREATE", payload);
		return it;
	}

	/** A user clicks a button on a message. `force` skips the "is it there and enabled" check (a race on the client). */
	click(options: { user: FakeUser; messageId: string; customId: string; force?: boolean }): FakeInteraction {
		const message = this.requireComponent(options.messageId, options.customId, 2, options.force);
		const it = this.newInteraction("button", options.user, message.channelId, message.id);
		this.dispatch("INTERACTION_CREATE", buttonPayload(this.interactionBase(it), messageObject(message, this.baseUrl), options.customId));
		return it;
	}

	/** A user picks values in a string select. */
	select(options: { user: FakeUser; messageId: string; customId: string; values: string[]; force?: boolean }): FakeInteraction {
		const message = this.requireComponent(options.messageId, options.customId, 3, options.force);
		const it = this.newInteraction("select", options.user, message.channelId, message.id);
		const payload = selectPayload(this.interactionBase(it), messageObject(message, this.baseUrl), options.customId, options.values);
		this.dispatch("INTERACTION_CREATE", payload);
		return it;
	}

	/** A user submits the modal the bot showed in answer to `opened`; values by text input custom id. */
	submitModal(options: { user: FakeUser; opened: FakeInteraction; values: Record<string, string> }): FakeInteraction {
		const modal = options.opened.modal;
		if (!modal) throw new Error("no modal was shown for that interaction");
		const message = options.opened.messageId ? this.messages.get(options.opened.messageId) : undefined;
		const it = this.newInteraction("modal", options.user, options.opened.channelId, message?.id);
		const payload = modalSubmitPayload(
			this.interactionBase(it),
			message ? messageObject(message, this.baseUrl) : undefined,
			modal,
			options.values,
		);
		this.dispatch("INTERACTION_CREATE", payload);
		return it;
	}

	/** A user types a message in a channel (MESSAGE_CREATE; content hidden without the MessageContent intent). */
	say(options: { user: FakeUser; channelId: string; content: string }): FakeMessage {
		const channel = this.channels.get(options.channelId);
		if (!channel) throw new Error(`unknown channel ${options.channelId}`);
		const message = this.storeMessage(channel, options.user, { content: options.content }, []);
		return message;
	}

	/** Send a raw gateway dispatch to every identified session (malformed payloads included). */
	dispatch(t: string, d: unknown): void {
		for (const session of this.sessions.values()) this.sendDispatch(session, t, d);
		this.changed();
	}

	/** Close every gateway socket with `code` (4000 = unknown error: clients resume). */
	dropConnections(code = 4000): void {
		for (const session of this.sessions.values()) {
			session.socket?.close(code, "fake drop");
			session.socket = null;
		}
	}

	// ─── internals ───────────────────────────────────────────────────────────

	private changed(): void {
		this.events.emit("change");
	}

	private interactionBase(it: FakeInteraction): InteractionBase {
		const channel = this.channels.get(it.channelId);
		if (!channel) throw new Error(`unknown channel ${it.channelId}`);
		const member = this.member(it.user);
		const botMember = this.member(this.bot);
		return {
			id: it.id,
			token: it.token,
			applicationId: this.applicationId,
			guildId: this.guild.id,
			channel,
			member,
			permissions: memberPermissions(member, this.roles, this.guild.id),
			appPermissions: memberPermissions(botMember, this.roles, this.guild.id),
		};
	}

	private newInteraction(kind: FakeInteraction["kind"], user: FakeUser, channelId: string, messageId?: string) {
		const it: FakeInteraction = {
			id: snowflake(),
			token: `itoken-${snowflake()}`,
			kind,
			user,
			channelId,
			guildId: this.guild.id,
			createdAt: Date.now(),
			...(messageId ? { messageId } : {}),
			followupIds: [],
			rejectedCallbacks: 0,
		};
		this.interactions.set(it.token, it);
		return it;
	}

	private requireComponent(messageId: string, customId: string, type: number, force?: boolean): FakeMessage {
		const message = this.messages.get(messageId);
		if (!message) throw new Error(`unknown message ${messageId}`);
		if (force) return message;
		const found = (message.components as Array<{ components?: Array<Record<string, unknown>> }>)
			.flatMap((row) => row.components ?? [])
			.find((c) => c.custom_id === customId && c.type === type);
		if (!found) throw new Error(`message ${messageId} has no component ${customId}`);
		if (found.disabled === true) throw new Error(`component ${customId} is disabled`);
		return message;
	}

	private storeMessage(
		channel: FakeChannel,
		author: FakeUser,
		body: Record<string, unknown>,
		files: FakeFile[],
		extra: Partial<FakeMessage> = {},
	): FakeMessage {
		const message: FakeMessage = {
			id: snowflake(),
			channelId: channel.id,
			guildId: channel.guildId,
			author,
			content: typeof body.content === "string" ? body.content : "",
			components: Array.isArray(body.components) ? body.components : [],
			embeds: Array.isArray(body.embeds) ? body.embeds : [],
			attachments: files.map((f) => ({ id: snowflake(), filename: f.filename, contentType: f.contentType, data: f.data })),
			flags: typeof body.flags === "number" ? body.flags : 0,
			createdAt: new Date().toISOString(),
			...extra,
		};
		this.messages.set(message.id, message);
		channel.messageCount = (channel.messageCount ?? 0) + 1;
		if (!message.visibleTo) {
			this.dispatch("MESSAGE_CREATE", { ...messageObject(message, this.baseUrl), member: this.memberOf(author) });
		}
		return message;
	}

	private memberOf(user: FakeUser) {
		const m = this.members.find((x) => x.user.id === user.id);
		if (!m) return undefined;
		const { user: _u, ...rest } = memberObject(m);
		return rest;
	}

	private editMessage(message: FakeMessage, body: Record<string, unknown>, files: FakeFile[]): FakeMessage {
		if (typeof body.content === "string") message.content = body.content;
		if (Array.isArray(body.components)) message.components = body.components;
		if (Array.isArray(body.embeds)) message.embeds = body.embeds;
		if (Array.isArray(body.attachments)) {
			const keep = new Set((body.attachments as Array<{ id?: unknown }>).map((a) => String(a.id)));
			message.attachments = message.attachments.filter((a) => keep.has(a.id));
		}
		for (const f of files) {
			message.attachments.push({ id: snowflake(), filename: f.filename, contentType: f.contentType, data: f.data });
		}
		message.flags &= ~128; // an edit ends the "thinking" state of a deferred reply
		message.editedAt = new Date().toISOString();
		if (!message.visibleTo) this.dispatch("MESSAGE_UPDATE", messageObject(message, this.baseUrl));
		return message;
	}

	private createThread(parent: FakeChannel, body: Record<string, unknown>, starter?: FakeMessage): [number, unknown] {
		const problems = threadNameProblems(body.name);
		if (problems.length > 0) return err(400, 50035, "Invalid Form Body", { name: problems });
		if (parent.type !== 0 && parent.type !== 5) return err(400, 50024, "Cannot execute action on this channel type");
		const thread = this.addChannel({
			id: starter?.id ?? snowflake(),
			type: starter ? 11 : typeof body.type === "number" ? body.type : 12,
			name: String(body.name),
			guildId: parent.guildId,
			parentId: parent.id,
			ownerId: this.bot.id,
			autoArchiveDuration: typeof body.auto_archive_duration === "number" ? body.auto_archive_duration : 4320,
		});
		this.dispatch("THREAD_CREATE", { ...channelObject(thread), newly_created: true });
		return [201, channelObject(thread)];
	}

	private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? "/", this.baseUrl);
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const raw = Buffer.concat(chunks);
		if (req.method === "GET" && url.pathname.startsWith("/attachments/")) return this.serveAttachment(url.pathname, res);
		const path = url.pathname.replace(/^\/api\/v10/, "");
		const call: RecordedCall = {
			method: req.method ?? "GET",
			path,
			query: Object.fromEntries(url.searchParams),
			body: undefined,
			files: [],
			status: 0,
			problems: [],
			at: Date.now(),
		};
		const reply = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
			call.status = status;
			this.calls.push(call);
			res.writeHead(status, body === undefined ? headers : { "content-type": "application/json", ...headers });
			res.end(body === undefined ? undefined : JSON.stringify(body));
			this.changed();
		};
		try {
			const ct = req.headers["content-type"] ?? "";
			if (ct.startsWith("multipart/form-data")) {
				const form = await new Request("http://fake.invalid/", { method: "POST", headers: { "content-type": ct }, body: raw }).formData();
				const entries: Array<[string, FormDataEntryValue]> = [];
				form.forEach((value, field) => void entries.push([field, value]));
				for (const [field, value] of entries) {
					if (typeof value === "string") {
						if (field === "payload_json") call.body = JSON.parse(value);
					} else {
						call.files.push({ field, filename: value.name, contentType: value.type, data: Buffer.from(await value.arrayBuffer()) });
					}
				}
			} else if (raw.length > 0) {
				call.body = JSON.parse(raw.toString("utf8"));
			}
		} catch (error) {
			return reply(400, { code: 50109, message: `The request body contains invalid JSON: ${String(error)}` });
		}
		if (!url.pathname.startsWith("/api/v10/")) return reply(404, { code: 0, message: "404: Not Found" });
		const open = /^\/(interactions|webhooks)\//.test(path);
		if (!open && req.headers.authorization !== `Bot ${this.token}`) return reply(401, { code: 0, message: "401: Unauthorized" });
		const faultIndex = this.faults.findIndex((f) => f.path.test(path) && (!f.method || f.method === call.method));
		const fault = this.faults[faultIndex];
		if (fault) {
			fault.times = (fault.times ?? 1) - 1;
			if (fault.times <= 0) this.faults.splice(faultIndex, 1);
			return reply(fault.status, fault.body ?? { code: 0, message: `fault ${fault.status}` }, fault.headers);
		}
		for (const [method, re, handler] of this.routes) {
			const m = method === call.method ? re.exec(path) : null;
			if (!m) continue;
			const [status, body] = await handler({ params: m.slice(1).map((x) => decodeURIComponent(x)), body: call.body, files: call.files, query: call.query, call });
			return reply(status, body);
		}
		return reply(404, { code: 0, message: `404: Not Found (${call.method} ${path})` });
	}

	private serveAttachment(pathname: string, res: ServerResponse): void {
		const [, , , id] = pathname.split("/");
		const att = [...this.messages.values()].flatMap((m) => m.attachments).find((a) => a.id === id);
		res.writeHead(att ? 200 : 404, { "content-type": att?.contentType ?? "text/plain" });
		res.end(att?.data ?? "not found");
	}

	private route(method: string, pattern: string, handler: Handler): void {
		const re = new RegExp(`^${pattern.replace(/:[a-z]+/g, "([^/]+)")}$`);
		this.routes.push([method, re, handler]);
	}

	private defineRoutes(): void {
		const gw = () => ({ url: this.gatewayUrl, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } });
		const app = () => ({ id: this.applicationId, name: "learnharness", description: "", bot_public: true, bot: userObject(this.bot), flags: 0, owner: userObject(this.users.admin) });
		this.route("GET", "/gateway/bot", () => [200, gw()]);
		this.route("GET", "/gateway", () => [200, { url: this.gatewayUrl }]);
		this.route("GET", "/users/@me", () => [200, userObject(this.bot)]);
		this.route("GET", "/users/:id", ({ params }) => {
			const m = this.members.find((x) => x.user.id === params[0]);
			return m ? [200, userObject(m.user)] : err(404, 10013, "Unknown User");
		});
		this.route("GET", "/applications/@me", () => [200, app()]);
		this.route("GET", "/oauth2/applications/@me", () => [200, app()]);
		const commands = (guildId?: string) => (guildId ? (this.commands.guild.get(guildId) ?? []) : this.commands.global);
		const putCommands = (params: string[], body: unknown, guildId?: string): [number, unknown] => {
			if (params[0] !== this.applicationId) return err(403, 50001, "Missing Access");
			if (!Array.isArray(body)) return err(400, 50035, "Invalid Form Body");
			const problems = body.flatMap((c) => commandProblems(c));
			if (problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems });
			const saved = body.map((c: Record<string, unknown>) => ({ ...c, id: snowflake(), application_id: this.applicationId, version: snowflake(), type: c.type ?? 1, ...(guildId ? { guild_id: guildId } : {}) }));
			if (guildId) this.commands.guild.set(guildId, saved);
			else this.commands.global = saved;
			return [200, saved];
		};
		this.route("GET", "/applications/:app/commands", () => [200, commands()]);
		this.route("PUT", "/applications/:app/commands", ({ params, body, call }) => {
			call.problems = Array.isArray(body) ? body.flatMap((c) => commandProblems(c)) : [];
			return putCommands(params, body);
		});
		this.route("GET", "/applications/:app/guilds/:guild/commands", ({ params }) => [200, commands(params[1])]);
		this.route("PUT", "/applications/:app/guilds/:guild/commands", ({ params, body, call }) => {
			call.problems = Array.isArray(body) ? body.flatMap((c) => commandProblems(c)) : [];
			if (params[1] !== this.guild.id) return err(404, 10004, "Unknown Guild");
			return putCommands(params, body, params[1]);
		});
		for (const path of ["/applications/:app/commands", "/applications/:app/guilds/:guild/commands"]) {
			this.route("POST", path, ({ params, body, call }) => {
				call.problems = commandProblems(body);
				const list = [...commands(params[1]).filter((c) => c.name !== (body as { name?: unknown })?.name), body];
				const [status, saved] = putCommands(params, list, params[1]);
				return status === 200 ? [201, (saved as unknown[]).at(-1)] : [status, saved];
			});
		}
		this.route("GET", "/guilds/:guild", ({ params }) => {
			if (params[0] !== this.guild.id) return err(404, 10004, "Unknown Guild");
			const { channels: _c, threads: _t, members: _m, ...rest } = this.guildCreate();
			return [200, rest];
		});
		this.route("GET", "/guilds/:guild/channels", () => [200, [...this.channels.values()].filter((c) => c.type !== 11 && c.type !== 12).map(channelObject)]);
		this.route("GET", "/guilds/:guild/roles", () => [200, this.guildCreate().roles]);
		this.route("GET", "/guilds/:guild/members/:user", ({ params }) => {
			const m = this.members.find((x) => x.user.id === params[1]);
			return m ? [200, memberObject(m)] : err(404, 10007, "Unknown Member");
		});
		this.route("GET", "/channels/:id", ({ params }) => {
			const c = this.channels.get(params[0]!);
			return c ? [200, channelObject(c)] : err(404, 10003, "Unknown Channel");
		});
		this.route("PATCH", "/channels/:id", ({ params, body }) => {
			const c = this.channels.get(params[0]!);
			if (!c) return err(404, 10003, "Unknown Channel");
			const b = (body ?? {}) as Record<string, unknown>;
			if (typeof b.name === "string") c.name = b.name;
			if (typeof b.archived === "boolean") c.archived = b.archived;
			if (typeof b.locked === "boolean") c.locked = b.locked;
			this.dispatch(c.type === 11 || c.type === 12 ? "THREAD_UPDATE" : "CHANNEL_UPDATE", channelObject(c));
			return [200, channelObject(c)];
		});
		this.route("GET", "/channels/:id/messages", ({ params }) => [200, this.channelMessages(params[0]!).reverse().map((m) => messageObject(m, this.baseUrl))]);
		this.route("GET", "/channels/:id/messages/:mid", ({ params }) => {
			const m = this.messages.get(params[1]!);
			return m && m.channelId === params[0] && !m.deleted ? [200, messageObject(m, this.baseUrl)] : err(404, 10008, "Unknown Message");
		});
		this.route("POST", "/channels/:id/messages", ({ params, body, files, call }) => {
			const c = this.channels.get(params[0]!);
			if (!c) return err(404, 10003, "Unknown Channel");
			if (c.type === 2) return err(400, 50008, "Cannot send messages in a non-text channel");
			call.problems = messageProblems(body, files.length);
			if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
			return [200, messageObject(this.storeMessage(c, this.bot, body as Record<string, unknown>, files), this.baseUrl)];
		});
		this.route("PATCH", "/channels/:id/messages/:mid", ({ params, body, files, call }) => {
			const m = this.messages.get(params[1]!);
			if (!m || m.channelId !== params[0] || m.deleted) return err(404, 10008, "Unknown Message");
			if (m.author.id !== this.bot.id) return err(403, 50005, "Cannot edit a message authored by another user");
			call.problems = messageProblems(body, files.length, true);
			if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
			return [200, messageObject(this.editMessage(m, body as Record<string, unknown>, files), this.baseUrl)];
		});
		this.route("DELETE", "/channels/:id/messages/:mid", ({ params }) => {
			const m = this.messages.get(params[1]!);
			if (!m) return err(404, 10008, "Unknown Message");
			m.deleted = true;
			return [204];
		});
		this.route("POST", "/channels/:id/threads", ({ params, body, call }) => {
			const c = this.channels.get(params[0]!);
			if (!c) return err(404, 10003, "Unknown Channel");
			call.problems = threadNameProblems((body as { name?: unknown })?.name);
			return this.createThread(c, (body ?? {}) as Record<string, unknown>);
		});
		this.route("POST", "/channels/:id/messages/:mid/threads", ({ params, body, call }) => {
			const c = this.channels.get(params[0]!);
			const m = this.messages.get(params[1]!);
			if (!c || !m) return err(404, 10008, "Unknown Message");
			call.problems = threadNameProblems((body as { name?: unknown })?.name);
			return this.createThread(c, (body ?? {}) as Record<string, unknown>, m);
		});
		this.route("PUT", "/channels/:id/thread-members/:user", () => [204]);
		this.route("POST", "/channels/:id/typing", ({ params }) => (this.channels.has(params[0]!) ? [204] : err(404, 10003, "Unknown Channel")));
		this.route("POST", "/interactions/:id/:token/callback", (r) => this.onCallback(r));
		this.route("POST", "/webhooks/:app/:token", ({ params, body, files, call }) => {
			const it = this.interactions.get(params[1]!);
			if (!it || it.responseType === undefined) return err(404, 10015, "Unknown Webhook");
			call.problems = messageProblems(body, files.length);
			if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
			const b = body as Record<string, unknown>;
			const ephemeral = typeof b.flags === "number" && (b.flags & 64) !== 0;
			const m = this.storeMessage(this.channels.get(it.channelId)!, this.bot, b, files, {
				webhookId: this.applicationId,
				interactionId: it.id,
				...(ephemeral ? { visibleTo: it.user.id } : {}),
			});
			it.followupIds.push(m.id);
			return [200, messageObject(m, this.baseUrl)];
		});
		const webhookMessage = (token: string, mid: string) => {
			const it = this.interactions.get(token);
			const id = mid === "@original" ? it?.originalMessageId : mid;
			return it && id ? this.messages.get(id) : undefined;
		};
		this.route("GET", "/webhooks/:app/:token/messages/:mid", ({ params }) => {
			const m = webhookMessage(params[1]!, params[2]!);
			return m ? [200, messageObject(m, this.baseUrl)] : err(404, 10008, "Unknown Message");
		});
		this.route("PATCH", "/webhooks/:app/:token/messages/:mid", ({ params, body, files, call }) => {
			const m = webhookMessage(params[1]!, params[2]!);
			if (!m) return err(404, 10008, "Unknown Message");
			call.problems = messageProblems(body, files.length, true);
			if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
			return [200, messageObject(this.editMessage(m, body as Record<string, unknown>, files), this.baseUrl)];
		});
		this.route("DELETE", "/webhooks/:app/:token/messages/:mid", ({ params }) => {
			const m = webhookMessage(params[1]!, params[2]!);
			if (!m) return err(404, 10008, "Unknown Message");
			m.deleted = true;
			return [204];
		});
	}

	private onCallback({ params, body, files, query, call }: RouteRequest): [number, unknown?] {
		const it = this.interactions.get(params[1]!);
		if (!it || it.id !== params[0]) return err(404, 10062, "Unknown interaction");
		if (it.responseType !== undefined) {
			it.rejectedCallbacks++;
			return err(400, 40060, "Interaction has already been acknowledged.");
		}
		if (Date.now() - it.createdAt > this.ackDeadlineMs) {
			it.rejectedCallbacks++;
			return err(404, 10062, "Unknown interaction");
		}
		const b = (body ?? {}) as { type?: number; data?: Record<string, unknown> };
		const data = b.data ?? {};
		const type = b.type;
		const channel = this.channels.get(it.channelId)!;
		const ephemeral = typeof data.flags === "number" && (data.flags & 64) !== 0;
		const fromMessage = it.messageId !== undefined;
		if (type === 4 || type === 5) {
			if (type === 4) call.problems = messageProblems(data, files.length);
			if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
			const flags = (ephemeral ? 64 : 0) | (type === 5 ? 128 : 0);
			const m = this.storeMessage(channel, this.bot, type === 4 ? { ...data, flags } : { content: "", flags }, type === 4 ? files : [], {
				webhookId: this.applicationId,
				interactionId: it.id,
				...(ephemeral ? { visibleTo: it.user.id } : {}),
			});
			it.originalMessageId = m.id;
		} else if (type === 6 || type === 7) {
			if (!fromMessage) return err(400, 50035, "Interaction callback type not allowed: no message to update");
			const m = this.messages.get(it.messageId!)!;
			if (type === 7) {
				call.problems = messageProblems(data, files.length, true);
				if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
				this.editMessage(m, data, files);
			}
			it.originalMessageId = m.id;
		} else if (type === 9) {
			if (it.kind === "modal") return err(400, 50035, "A modal cannot answer a modal submit");
			call.problems = modalProblems(data);
			if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
			it.modal = data as FakeInteraction["modal"];
		} else {
			return err(400, 50035, `Invalid interaction response type ${String(type)}`);
		}
		it.responseType = type;
		it.ackedAt = Date.now();
		if (query.with_response !== "true") return [204];
		const message = it.originalMessageId ? this.messages.get(it.originalMessageId) : undefined;
		return [
			200,
			{
				interaction: { id: it.id, type: { command: 2, button: 3, select: 3, modal: 5 }[it.kind], response_message_id: message?.id, response_message_loading: type === 5, response_message_ephemeral: ephemeral },
				resource: { type, ...(message ? { message: messageObject(message, this.baseUrl) } : {}) },
			},
		];
	}

	private guildCreate() {
		return guildCreateObject(this.guild, [...this.channels.values()], this.roles, this.members);
	}

	// ─── gateway ─────────────────────────────────────────────────────────────

	private onSocket(ws: WebSocket): void {
		this.gateway.connections++;
		let session: GatewaySession | undefined;
		const send = (payload: unknown) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(payload));
		send({ op: 10, d: { heartbeat_interval: this.heartbeatIntervalMs }, s: null, t: null });
		ws.on("message", (raw) => {
			let packet: { op?: number; d?: Record<string, unknown> };
			try {
				packet = JSON.parse(String(raw));
			} catch {
				return ws.close(4002, "Decode error");
			}
			const d = packet.d ?? {};
			if (packet.op === 1) {
				this.gateway.heartbeats++;
				send({ op: 11, d: null, s: null, t: null });
			} else if (packet.op === 2) {
				if (d.token !== this.token) return ws.close(4004, "Authentication failed");
				this.gateway.identifies++;
				session = { id: `session-${snowflake()}`, seq: 0, intents: Number(d.intents ?? 0), socket: ws, log: [] };
				this.sessions.set(session.id, session);
				this.sendDispatch(session, "READY", {
					v: 10,
					user: userObject(this.bot),
					guilds: [{ id: this.guild.id, unavailable: true }],
					session_id: session.id,
					resume_gateway_url: this.gatewayUrl,
					shard: [0, 1],
					application: { id: this.applicationId, flags: 0 },
					private_channels: [],
					presences: [],
					relationships: [],
					user_settings: {},
					guild_join_requests: [],
					geo_ordered_rtc_regions: [],
				});
				this.sendDispatch(session, "GUILD_CREATE", this.guildCreate());
			} else if (packet.op === 6) {
				const known = this.sessions.get(String(d.session_id));
				if (!known || d.token !== this.token) return send({ op: 9, d: false, s: null, t: null });
				this.gateway.resumes++;
				session = known;
				session.socket = ws;
				const after = Number(d.seq ?? 0);
				for (const entry of session.log) if (entry.s > after) ws.send(entry.payload);
				this.sendDispatch(session, "RESUMED", {});
			}
			this.changed();
			return undefined;
		});
		ws.on("close", () => {
			if (session && session.socket === ws) session.socket = null;
		});
		ws.on("error", () => {});
	}

	private sendDispatch(session: GatewaySession, t: string, d: unknown): void {
		if (t === "MESSAGE_CREATE" || t === "MESSAGE_UPDATE") {
			if ((session.intents & GUILD_MESSAGES_INTENT) === 0) return;
			if ((session.intents & MESSAGE_CONTENT_INTENT) === 0 && typeof d === "object" && d !== null) {
				const m = d as { author?: { id?: string }; content?: string };
				if (m.author?.id !== this.bot.id) d = { ...m, content: "" };
			}
		}
		session.seq++;
		const payload = JSON.stringify({ op: 0, t, s: session.seq, d });
		session.log.push({ s: session.seq, payload });
		if (session.log.length > 2000) session.log.shift();
		const socket = session.socket;
		if (socket && socket.readyState === socket.OPEN) socket.send(payload);
	}
}

/** Start a fake Discord on a free loopback port. */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
	return await new FakeDiscord(options).listen();
}
