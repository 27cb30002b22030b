/**
 * The discord.js client: the three intents lessons need, REST pointed at
 * `apiUrl` when set, mentions off by default, and a listener on every error
 * channel discord.js has, so nothing it emits can end the process.
 */

import { Client, Events, GatewayIntentBits } from "discord.js";
import { Agent } from "undici";
import type { Logger } from "../../core/contracts/logger.ts";
import type { DiscordAdapterConfig } from "./types.ts";

/** Guilds (threads, channels), GuildMessages (messages in threads), MessageContent (privileged: their text). */
export const DISCORD_INTENTS = [
	GatewayIntentBits.Guilds,
	GatewayIntentBits.GuildMessages,
	GatewayIntentBits.MessageContent,
];

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
	client.rest.on("rateLimited", (info) =>
		logger.warn(
			{ route: info.route, retryAfterMs: info.retryAfter, global: info.global, scope: info.scope },
			"discord: rate limited; waiting",
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
			logger.warn(
				{ route: request.route, retryAfter: response.headers.get("retry-after") },
				"discord: rate limited; waiting",
			);
		else if (response.status >= 500)
			logger.warn({ route: request.route, status: response.status }, "discord: server error; retrying");
	});
	guardPacketHandling(client, logger);
	return client;
}

/**
 * discord.js handles a gateway dispatch inside an async listener, so a payload
 * with a missing field (an interaction without `entitlements`, a null message)
 * throws there and surfaces as an unhandled rejection. Its packet entry point
 * (private `handlePacket`) is wrapped so such a payload is logged and dropped
 * instead. If a future discord.js renames it, the process-level handler remains.
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
