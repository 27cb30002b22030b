/**
 * What a lesson thread shows, in which order: tutor events become posts with
 * two rules that keep a thread readable (one step = few messages).
 *
 * 1. A plan picture waits for the next event that is not tutor text; a newer
 *    plan supersedes it, in its place. So "map drawn" followed by "moved to the
 *    first node" posts ONE picture (the one with the current node) where the
 *    map was drawn, not two a few seconds apart, and the picture still comes
 *    before the question it is about.
 * 2. Short tutor text directly followed by a question or an explanation rides
 *    on that card as its lead ("Now let's check that it stuck." + the check
 *    quiz is one message, not two). Text followed by anything else (a plan
 *    picture, the end, the turn's end) is posted on its own, in order.
 *
 * Pure and per session; adapters feed every event through `push` and post
 * what it returns, in order. Nothing is held past the turn: the engine ends
 * every turn with `typing: false`, which releases whatever waits.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";

/** Tutor text longer than this is never merged into a card (it stays its own message). */
export const LEAD_MAX_CHARS = 500;

/** One thing to post: a tutor event, and for a question or explanation the text that led into it. */
export interface ThreadPost {
	event: TutorEvent;
	/** Markdown shown above the card (questions and explanations only). */
	lead?: string;
}

/** Orders and merges a lesson's posts. */
export interface ThreadSequencer {
	/** Take the next event of its session; returns what to post now, in order (possibly nothing). Never throws. */
	push(event: TutorEvent): ThreadPost[];
}

type TextEvent = Extract<TutorEvent, { type: "text" }>;
type PlanEvent = Extract<TutorEvent, { type: "plan" }>;

interface Held {
	plan?: PlanEvent;
	text?: TextEvent;
}

const takesLead = (event: TutorEvent): boolean =>
	event.type === "quiz" || event.type === "ask" || event.type === "explain";

/** A sequencer for every session of one adapter (state is per session id, dropped once nothing waits). */
export function createThreadSequencer(options: { leadMaxChars?: number } = {}): ThreadSequencer {
	const leadMax = options.leadMaxChars ?? LEAD_MAX_CHARS;
	const held = new Map<string, Held>();

	return {
		push(event) {
			if (typeof event !== "object" || event === null) return [];
			const sessionId = typeof event.sessionId === "string" ? event.sessionId : "";
			const h = held.get(sessionId) ?? {};
			const out: ThreadPost[] = [];
			// Invariant: a held text always came after the held plan (a plan arriving releases the text first).
			const release = () => {
				if (h.plan) out.push({ event: h.plan });
				if (h.text) out.push({ event: h.text });
				delete h.plan;
				delete h.text;
			};
			switch (event.type) {
				case "plan":
					// A newer plan takes the held one's place (before any text held after it); otherwise
					// text that came before this plan goes out first.
					if (!h.plan && h.text) {
						out.push({ event: h.text });
						delete h.text;
					}
					h.plan = event;
					break;
				case "text":
					if (h.text) out.push({ event: h.text });
					h.text = event;
					break;
				default:
					if (takesLead(event) && h.text) {
						const lead = typeof h.text.text === "string" ? h.text.text.trim() : "";
						if (lead !== "" && lead.length <= leadMax) {
							if (h.plan) out.push({ event: h.plan });
							out.push({ event, lead });
							delete h.plan;
							delete h.text;
							break;
						}
					}
					release();
					out.push({ event });
			}
			if (h.plan || h.text) held.set(sessionId, h);
			else held.delete(sessionId);
			return out;
		},
	};
}
