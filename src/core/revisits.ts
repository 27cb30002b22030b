/**
 * Shaky nodes still to revisit before the recap, DERIVED from the transcript
 * on every read (never stored), like mastery (mastery.ts) and the plan
 * statuses. The explain tool refuses a recap while any is left, so a step the
 * learner missed comes back in the lesson, not only in next week's review.
 *
 * Walking the answered quizzes tagged with a node of the map, in order:
 *   a `check` whose verdict is shaky (checkVerdict: missed, not sure, skipped,
 *   or right only after help) opens the node;
 *   a later `check` on an open node is a re-check: right (on any try) settles
 *   it; skipped (the learner moved on from it) settles it; any other answer
 *   counts as one re-check, and after MAX_RECHECKS of them the node is settled
 *   too (it goes to spaced review: a lesson must not circle one node for ever);
 *   an answered `ask` whose chosen option value is MOVE_ON settles every node
 *   open at that point (the learner chose to move on).
 * A settled node that a later check misses opens again. Predict quizzes,
 * untagged quizzes, unknown ids, undecided results and a group's split vote
 * (its revote decides) move nothing. One pass.
 */

import type { PlanTree } from "./contracts/plan.ts";
import { checkVerdict, quizCallType } from "./mastery.ts";
import { isAnswer, isRight, outcomeOf } from "./outcome.ts";

/** The ask option value that means "move on" (the teacher offers it; the learner picks it). */
export const MOVE_ON_VALUE = "move-on";

/** Re-checks of a node that still leave it shaky before it is let go (to spaced review). */
export const MAX_RECHECKS = 2;

/** A node still to revisit: its id, title and how many re-checks it had. */
export interface OpenRevisit {
	nodeId: string;
	title: string;
	rechecks: number;
}

/** Minimal structural message slice (as in mastery.ts). */
interface PartsCarrier {
	parts: ReadonlyArray<{ type: string; state?: string; input?: unknown; output?: unknown }>;
}

/** True when an ask's result is the learner picking the MOVE_ON option. */
export function choseMoveOn(output: unknown): boolean {
	if (typeof output !== "object" || output === null) return false;
	const o = output as { answer?: unknown; skipped?: unknown };
	return o.answer === MOVE_ON_VALUE && o.skipped !== true;
}

/** The shaky nodes of `tree` not yet checked again or let go, in map order. */
export function openRevisits(tree: PlanTree, messages: readonly PartsCarrier[]): OpenRevisit[] {
	const known = new Set(tree.nodes.map((n) => n.id));
	const open = new Map<string, number>(); // node id -> re-checks so far
	for (const m of messages) {
		for (const part of m.parts) {
			if (part.state !== "output-available") continue;
			if (part.type === "tool-ask") {
				if (choseMoveOn(part.output)) open.clear();
				continue;
			}
			if (part.type !== "tool-quiz" || quizCallType(part.input) !== "check") continue;
			const nodeId = (part.input as { nodeId?: unknown } | undefined)?.nodeId;
			if (typeof nodeId !== "string" || !known.has(nodeId)) continue;
			const rechecks = open.get(nodeId);
			if (rechecks === undefined) {
				if (checkVerdict(part.output) === "shaky") open.set(nodeId, 0);
				continue;
			}
			const outcome = outcomeOf(part.output);
			if (outcome.tally === "split") continue; // a group's split vote: the revote decides
			if (isRight(outcome) || outcome.kind === "skipped") open.delete(nodeId);
			else if (isAnswer(outcome)) {
				if (rechecks + 1 >= MAX_RECHECKS) open.delete(nodeId);
				else open.set(nodeId, rechecks + 1);
			}
		}
	}
	return tree.nodes
		.filter((n) => open.has(n.id))
		.map((n) => ({ nodeId: n.id, title: n.title, rechecks: open.get(n.id) ?? 0 }));
}
