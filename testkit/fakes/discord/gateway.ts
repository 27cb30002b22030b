/**
 * The fake Discord's gateway (the `ws` package): HELLO, IDENTIFY -> READY and
 * GUILD_CREATE, heartbeat ACKs, RESUME with replay of missed dispatches, and
 * dispatches filtered by intents (no MESSAGE_CREATE without GuildMessages; no
 * content without MessageContent, as Discord does). Sharding as Discord does it:
 * IDENTIFY may carry `shard: [id, count]`; a session then gets READY and
 * GUILD_CREATE for the guilds of its shard only (`(guild_id >> 22) % count`), and
 * each dispatch goes to the session of its guild's shard (no guild: shard 0).
 */

import type { WebSocket } from "ws";
import type { FakeUser } from "../../fixtures/discord/payloads.ts";
import { snowflake, userObject } from "../../fixtures/discord/payloads.ts";

const MESSAGE_CONTENT_INTENT = 1 << 15;
const GUILD_MESSAGES_INTENT = 1 << 9;

/** The shard a guild's events go to, as Discord computes it. */
export function shardOfGuild(guildId: string, shardCount: number): number {
	return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/** The guild a dispatch belongs to (`guild_id`, or the guild itself for GUILD_*), if any. */
function guildOf(t: string, d: unknown): string | undefined {
	if (typeof d !== "object" || d === null) return undefined;
	const o = d as { guild_id?: unknown; id?: unknown };
	if (typeof o.guild_id === "string") return o.guild_id;
	if (t.startsWith("GUILD_") && typeof o.id === "string") return o.id;
	return undefined;
}

/** What the gateway needs from the fake. */
export interface GatewayHost {
	token: string;
	bot: FakeUser;
	applicationId: string;
	/** Every guild the bot is in. */
	guilds: ReadonlyArray<{ id: string }>;
	gatewayUrl: string;
	heartbeatIntervalMs: number;
	guildCreate(guildId: string): unknown;
	changed(): void;
}

interface GatewaySession {
	id: string;
	seq: number;
	intents: number;
	/** `[shard id, shard count]` from IDENTIFY (`[0, 1]` without one). */
	shard: [number, number];
	socket: WebSocket | null;
	log: Array<{ s: number; payload: string }>;
}

/** Gateway sessions and their sockets. */
export class FakeGateway {
	readonly stats = { connections: 0, identifies: 0, resumes: 0, heartbeats: 0 };
	/** The shard pair of every IDENTIFY, in order. */
	readonly identifiedShards: Array<[number, number]> = [];
	private readonly sessions = new Map<string, GatewaySession>();

	constructor(private readonly host: GatewayHost) {}

	/** Send a dispatch to the identified sessions of its guild's shard (logged for replay when a socket is down). */
	dispatch(t: string, d: unknown): void {
		const guildId = guildOf(t, d);
		for (const session of this.sessions.values()) {
			const [id, count] = session.shard;
			if ((guildId === undefined ? 0 : shardOfGuild(guildId, count)) === id) this.send(session, t, d);
		}
	}

	/** Shard pairs of the sessions whose socket is open now. */
	connectedShards(): Array<[number, number]> {
		return [...this.sessions.values()]
			.filter((s) => s.socket !== null && s.socket.readyState === s.socket.OPEN)
			.map((s) => s.shard);
	}

	/** Close every socket with `code` (4000: clients resume). */
	drop(code: number): void {
		for (const session of this.sessions.values()) {
			session.socket?.close(code, "fake drop");
			session.socket = null;
		}
	}

	/** A new gateway connection: HELLO, then IDENTIFY -> READY + GUILD_CREATE, heartbeats, RESUME. */
	accept(ws: WebSocket): void {
		this.stats.connections++;
		let session: GatewaySession | undefined;
		const send = (payload: unknown) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(payload));
		send({ op: 10, d: { heartbeat_interval: this.host.heartbeatIntervalMs }, s: null, t: null });
		ws.on("message", (raw) => {
			let packet: { op?: number; d?: Record<string, unknown> };
			try {
				packet = JSON.parse(String(raw));
			} catch {
				return ws.close(4002, "Decode error");
			}
			const d = packet.d ?? {};
			if (packet.op === 1) {
				this.stats.heartbeats++;
				send({ op: 11, d: null, s: null, t: null });
			} else if (packet.op === 2) {
				if (d.token !== this.host.token) return ws.close(4004, "Authentication failed");
				const shard = shardPair(d.shard);
				if (!shard) return ws.close(4010, "Invalid shard");
				this.stats.identifies++;
				this.identifiedShards.push(shard);
				session = {
					id: `session-${snowflake()}`,
					seq: 0,
					intents: Number(d.intents ?? 0),
					shard,
					socket: ws,
					log: [],
				};
				this.sessions.set(session.id, session);
				const guilds = this.host.guilds.filter((g) => shardOfGuild(g.id, shard[1]) === shard[0]);
				this.send(session, "READY", {
					v: 10,
					user: userObject(this.host.bot),
					guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
					session_id: session.id,
					resume_gateway_url: this.host.gatewayUrl,
					shard,
					application: { id: this.host.applicationId, flags: 0 },
					private_channels: [],
					presences: [],
					relationships: [],
					user_settings: {},
					guild_join_requests: [],
					geo_ordered_rtc_regions: [],
				});
				for (const g of guilds) this.send(session, "GUILD_CREATE", this.host.guildCreate(g.id));
			} else if (packet.op === 6) {
				const known = this.sessions.get(String(d.session_id));
				if (!known || d.token !== this.host.token) return send({ op: 9, d: false, s: null, t: null });
				this.stats.resumes++;
				session = known;
				session.socket = ws;
				const after = Number(d.seq ?? 0);
				for (const entry of session.log) if (entry.s > after) ws.send(entry.payload);
				this.send(session, "RESUMED", {});
			}
			this.host.changed();
			return undefined;
		});
		ws.on("close", () => {
			if (session && session.socket === ws) session.socket = null;
		});
		ws.on("error", () => {});
	}

	/** Send (or log for RESUME) one dispatch to a session, filtered by its intents like Discord. */
	send(session: GatewaySession, t: string, d: unknown): void {
		if (t === "MESSAGE_CREATE" || t === "MESSAGE_UPDATE") {
			if ((session.intents & GUILD_MESSAGES_INTENT) === 0) return;
			if ((session.intents & MESSAGE_CONTENT_INTENT) === 0 && typeof d === "object" && d !== null) {
				const m = d as { author?: { id?: string }; content?: string };
				if (m.author?.id !== this.host.bot.id) d = { ...m, content: "" };
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

/** IDENTIFY's `shard` as Discord checks it: absent is `[0, 1]`; a bad pair is undefined (close 4010). */
function shardPair(value: unknown): [number, number] | undefined {
	if (value === undefined || value === null) return [0, 1];
	if (!Array.isArray(value) || value.length !== 2) return undefined;
	const [id, count] = value as unknown[];
	if (!Number.isInteger(id) || !Number.isInteger(count)) return undefined;
	const [i, c] = [id as number, count as number];
	return c >= 1 && i >= 0 && i < c ? [i, c] : undefined;
}
