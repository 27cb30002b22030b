/**
 * The lesson's phase, derived from the transcript (never stored):
 * `probe` until the first successful `probe_done`, then `teach`, and `ended`
 * once the transcript carries the end marker (a `data-lesson-ended` part the
 * engine appends when the lesson ends). Pure; works on any message slice
 * with typed parts, like derivePlanStatuses.
 */

import type { LessonPhase } from "./contracts/events.ts";
import type { ProbeAssessment } from "./contracts/probe.ts";
import { parseProbeDoneInput } from "./tool-parts.ts";

/** The part type of the end marker the engine appends when a lesson ends. */
export const LESSON_ENDED_PART = "data-lesson-ended";

/** Minimal structural message slice: anything with typed parts. */
interface PartsCarrier {
	parts: ReadonlyArray<{ type: string; state?: string; input?: unknown; output?: unknown }>;
}

type Part = PartsCarrier["parts"][number];

/** A probe_done call that concluded the probe: answered, and not refused. */
export function isSuccessfulProbeDone(part: Part): boolean {
	if (part.type !== "tool-probe_done" || part.state !== "output-available") return false;
	const output = part.output as { ok?: unknown } | undefined;
	return output?.ok !== false;
}

/** The lesson phase: probe → teach (at the first successful probe_done) → ended (at the end marker). */
export function deriveLessonPhase(messages: readonly PartsCarrier[]): LessonPhase {
	let phase: LessonPhase = "probe";
	for (const m of messages) {
		for (const part of m.parts) {
			if (part.type === LESSON_ENDED_PART) return "ended";
			if (phase === "probe" && isSuccessfulProbeDone(part)) phase = "teach";
		}
	}
	return phase;
}

/** The assessment of the first successful probe_done (parsed, never cast); undefined before it. */
export function findAssessment(messages: readonly PartsCarrier[]): ProbeAssessment | undefined {
	for (const m of messages) {
		for (const part of m.parts) {
			if (isSuccessfulProbeDone(part)) return parseProbeDoneInput(part.input)?.assessment;
		}
	}
	return undefined;
}
