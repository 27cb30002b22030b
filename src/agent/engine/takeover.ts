/**
 * Shared stores: sessions nobody runs any more. A holder that dies (`kill -9`), pauses past its
 * lease (`SIGSTOP`, a long GC pause) or is cut off leaves the session "due" in the store (work
 * left, or entries in its inbox, and no live lease). Every process with a listener polls for due
 * sessions (every `WATCH_MS`, jittered) and takes each one it can: under the lease it repairs the
 * record (recover.ts), re-posts questions saved but perhaps never posted, re-runs the
 * cut-off turn, and applies the inbox. So a turn cut off by a dead process runs again within about
 * the lease's TTL plus one poll (10 s + 2 s by default), not only at the next restart.
 */

import type { EngineContext } from "./context.ts";
import { LEASE_TTL_MS } from "./lease.ts";
import { kick } from "./pump.ts";
import type { SessionState } from "./session-state.ts";

/** How often a process looks for due sessions. */
export const WATCH_MS = 2_000;
/** Due sessions listed per page; a look reads pages while they come back full, at most `DUE_PAGES`. */
const DUE_PAGE = 100;
const DUE_PAGES = 20;
/** Sessions taken at once (a lease and a read each): a dead process may leave hundreds due together. */
const TAKE_AT_ONCE = 8;

/** What the watcher needs from the tutor. */
export interface TakeoverDeps {
	/** The live state of a session, loaded from the store when needed. */
	load(sessionId: string): Promise<SessionState | undefined>;
}

/** The watcher of due sessions (every store lists them: the embedded one's inbox is in this process). */
export interface Takeovers {
	/** Take these sessions when possible (resume() at start hands over every open one). */
	schedule(sessionIds: Iterable<string>): void;
	/** Start polling (once someone listens: re-posted questions must reach a platform). */
	start(): void;
	stop(): void;
}

/** The watcher (polls once started; a sweep is one `due` call when nothing is due). */
export function createTakeovers(ctx: EngineContext, deps: TakeoverDeps, everyMs = WATCH_MS): Takeovers {
	const scheduled = new Set<string>();
	let timer: NodeJS.Timeout | undefined;
	let sweeping = false;

	const take = async (sessionId: string): Promise<void> => {
		// The lease first (cheap): a session another process holds is theirs, and is not even read here.
		const lease = await ctx.store.acquire(sessionId, ctx.leaseTtlMs ?? LEASE_TTL_MS);
		if (!lease) return;
		let state: SessionState | undefined;
		try {
			state = await deps.load(sessionId);
		} catch (error) {
			await lease.release(true);
			throw error;
		}
		// Its pump repairs what the last holder left (recover.ts) and applies the inbox under this lease.
		if (state) return kick(ctx, state, lease);
		// No such session any more (deleted, forgotten): clear what is left of it so it is not due forever.
		await ctx.store.inbox.drop(sessionId, Number.MAX_SAFE_INTEGER).catch(() => undefined);
		await lease.release(false);
	};

	/** Take `ids`, `TAKE_AT_ONCE` at a time. */
	const takeAll = async (ids: string[]): Promise<void> => {
		let next = 0;
		const worker = async () => {
			while (next < ids.length && !ctx.signal.aborted) {
				const sessionId = ids[next++] as string;
				await take(sessionId).catch((error: unknown) =>
					ctx.logger.warn({ err: error, sessionId }, "taking over a session failed"),
				);
			}
		};
		await Promise.all(Array.from({ length: Math.min(TAKE_AT_ONCE, ids.length) }, worker));
	};

	const sweep = async (): Promise<void> => {
		const inbox = ctx.store.inbox;
		if (sweeping || ctx.signal.aborted) return;
		sweeping = true;
		try {
			for (let page = 0; page < DUE_PAGES && !ctx.signal.aborted; page++) {
				const due = await inbox.due(DUE_PAGE);
				const ids = [...new Set([...scheduled, ...due])];
				scheduled.clear();
				await takeAll(ids);
				// A full page: more may be due (a process with hundreds of lessons died); the ones taken are not due now.
				if (due.length < DUE_PAGE) break;
			}
		} catch (error) {
			ctx.logger.warn({ err: error }, "looking for sessions left by other processes failed");
		} finally {
			sweeping = false;
		}
	};

	return {
		schedule(sessionIds) {
			for (const id of sessionIds) scheduled.add(id);
			if (timer) void sweep();
		},
		start() {
			if (timer) return;
			// Jittered, so processes started together do not poll in step.
			timer = setInterval(() => void sweep(), everyMs + Math.floor(Math.random() * (everyMs / 4)));
			timer.unref();
			void sweep();
		},
		stop() {
			clearInterval(timer);
			timer = undefined;
		},
	};
}
