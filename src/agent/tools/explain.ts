/**
 * explain: the teacher shows the learner a short explanation (a card). The
 * server acknowledges it; a `recap` explanation marks the end of the lesson
 * once the turn ends without a further question. A recap is refused, in this
 * order, until every node that turned shaky in this lesson was checked again
 * or let go (core/revisits.ts: the refusal names them), and until the learner
 * has recalled what they learned: an answered `ask` after the last quiz
 * (retrieval before review).
 */

import { tool } from "ai";
import { choseMoveOn, MAX_RECHECKS, MOVE_ON_VALUE, type OpenRevisit, openRevisits } from "../../core/revisits.ts";
import { parseExplainInput } from "../../core/tool-parts.ts";
import { latestPlanTree, type ToolPartView, toolNameOf, toolParts } from "../../core/transcript.ts";
import { type Citation, checkCitation } from "../../material/index.ts";
import type { LessonMessage } from "../store/types.ts";
import { coreToolSchema } from "./boundary.ts";
import type { LessonTool } from "./types.ts";

const DESCRIPTION =
	"Show the learner a short explanation: one idea, a chat screen long, concrete example first. Use it AFTER a predict quiz " +
	"or after the learner has tried, never as a lecture. `role`: intro | concept | example | recap. Tag `nodeId` with the plan node. " +
	"A `recap` is the lesson's closing summary: first check again every node that turned shaky (a fresh `check` quiz tagged with it), then `ask` the learner to name what they learned (recall), wait for the answer, " +
	"then recap building on their words; after it, ending your turn without a new question ends the lesson.";

/** The refusal of a recap sent before the learner recalled anything. */
export const RECALL_FIRST =
	"Recall comes before the recap: first `ask` the learner to name, in their own words, what they learned " +
	"(one free-text ask, nothing else in that step), wait for their answer, then send the recap building on it.";

/** The refusal of a recap while shaky nodes wait for their second look; names each node. */
export function revisitFirst(open: readonly OpenRevisit[]): string {
	const nodes = open
		.map(
			(n) =>
				`\`${n.nodeId}\` ("${n.title}"${n.rechecks > 0 ? `, missed again ${n.rechecks} of ${MAX_RECHECKS} times` : ""})`,
		)
		.join(", ");
	return (
		`Shaky ideas come back before the recap: ${nodes} ${open.length === 1 ? "was" : "were"} missed or needed help ` +
		"in this lesson and not checked again. Revisit each: a short guiding step or a smaller case, then a fresh `check` " +
		"quiz tagged with its `nodeId` (a new case, not the one missed). If the learner would rather move on, offer it: " +
		`an \`ask\` with an option whose value is \`${MOVE_ON_VALUE}\` (picking it lets these nodes go to spaced review). ` +
		"Then the recall ask, then the recap."
	);
}

const called = (part: ToolPartView): boolean => part.state !== "output-error" && part.state !== "input-streaming";

/** True when an answered `ask` follows the last quiz (the learner was asked to recall since the last node). */
export function recalledSinceLastQuiz(messages: readonly LessonMessage[]): boolean {
	let recalled = false;
	for (const part of toolParts(messages)) {
		if (!called(part)) continue;
		const name = toolNameOf(part.type);
		if (name === "quiz") recalled = false;
		// Choosing to move on (core/revisits.ts) is not recalling what was learned.
		else if (name === "ask") recalled = part.state === "output-available" && !choseMoveOn(part.output);
	}
	return recalled;
}

/** The `source` of an explain call the boundary accepted (its page may still be the text of a number), or undefined. */
export function citationOf(input: unknown): Citation | undefined {
	if (typeof input !== "object" || input === null) return undefined;
	const source = (input as { source?: unknown }).source;
	if (typeof source !== "object" || source === null) return undefined;
	const { page, quote } = source as { page?: unknown; quote?: unknown };
	const n = typeof page === "string" ? Number(page) : page;
	return typeof n === "number" && typeof quote === "string" ? { page: n, quote } : undefined;
}

/** The explain tool (teacher only). */
export function createExplainTool(): LessonTool {
	return {
		name: "explain",
		learner: false,
		tool: tool({ description: DESCRIPTION, inputSchema: coreToolSchema("explain") }),
		settle: (input, context) => {
			// A citation is checked in code: the page exists and holds the quoted words; a fake one is refused.
			const cited = citationOf(input);
			if (cited) {
				if (!context.material)
					return {
						kind: "error",
						errorText: "This lesson has no material to cite (or it could not be read): send it again without `source`.",
					};
				const verdict = checkCitation(context.material, cited);
				if (!verdict.ok) return { kind: "error", errorText: verdict.reason };
			}
			const shown = cited ? { ok: true, shown: true, cited: { page: cited.page } } : { ok: true, shown: true };
			if (parseExplainInput(input)?.role !== "recap") return { kind: "output", output: shown };
			const tree = latestPlanTree(context.messages);
			const open = tree ? openRevisits(tree, context.messages) : [];
			if (open.length > 0) return { kind: "error", errorText: revisitFirst(open) };
			if (!recalledSinceLastQuiz(context.messages)) return { kind: "error", errorText: RECALL_FIRST };
			return { kind: "output", output: shown };
		},
	};
}
