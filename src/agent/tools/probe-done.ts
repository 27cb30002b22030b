/**
 * probe_done: the prober concludes the probe with its assessment of the
 * learner. Refused while a quiz or ask is unanswered (this step's included)
 * and after the probe has concluded; the refusal is a tool error the model sees.
 */

import { tool } from "ai";
import type { ProbeDoneResult } from "../../core/contracts/probe.ts";
import { parseProbeDoneInput } from "../../core/tool-parts.ts";
import { pendingLearnerCalls, probeConcluded } from "../../core/transcript.ts";
import { coreToolSchema } from "./boundary.ts";
import type { LessonTool } from "./types.ts";

const DESCRIPTION =
	"Conclude the probe with your assessment: every dependency strand the lesson will rest on, each with where the learner's " +
	"edge sits (floor, ceiling, misconceptions seen). Call it alone, after the learner has answered your last question. " +
	"The teacher takes over at once from this assessment.";

/** What the teacher reads in the probe_done result (its context at the seam). */
const TEACH_HANDOVER =
	"The probe is complete. The teacher now takes over this conversation: author the lesson map with plan_init from this " +
	"assessment, then teach from the learner's edge.";

/** The probe_done tool (prober only). */
export function createProbeDoneTool(): LessonTool {
	return {
		name: "probe_done",
		learner: false,
		tool: tool({ description: DESCRIPTION, inputSchema: coreToolSchema("probeDone") }),
		settle(input, context) {
			if (probeConcluded(context.messages))
				return { kind: "error", errorText: "The probe has already concluded; probe_done cannot be called again." };
			const open = pendingLearnerCalls(context.messages).length + context.learnerCallsInStep;
			if (open > 0)
				return {
					kind: "error",
					errorText:
						"A question to the learner is still unanswered. Wait for the answer (end your turn), then call probe_done on its own.",
				};
			const parsed = parseProbeDoneInput(input);
			if (!parsed)
				return {
					kind: "error",
					errorText: "The assessment could not be read: send { assessment: { strands: [...] } }.",
				};
			const result: ProbeDoneResult = { ok: true, assessment: parsed.assessment, next: TEACH_HANDOVER };
			return { kind: "output", output: result };
		},
	};
}
