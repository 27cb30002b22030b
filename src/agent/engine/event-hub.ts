/**
 * Delivers TutorEvents to subscribers. Sinks are awaited one after another, so
 * a session's events arrive in order; a sink that throws is logged and skipped.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { TutorEventSink } from "../../core/contracts/tutor.ts";

/** Subscribers and ordered delivery. */
export interface EventHub {
	subscribe(sink: TutorEventSink): () => void;
	/** How many sinks listen. */
	size(): number;
	/** Deliver to every sink in turn; never rejects. */
	emit(event: TutorEvent): Promise<void>;
}

/** A new hub; sink failures go to the logger. */
export function createEventHub(logger: Logger): EventHub {
	const sinks = new Set<TutorEventSink>();
	return {
		subscribe(sink) {
			// Wrap so the same function may subscribe twice and unsubscribe independently.
			const entry: TutorEventSink = (event) => sink(event);
			sinks.add(entry);
			return () => {
				sinks.delete(entry);
			};
		},
		size: () => sinks.size,
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
