/**
 * plan_init: the teacher authors the lesson map as a mermaid `graph TD` block;
 * the server canonicalizes it into a PlanTree (structure only) or answers with
 * an error naming the problem. Re-callable: each success is a new version.
 */

import { tool } from "ai";
import type { PlanToolResult } from "../../core/contracts/plan.ts";
import { parsePlanMermaid, planInitInputSchema } from "../../core/plan-mermaid.ts";
import { validateWithSchema } from "../../core/tool-parts.ts";
import { latestPlanTree } from "../../core/transcript.ts";
import { localToolSchema } from "./boundary.ts";
import type { LessonTool } from "./types.ts";

const DESCRIPTION =
	"Author (or rewrite) the lesson map from the assessment: the ideas the learner still needs, as a mermaid `graph TD` " +
	"dependency graph, starting at the learner's edge. Call it once before teaching; call it again to rewrite the map when the " +
	"lesson needs a different route. The result is the canonical tree (use its node ids in quiz `nodeId`) or an error to fix.";

/** The plan_init tool (teacher only). */
export function createPlanInitTool(): LessonTool {
	return {
		name: "plan_init",
		learner: false,
		tool: tool({ description: DESCRIPTION, inputSchema: localToolSchema(planInitInputSchema) }),
		settle(input, context) {
			const verdict = validateWithSchema<{ mermaid: string }>(planInitInputSchema, input);
			if (!verdict.ok) return { kind: "error", errorText: verdict.error };
			const parsed = parsePlanMermaid(verdict.value.mermaid);
			if (!parsed.ok) return { kind: "error", errorText: `The plan was not accepted: ${parsed.error}` };
			const previous = latestPlanTree(context.messages);
			const result: PlanToolResult = { ok: true, tree: { ...parsed.tree, version: (previous?.version ?? 0) + 1 } };
			return { kind: "output", output: result };
		},
	};
}
