/**
 * The fake Discord's gateway (the `ws` package): HELLO, IDENTIFY -> READY and
 * GUILD_CREATE, heartbeat ACKs, RESUME with replay of missed dispatches, and
 * dispatches filtered by intents (no MESSAGE_CREATE without GuildMessages; no
 * content without MessageContent, as Discord does).
 */

import type { WebSocket } from "ws";
import type { FakeUser } from "../../fixtures/discord/payloads.ts";
import { snowflake, userObject } from "../../fixtures/discord/payloads.ts";

const MESSAGE_CONTENT_INTENT = 1 << 15;
const GUILD_MESSAGES_INTENT = 1 << 9;

/** What the gateway needs from the fake. */
export interface GatewayHost {
	token: string;
	bot: FakeUser;
	applicationId: string;
	guild: { id: string };
	gatewayUrl: string;
	heartbeatIntervalMs: number;
	guildCreate(): unknown;
	changed(): void;
}

interface GatewaySession {
	id: string;
	seq: number;
	intents: number;
	socket: WebSocket | null;
	log: Array<{ s: number; payload: string }>;
}

/** Gateway sessions and their sockets. */
export class FakeGateway {
	readonly stats = { connections: 0, identifies: 0, resumes: 0, heartbeats: 0 };
	private readonly sessions = new Map<string, GatewaySession>();

	constructor(private readonly host: GatewayHost) {}

	/** Send a dispatch to every identified session (logged for replay when its socket is down). */
	dispatch(t: string, d: unknown): void {
		for (const session of this.sessions.values()) this.send(session, t, d);
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
				this.stats.identifies++;
				session = { id: `session-${snowflake()}`, seq: 0, intents: Number(d.intents ?? 0), socket: ws, log: [] };
				this.sessions.set(session.id, session);
				this.send(session, "READY", {
					v: 10,
					user: userObject(this.host.bot),
					guilds: [{ id: this.host.guild.id, unavailable: true }],
					session_id: session.id,
					resume_gateway_url: this.host.gatewayUrl,
					shard: [0, 1],
					application: { id: this.host.applicationId, flags: 0 },
					private_channels: [],
					presences: [],
					relationships: [],
					user_settings: {},
					guild_join_requests: [],
					geo_ordered_rtc_regions: [],
				});
				this.send(session, "GUILD_CREATE", this.host.guildCreate());
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
