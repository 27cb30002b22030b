/**
 * The Discord adapter: lessons in threads, driven by `/lesson`, buttons,
 * selects, modals and typed messages, with the plan picture posted in the
 * thread. Transport only: the tutor decides, the renderer draws.
 */

import { Events } from "discord.js";
import type Keyv from "keyv";
import { DEFAULT_STORE_URL, openKeyv } from "../../agent/store/keyv.ts";
import type { TutorEvent } from "../../core/contracts/events.ts";
import { AnswerGate } from "../shared/answer-gate.ts";
import { createSerialQueues } from "../shared/serial-queue.ts";
import { within } from "../shared/within.ts";
import { createDiscordClient } from "./client.ts";
import { registerDiscordCommands } from "./commands.ts";
import type { AdapterContext } from "./context.ts";
import { createInteractionListener } from "./interactions.ts";
import { onMessage } from "./messages.ts";
import { createPoster } from "./poster.ts";
import { DiscordState } from "./state.ts";
import type { DiscordAdapter, DiscordAdapterOptions } from "./types.ts";
import { createTypingIndicators } from "./typing.ts";

export { DISCORD_INTENTS } from "./client.ts";
export { LESSON_COMMAND, lessonCommands, type RegisteredCommands, registerDiscordCommands } from "./commands.ts";
export { DEFAULT_GUILD_CONFIG } from "./state.ts";
export type {
	DiscordAdapter,
	DiscordAdapterConfig,
	DiscordAdapterOptions,
	GuildConfig,
	LessonRecord,
} from "./types.ts";

const STOP_FLUSH_MS = 10_000;

/** Create the Discord adapter; nothing connects until start(). */
export function createDiscordAdapter(options: DiscordAdapterOptions): DiscordAdapter {
	const { tutor, renderer, config, logger } = options;
	const ownKeyv: Keyv | undefined = options.keyv
		? undefined
		: openKeyv(config.storeUrl ?? DEFAULT_STORE_URL, "discord", logger);
	const keyv = options.keyv ?? (ownKeyv as Keyv);
	const client = createDiscordClient(config, logger);
	const state = new DiscordState(keyv, config.guildDefaults);
	const queues = createSerialQueues(logger);
	const typing = createTypingIndicators(client.rest, logger);
	const gate = new AnswerGate();
	const poster = createPoster({ rest: client.rest, tutor, renderer, state, gate, queues, typing, logger });
	const ctx: AdapterContext = { client, tutor, renderer, state, poster, gate, logger };
	let unsubscribe: (() => void) | undefined;
	let stopped = false;

	client.on(Events.InteractionCreate, createInteractionListener(ctx));
	client.on(Events.MessageCreate, (message) => {
		onMessage(ctx, message).catch((error: unknown) => logger.error({ err: error }, "discord: message handler failed"));
	});

	return {
		async start() {
			unsubscribe ??= tutor.subscribe((event: TutorEvent) => poster.onEvent(event));
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
				unsubscribe?.();
				unsubscribe = undefined;
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
			// Let running turns finish while still subscribed, so their posts are not lost (bounded).
			await within(tutor.idle(), STOP_FLUSH_MS);
			unsubscribe?.();
			unsubscribe = undefined;
			const drained = await queues.drain(STOP_FLUSH_MS);
			if (!drained) logger.warn({}, "discord: stopped with posts still queued");
			typing.stopAll();
			await client.destroy().catch((error: unknown) => logger.warn({ err: error }, "discord: disconnect failed"));
			if (ownKeyv) await ownKeyv.disconnect().catch(() => {});
		},
		flush(timeoutMs = STOP_FLUSH_MS) {
			return queues.drain(timeoutMs);
		},
	};
}
