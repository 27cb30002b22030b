/**
 * What the tutor is doing, shown under a lesson's thread while the learner waits (Slack's
 * assistant status: "is thinking…", "is checking your answer…", "is drawing the map…"):
 * set when a turn starts (the engine says so before the turn's first model request), changed
 * per phase, set again after a post the turn usually goes on after (an explanation, the map:
 * a platform may clear it when the bot posts, Slack does; not after a question, which ends the
 * learner's wait), and cleared once the turn's last card landed (`settled`, queued
 * behind the thread's posts). A grader check outside a turn shows "checking" until its verdict
 * lands. The calls of one thread go out in order; nothing here throws or waits on the platform.
 */

import type { Logger } from "../../core/contracts/logger.ts";
import { perKey } from "../../core/per-key.ts";
import type { Locale } from "../../i18n/index.ts";
import type { PlatformPort, WorkPhase } from "./port.ts";

/** The working status of every thread of one port. */
export interface WorkStatuses {
	/** A turn started (true) or ended (false): the engine's typing event. */
	turn(threadId: string, active: boolean): void;
	/** A phase began: shown while a turn runs; "checking" (a grader call) also outside one. */
	phase(threadId: string, phase: WorkPhase): void;
	/** Something was posted in the thread: a running turn shows "thinking" again (the post may have cleared it). */
	posted(threadId: string): void;
	/** What was queued before now has landed: clear the status unless a turn runs. Never rejects. */
	settled(threadId: string): Promise<void>;
}

interface ThreadWork {
	working: boolean;
	shown?: WorkPhase;
}

/** Statuses over `port.workStatus`; undefined when the port shows none. */
export function createWorkStatuses(
	port: Pick<PlatformPort, "workStatus" | "name">,
	localeOf: (threadId: string) => Promise<Locale>,
	logger: Logger,
): WorkStatuses | undefined {
	const set = port.workStatus?.bind(port);
	if (!set) return undefined;
	const threads = new Map<string, ThreadWork>();
	const inOrder = perKey();
	const send = (threadId: string, phase: WorkPhase | undefined): Promise<void> =>
		inOrder(threadId, async () => set(threadId, phase, await localeOf(threadId))).catch((error: unknown) =>
			logger.warn({ err: error, sessionId: threadId }, `${port.name}: the working status failed`),
		);
	const show = (threadId: string, phase: WorkPhase) => {
		const work = threads.get(threadId) ?? { working: false };
		work.shown = phase;
		threads.set(threadId, work);
		void send(threadId, phase);
	};
	return {
		turn(threadId, active) {
			const work = threads.get(threadId) ?? { working: false };
			work.working = active;
			threads.set(threadId, work);
			if (active) show(threadId, "thinking");
		},
		phase(threadId, phase) {
			const work = threads.get(threadId);
			if (phase === "checking" || work?.working) show(threadId, phase);
		},
		posted(threadId) {
			const work = threads.get(threadId);
			if (work?.working) show(threadId, "thinking");
		},
		async settled(threadId) {
			const work = threads.get(threadId);
			if (!work || work.working) return;
			threads.delete(threadId);
			if (work.shown) await send(threadId, undefined);
		},
	};
}
