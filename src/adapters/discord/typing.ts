/**
 * The typing indicator while the tutor works. Discord shows "is typing" for
 * about 10 s per POST /channels/:id/typing, so an active channel is refreshed
 * every 8 s until the tutor says it stopped, bounded so a lost "stop" cannot
 * type forever.
 */

import type { REST } from "discord.js";
import { Routes } from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";

const REFRESH_MS = 8_000;
const MAX_MS = 5 * 60_000;

/** Typing indicators per channel. */
export interface TypingIndicators {
	/** Start (active) or stop typing in a channel. */
	set(channelId: string, active: boolean): void;
	/** Stop every indicator. */
	stopAll(): void;
}

/** Typing indicators that POST through `rest`; failures are logged and stop that channel's loop. */
export function createTypingIndicators(rest: REST, logger: Logger): TypingIndicators {
	const loops = new Map<string, { timer: NodeJS.Timeout; startedAt: number }>();
	const send = (channelId: string) => {
		rest.post(Routes.channelTyping(channelId)).catch((error: unknown) => {
			logger.warn({ err: error, channelId }, "discord: typing indicator failed");
			stop(channelId);
		});
	};
	const stop = (channelId: string) => {
		const loop = loops.get(channelId);
		if (loop) clearInterval(loop.timer);
		loops.delete(channelId);
	};
	return {
		set(channelId, active) {
			if (!active) return stop(channelId);
			if (loops.has(channelId)) return;
			const startedAt = Date.now();
			const timer = setInterval(() => {
				if (Date.now() - startedAt > MAX_MS) return stop(channelId);
				send(channelId);
			}, REFRESH_MS);
			timer.unref();
			loops.set(channelId, { timer, startedAt });
			send(channelId);
		},
		stopAll() {
			for (const id of [...loops.keys()]) stop(id);
		},
	};
}
