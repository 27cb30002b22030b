/**
 * The shape of a lesson tool: what the model is shown (an AI SDK Tool with no
 * `execute`: the engine runs every call itself, so it sees a whole step's
 * calls at once and can refuse probe_done next to an open quiz), and how the
 * engine settles a call.
 */

import type { Tool } from "ai";
import type { OpenIndex } from "../../material/index.ts";
import type { LessonMessage } from "../store/types.ts";

/** What the engine knows when it settles a call. */
export interface ToolContext {
	/** The transcript, including the parts of this step settled so far. */
	messages: readonly LessonMessage[];
	/** Learner calls (quiz/ask) of this step that passed the boundary, this one included. */
	learnerCallsInStep: number;
	/** The lesson's material, loaded for the turn (absent: the lesson has none, or it could not be read). */
	material?: OpenIndex;
}

/** How a call settles: it waits for the learner, or it has a result, or it is refused (the model sees the error). */
export type ToolOutcome =
	| { kind: "await-learner" }
	| { kind: "output"; output: unknown }
	| { kind: "error"; errorText: string };

/** One model-facing tool of a lesson agent. */
export interface LessonTool {
	name: string;
	/** Answered by the learner (no server result): quiz and ask. */
	learner: boolean;
	/** The AI SDK definition (description + jsonSchema with validate), without execute. */
	tool: Tool;
	/**
	 * Settle a call the boundary accepted. `input` is the stored (healed raw) input. Must not throw. A learner
	 * tool answers "await-learner", or refuses the call ("error": the learner never sees it).
	 */
	settle(input: unknown, context: ToolContext): ToolOutcome;
}
