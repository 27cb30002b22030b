/**
 * The timers group votes close on, by key (engine/votes.ts arms them; the engine context holds
 * them). Apart from the vote rules, which read the context, so the context need not import them.
 */

/** The timer functions the votes run on (injected in tests). */
export interface TimerFunctions {
	setTimeout(fire: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

/** Armed vote timers, by key. */
export interface VoteTimers {
	/** Arm `key` (no-op when armed). */
	arm(key: string, ms: number, fire: () => void): void;
	clear(key: string): void;
	clearAll(): void;
}

/** Longest single wait (setTimeout's limit); a later deadline re-arms. */
const MAX_WAIT_MS = 2 ** 31 - 1;

/** Vote timers on `timers` (default: the process's, unref'd so a pending vote never holds the process open). */
export function createVoteTimers(timers?: TimerFunctions): VoteTimers {
	const fns: TimerFunctions = timers ?? {
		setTimeout: (fire, ms) => setTimeout(fire, ms).unref(),
		clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
	};
	const armed = new Map<string, unknown>();
	return {
		arm(key, ms, fire) {
			if (armed.has(key)) return;
			const handle = fns.setTimeout(
				() => {
					armed.delete(key);
					fire();
				},
				Math.max(0, Math.min(ms, MAX_WAIT_MS)),
			);
			armed.set(key, handle);
		},
		clear(key) {
			if (armed.has(key)) fns.clearTimeout(armed.get(key));
			armed.delete(key);
		},
		clearAll() {
			for (const handle of armed.values()) fns.clearTimeout(handle);
			armed.clear();
		},
	};
}
