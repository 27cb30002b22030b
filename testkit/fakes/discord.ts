/**
 * A fake Discord on 127.0.0.1: the REST API (v10) and the gateway, enough for
 * discord.js 14 to log in, receive a guild and interactions, and post, edit,
 * thread and upload. Every REST call is recorded (multipart attachments with
 * their bytes), every body is checked against Discord's limits, and tests
 * drive users through helpers: slash commands, clicks, selects, modal submits
 * and typed messages. Point discord.js at it with `rest: { api: fake.apiUrl }`.
 * One guild by default; addGuild() adds more (on a chosen shard), and
 * `shards` sets the count `/gateway/bot` recommends (see discord/gateway.ts).
 */

import { EventEmitter } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import { discordMessageText } from "../../src/render/index.ts";
import {
	autocompletePayload,
	buttonPayload,
	type CommandOptionValue,
	type InteractionBase,
	modalSubmitPayload,
	selectPayload,
	slashCommandPayload,
} from "../fixtures/discord/interactions.ts";
import { threadNameProblems } from "../fixtures/discord/limits.ts";
import { IS_COMPONENTS_V2 } from "../fixtures/discord/limits-v2.ts";
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
	messageControls,
	messageObject,
	PERMISSIONS,
	snowflake,
} from "../fixtures/discord/payloads.ts";
import { FakeGateway, shardOfGuild } from "./discord/gateway.ts";
import { handleHttp } from "./discord/http.ts";
import { submittedUploads } from "./discord/modal-submit.ts";
import { err, type Route, restRoutes } from "./discord/rest-routes.ts";
import type { FakeDiscordOptions, FakeFault, FakeFile, FakeInteraction, RecordedCall } from "./discord/types.ts";

export type { FakeAttachment, FakeChannel, FakeMember, FakeMessage, FakeUser } from "../fixtures/discord/payloads.ts";
export { messageControls } from "../fixtures/discord/payloads.ts";

export type { FakeDiscordOptions, FakeFault, FakeFile, FakeInteraction, RecordedCall } from "./discord/types.ts";

/** The fake Discord. Start it with startFakeDiscord(). */
export class FakeDiscord {
	readonly token: string;
	readonly applicationId = snowflake();
	readonly bot: FakeUser = { id: this.applicationId, username: "learnharness", bot: true };
	readonly guild = { id: snowflake(), name: "Study Group", ownerId: "" };
	/** Every guild the bot is in: `guild` first, then those addGuild() added. */
	readonly guilds: Array<{ id: string; name: string; ownerId: string }> = [this.guild];
	/** The shard count `GET /gateway/bot` recommends. */
	shards: number;
	/** How many shards may identify at once (`session_start_limit.max_concurrency`). */
	maxConcurrency: number;
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
	/** Every attachment download (GET /attachments/…): its path and whether it sent an Authorization header. */
	readonly attachmentFetches: Array<{ path: string; authorized: boolean }> = [];
	/**
	 * Files given to a slash command's attachment option (type 11) or uploaded in a modal's file upload (type 19),
	 * served at their URL like message attachments: Discord uploads them with the interaction and names them in
	 * `data.resolved.attachments` by id (discord-api-docs, "Application Command Object": ATTACHMENT options;
	 * "Component Reference": File Upload; "Interaction Object": resolved data's `attachments`).
	 */
	readonly commandAttachments: Array<FakeAttachment & { channelId: string }> = [];
	readonly commands = {
		global: [] as Array<Record<string, unknown>>,
		guild: new Map<string, Array<Record<string, unknown>>>(),
	};
	/** Channel ids of the default guild: a text channel, a second one, a voice channel and an existing thread. */
	readonly ids: { general: string; other: string; voice: string; thread: string };
	/** Gateway counters: connections, identifies, resumes, heartbeats. */
	get gateway() {
		return this.gw.stats;
	}
	/** The `[id, count]` of every IDENTIFY so far, in order. */
	get identifiedShards(): ReadonlyArray<[number, number]> {
		return this.gw.identifiedShards;
	}
	apiUrl = "";
	gatewayUrl = "";
	/** http://127.0.0.1:<port> (attachment URLs hang off it). */
	baseUrl = "";
	/** HELLO's heartbeat interval. */
	readonly heartbeatIntervalMs: number;
	/** How long an interaction may wait for its first response. */
	readonly ackDeadlineMs: number;
	/** Scripted faults still to fire (internal: read by the HTTP side). */
	readonly faults: FakeFault[] = [];
	private readonly server: Server;
	private readonly wss: WebSocketServer;
	private readonly events = new EventEmitter();
	private readonly routes: Route[];
	private readonly gw = new FakeGateway(this);

	constructor(options: FakeDiscordOptions = {}) {
		this.token = options.token ?? "fake-bot-token";
		this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 41_250;
		this.ackDeadlineMs = options.ackDeadlineMs ?? 3_000;
		this.shards = options.shards ?? 1;
		this.maxConcurrency = options.maxConcurrency ?? 1;
		this.events.setMaxListeners(100);
		this.guild.ownerId = this.users.admin.id;
		const adminRole = snowflake();
		const everyone = PERMISSIONS.ViewChannel | PERMISSIONS.SendMessages | PERMISSIONS.ReadMessageHistory;
		this.roles = [
			{ id: this.guild.id, name: "@everyone", permissions: everyone | PERMISSIONS.UseApplicationCommands },
			{ id: adminRole, name: "Admin", permissions: PERMISSIONS.ManageGuild },
			{
				id: snowflake(),
				name: "learnharness",
				permissions: PERMISSIONS.AttachFiles | PERMISSIONS.SendMessagesInThreads,
			},
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
			handleHttp(this, this.routes, req, res).catch((error: unknown) => {
				if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
				res.end(JSON.stringify({ code: 0, message: String(error) }));
			});
		});
		this.wss = new WebSocketServer({ noServer: true });
		this.server.on("upgrade", (req, socket, head) => {
			if (!req.url?.startsWith("/gateway")) return socket.destroy();
			this.wss.handleUpgrade(req, socket, head, (ws) => this.gw.accept(ws));
		});
		this.routes = restRoutes(this);
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

	/**
	 * Add a guild (same members, its own @everyone role) with a text channel `general`; with `shard`
	 * (`[id, count]`), its id is chosen so that Discord's formula puts it on that shard.
	 */
	addGuild(options: { name?: string; shard?: [number, number] } = {}): { id: string; general: string } {
		let id = snowflake();
		const shard = options.shard;
		// Ids one millisecond apart move through the shards in turn: at most `count` tries.
		for (let back = 1; shard && shardOfGuild(id, shard[1]) !== shard[0] && back <= shard[1] * 2; back++)
			id = snowflake(Date.now() - back);
		if (shard && shardOfGuild(id, shard[1]) !== shard[0]) throw new Error(`no guild id for shard ${shard.join("/")}`);
		const guild = { id, name: options.name ?? `Guild ${this.guilds.length + 1}`, ownerId: this.users.admin.id };
		this.guilds.push(guild);
		const general = snowflake();
		this.addChannel({ id: general, type: 0, name: "general", guildId: id });
		return { id, general };
	}

	/** The roles of a guild: the default guild's, with that guild's own @everyone (its id is the guild's). */
	rolesOf(guildId: string): FakeRole[] {
		return this.roles.map((r, i) => (i === 0 ? { ...r, id: guildId } : r));
	}

	/** The guild a channel is in (the default guild for an unknown channel; "" for a DM). */
	guildOfChannel(channelId: string): string {
		return this.channels.get(channelId)?.guildId ?? this.guild.id;
	}

	/** The DM channel (type 1) of `user` with the bot, created on first use (no guild: `guildId` is ""). */
	dmChannel(user: FakeUser): FakeChannel {
		const found = [...this.channels.values()].find((c) => c.type === 1 && c.name === `dm-${user.id}`);
		return found ?? this.addChannel({ id: snowflake(), type: 1, name: `dm-${user.id}`, guildId: "" });
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
		return [...this.channels.values()].filter(
			(c) => (c.type === 10 || c.type === 11 || c.type === 12) && c.id !== this.ids.thread,
		);
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
		/** Files for attachment options (type 11), by option name. */
		files?: Record<string, { filename: string; contentType: string; data: Buffer }>;
		command?: string;
		/**
		 * Top-level fields to leave out of the payload, e.g. `["channel", "entitlements",
		 * "authorizing_integration_owners", "application_id"]` for the shape of discord-api-docs' own example.
		 */
		omit?: readonly string[];
	}): FakeInteraction {
		const name = options.command ?? "lesson";
		const guildId = this.guildOfChannel(options.channelId);
		const def = [...this.commands.global, ...(this.commands.guild.get(guildId) ?? [])].find((c) => c.name === name);
		if (!def) throw new Error(`command /${name} is not registered`);
		let optionDefs = (def.options ?? []) as Array<Record<string, unknown>>;
		if (options.subcommand !== undefined) {
			// "group sub": a subcommand of a subcommand group (type 2), as `/lesson material add`.
			const [first = "", second] = options.subcommand.split(" ");
			if (second !== undefined) {
				const group = optionDefs.find((o) => o.name === first && o.type === 2);
				if (!group) throw new Error(`/${name} has no subcommand group ${first}`);
				optionDefs = (group.options ?? []) as Array<Record<string, unknown>>;
			}
			const sub = optionDefs.find((o) => o.name === (second ?? first) && o.type === 1);
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
		const attachments: Array<FakeAttachment & { channelId: string }> = [];
		for (const [key, file] of Object.entries(options.files ?? {})) {
			const od = optionDefs.find((o) => o.name === key);
			if (od?.type !== 11) throw new Error(`option ${key} is not an attachment option`);
			const attachment = { id: snowflake(), ...file, channelId: options.channelId };
			attachments.push(attachment);
			this.commandAttachments.push(attachment);
			values.push({ name: key, type: 11, value: attachment.id });
		}
		for (const od of optionDefs) {
			if (od.required === true && !(String(od.name) in { ...options.options, ...options.files }))
				throw new Error(`required option ${String(od.name)} missing`);
		}
		const it = this.newInteraction("command", options.user, options.channelId);
		const payload = slashCommandPayload(
			this.interactionBase(it),
			{ id: String(def.id), name },
			options.subcommand,
			values,
			{ users, channels, attachments, baseUrl: this.baseUrl },
		);
		for (const field of options.omit ?? []) delete (payload as Record<string, unknown>)[field];
		this.dispatch("INTERACTION_CREATE", payload);
		return it;
	}

	/**
	 * A user types `typed` in option `focused` of `/<command> <subcommand>` (other options as filled in so far): an
	 * autocomplete interaction. Discord sends one only for an option declared `autocomplete: true`; `force` sends it
	 * anyway (an odd payload). The bot's answer lands in the interaction's `choices` (type 8, checked).
	 */
	autocomplete(options: {
		user: FakeUser;
		channelId: string;
		subcommand?: string;
		/** The subcommand group the subcommand is in (e.g. `material` of `/lesson material remove`). */
		group?: string;
		focused: string;
		typed: string;
		options?: Record<string, string | number | boolean>;
		command?: string;
		force?: boolean;
	}): FakeInteraction {
		const name = options.command ?? "lesson";
		const guildId = this.guildOfChannel(options.channelId);
		const def = [...this.commands.global, ...(this.commands.guild.get(guildId) ?? [])].find((c) => c.name === name);
		if (!def) throw new Error(`command /${name} is not registered`);
		const root = (def.options ?? []) as Array<Record<string, unknown>>;
		const group = options.group === undefined ? undefined : root.find((o) => o.name === options.group && o.type === 2);
		if (options.group !== undefined && !group) throw new Error(`/${name} has no subcommand group ${options.group}`);
		const top = (group ? (group.options ?? []) : root) as Array<Record<string, unknown>>;
		const sub = top.find((o) => o.name === options.subcommand && o.type === 1);
		const defs = ((options.subcommand === undefined ? top : sub?.options) ?? []) as Array<Record<string, unknown>>;
		const focusedDef = defs.find((o) => o.name === options.focused);
		if (!options.force && focusedDef?.autocomplete !== true)
			throw new Error(`option ${options.focused} does not autocomplete: Discord sends no autocomplete for it`);
		const typeOf = (key: string) => Number(defs.find((o) => o.name === key)?.type ?? 3);
		const values: Array<CommandOptionValue & { focused?: true }> = Object.entries(options.options ?? {}).map(
			([key, value]) => ({ name: key, type: typeOf(key), value }),
		);
		// The focused option's value is the partial text, a string whatever the option's type.
		values.push({ name: options.focused, type: typeOf(options.focused), value: options.typed, focused: true });
		const it = this.newInteraction("autocomplete", options.user, options.channelId);
		this.dispatch(
			"INTERACTION_CREATE",
			autocompletePayload(
				this.interactionBase(it),
				{ id: String(def.id), name },
				options.subcommand,
				values,
				options.group,
			),
		);
		return it;
	}

	/** A user clicks a button on a message. `force` skips the "is it there and enabled" check (a race on the client). */
	click(options: { user: FakeUser; messageId: string; customId: string; force?: boolean }): FakeInteraction {
		const message = this.requireComponent(options.messageId, options.customId, 2, options.force);
		const it = this.newInteraction("button", options.user, message.channelId, message.id);
		this.dispatch(
			"INTERACTION_CREATE",
			buttonPayload(this.interactionBase(it), messageObject(message, this.baseUrl), options.customId),
		);
		return it;
	}

	/** A user picks values in a string select. */
	select(options: {
		user: FakeUser;
		messageId: string;
		customId: string;
		values: string[];
		force?: boolean;
	}): FakeInteraction {
		const message = this.requireComponent(options.messageId, options.customId, 3, options.force);
		const it = this.newInteraction("select", options.user, message.channelId, message.id);
		const payload = selectPayload(
			this.interactionBase(it),
			messageObject(message, this.baseUrl),
			options.customId,
			options.values,
		);
		this.dispatch("INTERACTION_CREATE", payload);
		return it;
	}

	/**
	 * A user submits the modal the bot showed in answer to `opened`: text by text input custom id, files by file
	 * upload custom id, chosen values by checkbox group, radio group or select id. What a Discord client would
	 * not let through throws here (files outside an upload's min/max, a file over the user's upload limit,
	 * values that are not a group's options): see limits-modal.ts for the sources.
	 */
	submitModal(options: {
		user: FakeUser;
		opened: FakeInteraction;
		values: Record<string, string>;
		files?: Record<string, Array<{ filename: string; contentType: string; data: Buffer }>>;
		chosen?: Record<string, string[]>;
	}): FakeInteraction {
		const modal = options.opened.modal;
		if (!modal) throw new Error("no modal was shown for that interaction");
		const uploads = submittedUploads(modal, options.opened.channelId, options.files ?? {}, options.chosen ?? {});
		this.commandAttachments.push(...Object.values(uploads).flat());
		const message = options.opened.messageId ? this.messages.get(options.opened.messageId) : undefined;
		const it = this.newInteraction("modal", options.user, options.opened.channelId, message?.id);
		const payload = modalSubmitPayload(
			this.interactionBase(it),
			message ? messageObject(message, this.baseUrl) : undefined,
			modal,
			{
				values: options.values,
				uploads,
				...(options.chosen ? { chosen: options.chosen } : {}),
				baseUrl: this.baseUrl,
			},
		);
		this.dispatch("INTERACTION_CREATE", payload);
		return it;
	}

	/**
	 * A user types a message in a channel (MESSAGE_CREATE; content hidden without the MessageContent intent),
	 * optionally with attachments: the fake serves their bytes at the attachment URL it puts in the payload.
	 */
	say(options: {
		user: FakeUser;
		channelId: string;
		content: string;
		files?: Array<{ filename: string; contentType: string; data: Buffer }>;
	}): FakeMessage {
		const channel = this.channels.get(options.channelId);
		if (!channel) throw new Error(`unknown channel ${options.channelId}`);
		const files = (options.files ?? []).map((f) => ({ field: "files", ...f }));
		const message = this.storeMessage(channel, options.user, { content: options.content }, files);
		return message;
	}

	/** Send a raw gateway dispatch to every identified session (malformed payloads included). */
	dispatch(t: string, d: unknown): void {
		this.gw.dispatch(t, d);
		this.changed();
	}

	/** Close every gateway socket with `code` (4000 = unknown error: clients resume). */
	dropConnections(code = 4000): void {
		this.gw.drop(code);
	}

	// ─── internals ───────────────────────────────────────────────────────────

	/** Wake waitFor() (internal: called on every call, dispatch and gateway event). */
	changed(): void {
		this.events.emit("change");
	}

	private interactionBase(it: FakeInteraction): InteractionBase {
		const channel = this.channels.get(it.channelId);
		if (!channel) throw new Error(`unknown channel ${it.channelId}`);
		const member = this.member(it.user);
		const botMember = this.member(this.bot);
		const roles = this.rolesOf(it.guildId);
		return {
			id: it.id,
			token: it.token,
			applicationId: this.applicationId,
			guildId: it.guildId,
			channel,
			member,
			permissions: memberPermissions(member, roles, it.guildId),
			appPermissions: memberPermissions(botMember, roles, it.guildId),
			...(it.user.locale !== undefined ? { locale: it.user.locale } : {}),
		};
	}

	private newInteraction(kind: FakeInteraction["kind"], user: FakeUser, channelId: string, messageId?: string) {
		const it: FakeInteraction = {
			id: snowflake(),
			token: `itoken-${snowflake()}`,
			kind,
			user,
			channelId,
			guildId: this.guildOfChannel(channelId),
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
		const found = messageControls(message).find((c) => c.custom_id === customId && c.type === type);
		if (!found) throw new Error(`message ${messageId} has no component ${customId}`);
		if (found.disabled === true) throw new Error(`component ${customId} is disabled`);
		return message;
	}

	/** Store a message and dispatch MESSAGE_CREATE unless ephemeral (internal: used by the REST routes). */
	storeMessage(
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
			text: discordMessageText(body),
			components: Array.isArray(body.components) ? body.components : [],
			embeds: Array.isArray(body.embeds) ? body.embeds : [],
			attachments: files.map((f, k) => {
				const meta = (Array.isArray(body.attachments) ? body.attachments : []) as Array<Record<string, unknown>>;
				const description = meta.find((a) => String(a.id) === String(k))?.description;
				return {
					id: snowflake(),
					filename: f.filename,
					contentType: f.contentType,
					data: f.data,
					...(typeof description === "string" ? { description } : {}),
				};
			}),
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

	/** Apply an edit and dispatch MESSAGE_UPDATE (internal: used by the REST routes). */
	editMessage(message: FakeMessage, body: Record<string, unknown>, files: FakeFile[]): FakeMessage {
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
		// An edit may add IS_COMPONENTS_V2 (a deferred reply's first edit); it never removes it (checked before).
		if (typeof body.flags === "number") message.flags |= body.flags & IS_COMPONENTS_V2;
		message.text = discordMessageText(message);
		message.editedAt = new Date().toISOString();
		if (!message.visibleTo) this.dispatch("MESSAGE_UPDATE", messageObject(message, this.baseUrl));
		return message;
	}

	/** Create a thread under `parent` and dispatch THREAD_CREATE (internal: used by the REST routes). */
	createThread(parent: FakeChannel, body: Record<string, unknown>, starter?: FakeMessage): [number, unknown] {
		const problems = threadNameProblems(body.name);
		if (problems.length > 0) return err(400, 50035, "Invalid Form Body", { name: problems });
		if (parent.type !== 0 && parent.type !== 5) return err(400, 50024, "Cannot execute action on this channel type");
		// Threads of announcement channels are announcement threads (10); of text channels, public (11) or private (12).
		const type = starter ? (parent.type === 5 ? 10 : 11) : typeof body.type === "number" ? body.type : 12;
		if ((parent.type === 5) !== (type === 10)) return err(400, 50024, "Cannot execute action on this channel type");
		const thread = this.addChannel({
			id: starter?.id ?? snowflake(),
			type,
			name: String(body.name),
			guildId: parent.guildId,
			parentId: parent.id,
			ownerId: this.bot.id,
			autoArchiveDuration: typeof body.auto_archive_duration === "number" ? body.auto_archive_duration : 4320,
		});
		this.dispatch("THREAD_CREATE", { ...channelObject(thread), newly_created: true });
		return [201, channelObject(thread)];
	}

	/** A guild (the default one unless named) as GUILD_CREATE carries it (internal). */
	guildCreate(guildId: string = this.guild.id) {
		const guild = this.guilds.find((g) => g.id === guildId) ?? this.guild;
		const channels = [...this.channels.values()].filter((c) => c.guildId === guild.id);
		return guildCreateObject(guild, channels, this.rolesOf(guild.id), this.members);
	}
}

/** Start a fake Discord on a free loopback port. */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
	return await new FakeDiscord(options).listen();
}
