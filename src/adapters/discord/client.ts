/**
 * The discord.js client: the three intents lessons need, REST pointed at
 * `apiUrl` when set, mentions off by default, and a listener on every error
 * channel discord.js has, so nothing it emits can end the process.
 */

import { Client, Events, GatewayIntentBits, Options } from "discord.js";
import { Agent } from "undici";
import type { Logger } from "../../core/contracts/logger.ts";
import type { DiscordAdapterConfig } from "./types.ts";

/** Guilds (threads, channels), GuildMessages (messages in threads), MessageContent (privileged: their text). */
export const DISCORD_INTENTS = [
	GatewayIntentBits.Guilds,
	GatewayIntentBits.GuildMessages,
	GatewayIntentBits.MessageContent,
];

/** How often the same rate-limit warning is logged (per route, or once for the global limit). */
const RATE_LIMIT_LOG_MS = 10_000;

/**
 * At most one line per key every `everyMs`; `log` is told how many were left out since the last one.
 * (34,000 rate-limit lines in three minutes of bench:scale filled stderr's pipe, and a blocked write
 * held the event loop, so clicks waited.)
 */
export function sampledLog(everyMs: number, now: () => number = Date.now) {
	const last = new Map<string, { at: number; skipped: number }>();
	return (key: string, log: (skipped: number) => void): void => {
		const at = now();
		const seen = last.get(key);
		if (seen && at - seen.at < everyMs) {
			seen.skipped++;
			return;
		}
		if (last.size >= 1_000) last.clear(); // bounded: routes are few, but ids may hide in them
		last.set(key, { at, skipped: 0 });
		log(seen?.skipped ?? 0);
	};
}

/** A configured, not yet logged-in client with error listeners attached. */
export function createDiscordClient(config: DiscordAdapterConfig, logger: Logger): Client {
	const client = new Client({
		intents: DISCORD_INTENTS,
		// Its own connection pool, not undici's process-wide dispatcher: @slack/bolt brings undici 7, and when it
		// loads first its global dispatcher breaks discord.js's multipart uploads ("action is not a function"),
		// so with both adapters in one process no picture would reach Discord.
		rest: { ...(config.apiUrl ? { api: config.apiUrl } : {}), agent: new Agent() },
		allowedMentions: { parse: [] },
		failIfNotExists: false,
		// Nothing here reads cached messages (cards are edited by id through REST, interactions carry their
		// message): the default keeps 200 per channel, every lesson thread's cards and their updates, which at a
		// thousand live lessons is a heap the garbage collector walks all the time.
		makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
	});
	client.rest.setToken(config.token);
	client.on(Events.Error, (error) => logger.error({ err: error }, "discord: client error"));
	client.on(Events.Warn, (message) => logger.warn({ message }, "discord: client warning"));
	client.on(Events.ShardError, (error, shardId) => logger.error({ err: error, shardId }, "discord: gateway error"));
	client.on(Events.ShardDisconnect, (event, shardId) =>
		logger.warn({ code: event.code, shardId }, "discord: gateway disconnected"),
	);
	client.on(Events.ShardReconnecting, (shardId) => logger.debug({ shardId }, "discord: gateway reconnecting"));
	client.on(Events.ShardResume, (shardId, replayed) => logger.info({ shardId, replayed }, "discord: gateway resumed"));
	client.on(Events.Invalidated, () => logger.error({}, "discord: session invalidated"));
	// Under load every queued request is rate limited: one line per route every 10 s, with how many it stands for.
	const limited = sampledLog(RATE_LIMIT_LOG_MS);
	client.rest.on("rateLimited", (info) =>
		limited(`${info.global ? "global" : info.route}`, (skipped) =>
			logger.warn(
				{ route: info.route, retryAfterMs: info.retryAfter, global: info.global, scope: info.scope, skipped },
				"discord: rate limited; waiting",
			),
		),
	);
	client.rest.on("invalidRequestWarning", (info) =>
		logger.warn({ count: info.count }, "discord: many invalid requests"),
	);
	client.on(Events.Debug, (message) => {
		if (/heartbeat/i.test(message)) return;
		logger.debug({ message }, "discord: debug");
	});
	// Unexpected 429s and 5xx are retried by @discordjs/rest itself; log them so an operator sees the pressure.
	client.rest.on("response", (request, response) => {
		if (response.status === 429)
			limited(`429 ${request.route}`, (skipped) =>
				logger.warn(
					{ route: request.route, retryAfter: response.headers.get("retry-after"), skipped },
					"discord: rate limited; waiting",
				),
			);
		else if (response.status >= 500)
			logger.warn({ route: request.route, status: response.status }, "discord: server error; retrying");
	});
	guardPacketHandling(client, logger);
	return client;
}

/**
 * discord.js handles a gateway dispatch inside an async listener, so a payload
 * with a missing field (a null message) throws there and surfaces as an
 * unhandled rejection. Its packet entry point (private `handlePacket`) is
 * wrapped so such a payload is logged and dropped instead, after an
 * interaction's optional fields were completed (completeInteraction). If a
 * future discord.js renames it, the process-level handler remains.
 */
export function guardPacketHandling(client: Client, logger: Logger): void {
	const ws = client.ws as unknown as { handlePacket?: (packet: unknown, shard: unknown) => boolean };
	const original = ws.handlePacket;
	if (typeof original !== "function") {
		logger.warn({}, "discord: cannot guard gateway packet handling in this discord.js version");
		return;
	}
	ws.handlePacket = function guardedHandlePacket(packet: unknown, shard: unknown): boolean {
		try {
			completeInteraction(packet, client.application?.id);
			return original.call(this, packet, shard);
		} catch (error) {
			const t = (packet as { t?: unknown } | null)?.t;
			logger.warn(
				{ err: error, event: typeof t === "string" ? t : undefined },
				"discord: dropped a malformed gateway payload",
			);
			return true;
		}
	};
}

/**
 * An INTERACTION_CREATE as discord-api-docs' own example shows it ("Receiving and Responding", the
 * interaction object: `channel_id` but no `channel`, no `entitlements`, `authorizing_integration_owners` or
 * `application_id`) made discord.js 14 throw (`data.entitlements.reduce` of undefined) and the command was
 * dropped; without `channel` its channelId is null. The missing fields are filled in place, before discord.js
 * reads the payload: the channel as a partial `{ id }` from `channel_id` (discord.js looks the channel up in its
 * cache by that id), no entitlements, no authorizing owners, and this application's id. A payload that has
 * them is left as it is.
 */
export function completeInteraction(packet: unknown, applicationId: string | undefined): void {
	if (typeof packet !== "object" || packet === null) return;
	const { t, d } = packet as { t?: unknown; d?: unknown };
	if (t !== "INTERACTION_CREATE" || typeof d !== "object" || d === null) return;
	const data = d as Record<string, unknown>;
	if (data.channel === undefined && typeof data.channel_id === "string") data.channel = { id: data.channel_id };
	if (!Array.isArray(data.entitlements)) data.entitlements = [];
	if (typeof data.authorizing_integration_owners !== "object" || data.authorizing_integration_owners === null)
		data.authorizing_integration_owners = {};
	if (typeof data.application_id !== "string" && applicationId) data.application_id = applicationId;
}
