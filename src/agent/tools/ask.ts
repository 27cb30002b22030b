/**
 * ask: a question without a right answer (a goal, a confidence, a teach-back),
 * answered by the learner in free text or by picking an option.
 */

import { tool } from "ai";
import { PENDING_DESCRIPTION } from "../../core/late-answer.ts";
import { coreToolSchema } from "./boundary.ts";
import type { LessonTool } from "./types.ts";

const DESCRIPTION =
	"Ask the learner something that has no single right answer: what they want from the lesson, how confident they feel, " +
	"to explain an idea back in their own words, or which way to go next. Omit `options` for a free-text answer, or give 2-5 " +
	"`{ value, label }` choices. The tool result is their answer. Before the recap, use it for recall: ask them to name what they learned. " +
	"In a group lesson, use it to have members explain their choice after a split vote. " +
	PENDING_DESCRIPTION;

/** The ask tool (same for the prober and the teacher). */
export function createAskTool(): LessonTool {
	return {
		name: "ask",
		learner: true,
		tool: tool({ description: DESCRIPTION, inputSchema: coreToolSchema("ask") }),
		settle: () => ({ kind: "await-learner" }),
	};
}
