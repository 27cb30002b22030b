/**
 * Delivers TutorEvents to subscribers. Sinks are awaited one after another, so
 * a session's events arrive in order; a sink that throws is logged and skipped.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { TutorEventSink } from "../../core/contracts/tutor.ts";

/** Subscribers and ordered delivery. */
export interface EventHub {
	subscribe(sink: TutorEventSink, drained?: (sessionId: string) => Promise<void>): () => void;
	/** Resolves once every sink's posts for the session are out (see Tutor.subscribe), or after `withinMs`. */
	drained(sessionId: string, withinMs: number): Promise<void>;
	/** How many sinks listen. */
	size(): number;
	/** Run `work` once a sink listens: now, or after the next subscribe (work a restart left must reach a platform). */
	whenHeard(work: () => void): void;
	/** Deliver to every sink in turn; never rejects. */
	emit(event: TutorEvent): Promise<void>;
}

/** A new hub; sink failures go to the logger. */
export function createEventHub(logger: Logger): EventHub {
	const sinks = new Set<TutorEventSink>();
	const drainers = new Set<(sessionId: string) => Promise<void>>();
	let waiting: Array<() => void> = [];
	return {
		subscribe(sink, drained) {
			// Wrap so the same function may subscribe twice and unsubscribe independently.
			const entry: TutorEventSink = (event) => sink(event);
			const drainer = drained ? (sessionId: string) => drained(sessionId) : undefined;
			sinks.add(entry);
			if (drainer) drainers.add(drainer);
			const due = waiting;
			waiting = [];
			for (const work of due) work();
			return () => {
				sinks.delete(entry);
				if (drainer) drainers.delete(drainer);
			};
		},
		async drained(sessionId, withinMs) {
			if (drainers.size === 0) return;
			let timer: NodeJS.Timeout | undefined;
			const late = new Promise<void>((done) => {
				timer = setTimeout(done, withinMs);
			});
			const all = Promise.all(
				[...drainers].map((drain) =>
					drain(sessionId).catch((error: unknown) =>
						logger.warn({ err: error, sessionId }, "waiting for a sink's posts failed"),
					),
				),
			);
			await Promise.race([all, late]);
			clearTimeout(timer);
		},
		size: () => sinks.size,
		whenHeard(work) {
			if (sinks.size > 0) work();
			else waiting.push(work);
		},
		async emit(event) {
			for (const sink of [...sinks]) {
				try {
					await sink(event);
				} catch (error) {
					logger.error({ err: error, sessionId: event.sessionId, event: event.type }, "event sink failed");
				}
			}
		},
	};
}
