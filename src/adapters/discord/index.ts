/**
 * The Discord adapter: lessons in threads, driven by `/lesson`, buttons,
 * selects, modals and typed messages, with the plan picture posted in the
 * thread. Transport only: the tutor decides, the renderer draws.
 */

import { Events, Status } from "discord.js";
import { createLessonController } from "../lesson/controller.ts";
import { originOf } from "../lesson/images.ts";
import { DEFAULT_LESSON_RULES } from "../lesson/lesson-rules.ts";
import { createDiscordClient } from "./client.ts";
import { registerDiscordCommands } from "./commands.ts";
import type { ControlsContext } from "./controls.ts";
import { createInteractionListener } from "./interactions.ts";
import { DISCORD_FILE_ORIGINS, onMessage } from "./messages.ts";
import { createDiscordPort, createInteractionReplies } from "./port.ts";
import type { DiscordAdapter, DiscordAdapterOptions } from "./types.ts";

export { LESSON_COMMAND, lessonCommands, registerDiscordCommands } from "./commands.ts";
export { decodeDiscordThreadId, encodeDiscordThreadId } from "./thread-id.ts";
export type { DiscordAdapter, DiscordAdapterConfig } from "./types.ts";

/** Built-in guild defaults: every channel, no daily limit, solo lessons. */
export const DEFAULT_GUILD_CONFIG = DEFAULT_LESSON_RULES;

/** Create the Discord adapter; nothing connects until start(). */
export function createDiscordAdapter(options: DiscordAdapterOptions): DiscordAdapter {
	const { tutor, renderer, config, logger } = options;
	const client = createDiscordClient(config, logger);
	const replies = createInteractionReplies(); // clicks whose interactions carry their turn's output
	const port = createDiscordPort(client, logger, replies);
	const controller = createLessonController({
		tutor,
		renderer,
		port,
		logger,
		...(options.state ? { state: options.state } : {}),
		...(options.budgets ? { budgets: options.budgets } : {}),
		...(options.learning ?? {}),
		...(config.storeUrl ? { storeUrl: config.storeUrl } : {}),
		...(config.guildDefaults ? { ruleDefaults: config.guildDefaults } : {}),
		images: {
			vision: config.vision === true,
			// The CDN's links are signed: no token is sent. DISCORD_API_URL's host serves files in tests and proxies.
			source: {
				origins: [...DISCORD_FILE_ORIGINS, ...[originOf(config.apiUrl)].filter((o) => o !== undefined)],
				...(config.imageLimits ? { limits: config.imageLimits } : {}),
			},
		},
	});
	const ctx: ControlsContext = { controller, port, logger, replies };
	let stopped = false;

	// Once stopping, new interactions and messages are left alone (not claimed): another process on the same
	// token takes them, while this one finishes its running turns.
	const onInteraction = createInteractionListener(ctx);
	client.on(Events.InteractionCreate, (interaction) => {
		if (!stopped) onInteraction(interaction);
	});
	client.on(Events.MessageCreate, (message) => {
		if (stopped) return;
		onMessage(ctx, message).catch((error: unknown) => logger.error({ err: error }, "discord: message handler failed"));
	});

	return {
		async start() {
			controller.attach();
			const timeoutMs = config.readyTimeoutMs ?? 30_000;
			let timer: NodeJS.Timeout | undefined;
			const ready = new Promise<void>((resolve, reject) => {
				client.once(Events.ClientReady, () => resolve());
				timer = setTimeout(
					() => reject(new Error(`Discord: the gateway was not ready within ${timeoutMs} ms`)),
					timeoutMs,
				);
			});
			try {
				await client.login(config.token);
				await ready;
			} catch (error) {
				await controller.stop();
				await client.destroy().catch(() => {});
				const message = error instanceof Error ? error.message : String(error);
				throw new Error(
					/token|401/i.test(message)
						? `Discord rejected DISCORD_TOKEN (${message}). Copy the bot token again (Developer Portal -> Bot -> Reset Token).`
						: `Discord: could not connect (${message}). Check DISCORD_API_URL and the network.`,
					{ cause: error },
				);
			} finally {
				clearTimeout(timer);
			}
			logger.info({ user: client.user?.tag, guilds: client.guilds.cache.size }, "discord: connected");
			if (config.registerCommands !== false) {
				const applicationId = config.applicationId ?? client.application?.id;
				await registerDiscordCommands(
					{ ...config, ...(applicationId ? { applicationId } : {}) },
					logger,
					client.rest,
				).catch((error: unknown) =>
					logger.error({ err: error }, "discord: registering /lesson failed; existing commands stay"),
				);
			}
		},
		async stop() {
			if (stopped) return;
			stopped = true;
			// Running turns finish while still subscribed, so their posts are not lost (bounded).
			await controller.stop();
			await client.destroy().catch((error: unknown) => logger.warn({ err: error }, "discord: disconnect failed"));
		},
		flush: (timeoutMs) => controller.flush(timeoutMs),
		ready: () => !stopped && client.ws.status === Status.Ready,
		sendReminders: async () => (await controller.profile?.sendReminders()) ?? 0,
	};
}
