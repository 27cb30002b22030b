/**
 * Per-key serial work: the posts of one lesson thread go out in order (a quiz
 * after the explanation it follows, the plan picture before the next
 * question), while other threads proceed independently. Shared by every adapter.
 */

import type { Logger } from "../../core/contracts/logger.ts";

/** Serial queues keyed by session id. */
export interface SerialQueues {
	/** Queue `task` after the key's earlier tasks; a failing task is logged, never rethrown. */
	run(key: string, task: () => Promise<void>): Promise<void>;
	/** Resolves once the key's tasks queued so far have run. */
	drained(key: string): Promise<void>;
	/** Resolves true once every queue is empty, false when `timeoutMs` passed first. */
	drain(timeoutMs: number): Promise<boolean>;
}

/** Empty serial queues that log task failures to `logger`. */
export function createSerialQueues(logger: Logger): SerialQueues {
	const tails = new Map<string, Promise<void>>();
	return {
		run(key, task) {
			const previous = tails.get(key) ?? Promise.resolve();
			const next = previous.then(task).catch((error: unknown) => {
				logger.error({ err: error, key }, "queued work failed");
			});
			tails.set(key, next);
			void next.finally(() => {
				if (tails.get(key) === next) tails.delete(key);
			});
			return next;
		},
		drained: (key) => tails.get(key) ?? Promise.resolve(),
		async drain(timeoutMs) {
			const deadline = Date.now() + timeoutMs;
			while (tails.size > 0) {
				const left = deadline - Date.now();
				if (left <= 0) return false;
				let timer: NodeJS.Timeout | undefined;
				const timeout = new Promise<void>((resolve) => {
					timer = setTimeout(resolve, left);
				});
				await Promise.race([Promise.all(tails.values()), timeout]);
				clearTimeout(timer);
			}
			return true;
		},
	};
}
