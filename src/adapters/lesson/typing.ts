/**
 * "Typing…" while the tutor works. A platform's indicator lasts a few
 * seconds per call (Discord: about 10 s per POST /channels/:id/typing), so an
 * active thread is pinged again every `refreshMs` until the tutor says it
 * stopped, bounded so a lost "stop" cannot type forever. Each ping is a
 * platform call (on Discord one that counts against the bot's global limit):
 * the first comes only after `delayMs` without output, and every post starts
 * that wait again (a posted message clears the indicator anyway), so a turn
 * that answers quickly sends none.
 */

import type { Logger } from "../../core/contracts/logger.ts";

const MAX_MS = 5 * 60_000;

/** Typing indicators per thread. */
export interface TypingIndicators {
	/** Start (active) or stop typing in a thread. */
	set(threadId: string, active: boolean): void;
	/** Something was posted in the thread: an active indicator waits `delayMs` again before its next ping. */
	posted(threadId: string): void;
	/** Stop every indicator. */
	stopAll(): void;
}

interface Loop {
	startedAt: number;
	timer?: NodeJS.Timeout;
}

/**
 * Typing indicators over `ping`; a failing ping is logged (`tag`: the platform) and stops that thread's loop.
 * `delayMs` (default 0): how long a thread posts nothing before its first ping.
 */
export function createTypingIndicators(
	ping: (threadId: string) => Promise<void>,
	refreshMs: number,
	logger: Logger,
	tag: string,
	delayMs = 0,
): TypingIndicators {
	const loops = new Map<string, Loop>();
	const stop = (threadId: string) => {
		const loop = loops.get(threadId);
		if (loop) clearTimeout(loop.timer);
		loops.delete(threadId);
	};
	const send = (threadId: string) => {
		ping(threadId).catch((error: unknown) => {
			logger.warn({ err: error, sessionId: threadId }, `${tag}: typing indicator failed`);
			stop(threadId);
		});
	};
	/** Ping after `waitMs`, then every `refreshMs` (one timer per thread; bounded by MAX_MS). */
	const schedule = (threadId: string, loop: Loop, waitMs: number) => {
		clearTimeout(loop.timer);
		const tick = () => {
			if (loops.get(threadId) !== loop) return;
			if (Date.now() - loop.startedAt > MAX_MS) return stop(threadId);
			send(threadId);
			loop.timer = setTimeout(tick, refreshMs);
			loop.timer.unref();
		};
		if (waitMs <= 0) return tick();
		loop.timer = setTimeout(tick, waitMs);
		loop.timer.unref();
	};
	return {
		set(threadId, active) {
			if (!active) return stop(threadId);
			if (loops.has(threadId)) return;
			const loop: Loop = { startedAt: Date.now() };
			loops.set(threadId, loop);
			schedule(threadId, loop, delayMs);
		},
		posted(threadId) {
			const loop = loops.get(threadId);
			if (loop && delayMs > 0) schedule(threadId, loop, delayMs);
		},
		stopAll() {
			for (const id of [...loops.keys()]) stop(id);
		},
	};
}
