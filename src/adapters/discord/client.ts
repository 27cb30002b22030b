/**
 * The discord.js client: the three intents lessons need, REST pointed at
 * `apiUrl` when set, mentions off by default, and a listener on every error
 * channel discord.js has, so nothing it emits can end the process.
 */

import { Client, Events, GatewayIntentBits } from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";
import type { DiscordAdapterConfig } from "./types.ts";

/** Guilds (threads, channels), GuildMessages (messages in threads), MessageContent (privileged: their text). */
export const DISCORD_INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent];

/** A configured, not yet logged-in client with error listeners attached. */
export function createDiscordClient(config: DiscordAdapterConfig, logger: Logger): Client {
	const client = new Client({
		intents: DISCORD_INTENTS,
		rest: config.apiUrl ? { api: config.apiUrl } : {},
		allowedMentions: { parse: [] },
		failIfNotExists: false,
	});
	client.rest.setToken(config.token);
	client.on(Events.Error, (error) => logger.error({ err: error }, "discord: client error"));
	client.on(Events.Warn, (message) => logger.warn({ message }, "discord: client warning"));
	client.on(Events.ShardError, (error, shardId) => logger.error({ err: error, shardId }, "discord: gateway error"));
	client.on(Events.ShardDisconnect, (event, shardId) => logger.warn({ code: event.code, shardId }, "discord: gateway disconnected"));
	client.on(Events.ShardReconnecting, (shardId) => logger.info({ shardId }, "discord: gateway reconnecting"));
	client.on(Events.ShardResume, (shardId, replayed) => logger.info({ shardId, replayed }, "discord: gateway resumed"));
	client.on(Events.Invalidated, () => logger.error({}, "discord: session invalidated"));
	client.rest.on("rateLimited", (info) =>
		logger.warn({ route: info.route, retryAfterMs: info.retryAfter, global: info.global, scope: info.scope }, "discord: rate limited; waiting"),
	);
	client.rest.on("invalidRequestWarning", (info) => logger.warn({ count: info.count }, "discord: many invalid requests"));
	client.on(Events.Debug, (message) => {
		if (/heartbeat/i.test(message)) return;
		logger.debug({ message }, "discord: debug");
	});
	client.rest.on("response", (request, response) => {
		if (response.status >= 500) logger.warn({ route: request.route, status: response.status }, "discord: server error; retrying");
	});
	return client;
}
