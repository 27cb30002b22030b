/**
 * Probe-phase contracts (the probe→teach split).
 *
 * The prober concludes its phase with `probe_done`, a server-side tool whose
 * INPUT is the learner assessment (authored by the model, shown to the learner,
 * durable in the transcript by the tool call itself). The first successful
 * `probe_done` in the transcript is the probe→teach seam: from there on the
 * teacher agent runs, and it starts at once after the prober's turn ends
 * (auto-wake: nobody has to type).
 *
 * Assessment shape: the probe was a binary search per dependency strand; the
 * assessment formalizes exactly that. A list of the strands the lesson will
 * depend on, each with a free-form read of where the learner's edge sits.
 */

import Type, { type Static } from "typebox";
import { INPUT_LIMITS as MAX } from "../input-limits.ts";

/** One dependency strand the planned lesson will rest on. */
export interface ProbeStrand {
	/** Name/description of the strand (e.g. "the derivative as a limit"). */
	strand: string;
	/** Free-form: where the learner's edge sits on this strand: floor,
	 *  ceiling, misconceptions found, what to build from. */
	assessment: string;
}

/** The prober's read of the learner, carried by probe_done. */
export interface ProbeAssessment {
	strands: ProbeStrand[];
	/** Optional overall synthesis: the learner's apparent goal and edge. */
	summary?: string;
}

/** probe_done tool input (the assessment the prober authors). */
export interface ProbeDoneInput {
	assessment: ProbeAssessment;
}

// The schema of that input: SINGLE SOURCE OF TRUTH, used by the tool
// (src/agent/tools/probe-done.ts) and by the display parse seam
// (src/core/tool-parts.ts): the boundary validation and the consumer parse
// run literally the same schema, so "schema-valid at the boundary" ⇔
// "parseable by a consumer" is structural, not a convention. (A model once
// sent `assessment` as a STRING; a card that cast it died on `.strands.map`.)
export const probeDoneInputSchema = Type.Object({
	assessment: Type.Object(
		{
			strands: Type.Array(
				Type.Object({
					strand: Type.String({
						minLength: 1,
						maxLength: MAX.strandMaxChars,
						description:
							"The dependency strand (e.g. 'the derivative as a limit'): a name the plan can hang a node on.",
					}),
					assessment: Type.String({
						minLength: 1,
						maxLength: MAX.assessmentMaxChars,
						description:
							"Where the learner's edge sits on this strand: the floor (what they reliably get right), the ceiling (where it runs out), " +
							"misconceptions found, and what the lesson should build from.",
					}),
				}),
				{
					minItems: 1,
					maxItems: MAX.maxStrands,
					description:
						"Every strand the planned lesson will depend on, each with your read of the learner's edge on it.",
				},
			),
			summary: Type.Optional(
				Type.String({
					maxLength: MAX.assessmentMaxChars,
					description: "Optional overall synthesis: the learner's apparent goal and where the teaching should enter.",
				}),
			),
		},
		{ description: "The learner assessment: the probe's distilled output." },
	),
});

/** Compile-time proof that the schema and the interface agree. */
export type ProbeDoneSchemaInput = Static<typeof probeDoneInputSchema>;
const _schemaMatchesInterface: (x: ProbeDoneSchemaInput) => ProbeDoneInput = (x) => x;
void _schemaMatchesInterface;

/** probe_done's tool result. A refusal (a question still open, the probe already concluded) is a tool error instead. */
export interface ProbeDoneResult {
	ok: true;
	assessment: ProbeAssessment;
	/** What the teacher is told at the seam. */
	next: string;
}
