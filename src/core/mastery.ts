/**
 * Mastery per plan node, DERIVED from the transcript on every read (never
 * stored), like the plan statuses. Where plan statuses read quiz CALLS only,
 * mastery reads the learner's RESULTS of the check quizzes tagged with a node:
 *
 *   learned:  the node's most recent answered check was correct on the first
 *             try with no help (no attempts, hints, "not sure" or reveal);
 *   shaky:    that check was missed, skipped, answered "not sure", or needed help
 *             (a second try, a hint, the answer shown);
 *   not-yet:  no answered check on the node.
 *
 * A check the grader judged "unsure" (no `correct`) is not an answer yet: it
 * leaves the node where it was (not-yet when nothing came before). Predict
 * quizzes never move mastery (a wrong prediction is the point of one).
 * Untagged quizzes and node ids missing from the tree move nothing. One pass
 * over the transcript; results are read by outcomeOf (outcome.ts).
 */

import { Type } from "typebox";
import { Value } from "typebox/value";
import { healEncodedArguments } from "./argument-heal.ts";
import type { PlanTree } from "./contracts/plan.ts";
import { isAnswer, outcomeOf } from "./outcome.ts";
import { type QuizType, quizTypeSchema } from "./question-core.ts";

/** How well a node is known, derived from its check quizzes. */
export type NodeMastery = "learned" | "shaky" | "not-yet";

/** Mastery of every node of a tree, keyed by node id. */
export type PlanMastery = Readonly<Record<string, NodeMastery>>;

/** Minimal structural message slice: anything with typed parts (as in plan.ts). */
interface PartsCarrier {
	parts: ReadonlyArray<{ type: string; state?: string; input?: unknown; output?: unknown }>;
}

/** The quiz's `type` field alone, as the boundary schema reads it. */
const quizTypeOnly = Type.Object({ type: quizTypeSchema });

/**
 * A quiz call's type, parsed with the boundary's own schema and healing (a
 * JSON-encoded `"\"check\""` reads as check), field by field: a whole-input
 * parse costs ~0.1 ms a quiz, too much to repeat for every quiz on every read.
 */
export function quizCallType(input: unknown): QuizType | undefined {
	if (typeof input !== "object" || input === null) return undefined;
	const raw = (input as { type?: unknown }).type;
	if (raw === undefined) return undefined;
	const healed = healEncodedArguments({ type: raw }, quizTypeOnly);
	return Value.Check(quizTypeOnly, healed) ? healed.type : undefined;
}

/** The verdict of one answered check result (read by outcomeOf), or undefined when it does not count (yet). */
export function checkVerdict(output: unknown): Exclude<NodeMastery, "not-yet"> | undefined {
	const outcome = outcomeOf(output);
	// Skipped and "not sure" are shaky; explain-again, pending and ungraded results are no answer yet.
	if (outcome.kind === "skipped") return "shaky";
	if (!isAnswer(outcome)) return undefined;
	return outcome.kind === "first-try" ? "learned" : "shaky";
}

/** Mastery of each node of `tree`, from the tagged check quizzes of the transcript and their results. */
export function derivePlanMastery(tree: PlanTree, messages: readonly PartsCarrier[]): PlanMastery {
	const mastery: Record<string, NodeMastery> = Object.create(null);
	for (const n of tree.nodes) mastery[n.id] = "not-yet";
	for (const m of messages) {
		for (const part of m.parts) {
			if (part.type !== "tool-quiz" || part.state !== "output-available") continue;
			const nodeId = (part.input as { nodeId?: unknown } | undefined)?.nodeId;
			if (typeof nodeId !== "string" || !(nodeId in mastery)) continue; // untagged/unknown — moves nothing
			const verdict = checkVerdict(part.output);
			if (verdict === undefined) continue;
			if (quizCallType(part.input) !== "check") continue; // predict (or untyped) quizzes never move mastery
			mastery[nodeId] = verdict;
		}
	}
	return { ...mastery };
}

/** One node's mastery (not-yet when the map has none for it). */
export function nodeMastery(mastery: PlanMastery | undefined, nodeId: string): NodeMastery {
	const value = mastery === undefined || !Object.hasOwn(mastery, nodeId) ? undefined : mastery[nodeId];
	return value ?? "not-yet";
}
