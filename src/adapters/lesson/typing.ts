/**
 * "Typing…" while the tutor works. A platform's indicator lasts a few
 * seconds per call (Discord: about 10 s per POST /channels/:id/typing), so an
 * active thread is pinged again every `refreshMs` until the tutor says it
 * stopped, bounded so a lost "stop" cannot type forever.
 */

import type { Logger } from "../../core/contracts/logger.ts";

const MAX_MS = 5 * 60_000;

/** Typing indicators per thread. */
export interface TypingIndicators {
	/** Start (active) or stop typing in a thread. */
	set(threadId: string, active: boolean): void;
	/** Stop every indicator. */
	stopAll(): void;
}

/** Typing indicators over `ping`; a failing ping is logged (`tag`: the platform) and stops that thread's loop. */
export function createTypingIndicators(
	ping: (threadId: string) => Promise<void>,
	refreshMs: number,
	logger: Logger,
	tag: string,
): TypingIndicators {
	const loops = new Map<string, { timer: NodeJS.Timeout; startedAt: number }>();
	const send = (threadId: string) => {
		ping(threadId).catch((error: unknown) => {
			logger.warn({ err: error, sessionId: threadId }, `${tag}: typing indicator failed`);
			stop(threadId);
		});
	};
	const stop = (threadId: string) => {
		const loop = loops.get(threadId);
		if (loop) clearInterval(loop.timer);
		loops.delete(threadId);
	};
	return {
		set(threadId, active) {
			if (!active) return stop(threadId);
			if (loops.has(threadId)) return;
			const startedAt = Date.now();
			const timer = setInterval(() => {
				if (Date.now() - startedAt > MAX_MS) return stop(threadId);
				send(threadId);
			}, refreshMs);
			timer.unref();
			loops.set(threadId, { timer, startedAt });
			send(threadId);
		},
		stopAll() {
			for (const id of [...loops.keys()]) stop(id);
		},
	};
}
