/**
 * explain: the teacher shows the learner a short explanation (a card). The
 * server acknowledges it; a `recap` explanation marks the end of the lesson
 * once the turn ends without a further question.
 */

import { tool } from "ai";
import { coreToolSchema } from "./boundary.ts";
import type { LessonTool } from "./types.ts";

const DESCRIPTION =
	"Show the learner a short explanation: one idea, a chat screen long, concrete example first. Use it AFTER a predict quiz " +
	"or after the learner has tried, never as a lecture. `role`: intro | concept | example | recap. Tag `nodeId` with the plan node. " +
	"A `recap` is the lesson's closing summary: after it, ending your turn without a new question ends the lesson.";

/** The explain tool (teacher only). */
export function createExplainTool(): LessonTool {
	return {
		name: "explain",
		learner: false,
		tool: tool({ description: DESCRIPTION, inputSchema: coreToolSchema("explain") }),
		settle: () => ({ kind: "output", output: { ok: true, shown: true } }),
	};
}
