/**
 * quiz: a question with a right answer, answered by the learner (no server
 * result). The learner's graded answer becomes the tool result. The teacher's
 * quiz tagged with a node the lesson map does not have is refused (the model
 * sees the map's node ids): a quiz moves the learner's place on the map, and
 * one off the map would teach beside it.
 */

import { tool } from "ai";
import { PENDING_DESCRIPTION } from "../../core/late-answer.ts";
import { latestPlanTree } from "../../core/transcript.ts";
import { coreToolSchema } from "./boundary.ts";
import type { LessonTool } from "./types.ts";

const JUDGING =
	"Typed answers are judged leniently (numbers in words, a number in a sentence, units, an option's letter or text); " +
	"for a free answer, list other equivalent forms in `acceptedAnswers`. " +
	'Words those checks cannot decide go to a grader: `judged: "grader"` with its `reason` (trust it, but you may overrule it from the words); ' +
	'`judged: "unsure"` and no `correct` was not decided: judge the learner\'s words yourself. ' +
	"`notSure: true` means the learner said they do not know: treat it as not known, never as a guess.";

const NOT_SURE =
	'A result with `notSure: true` ("Not sure") means the learner does not know this: count it as not known, never as a guess. ';

const STRUGGLE =
	"A wrong `check` answer gets a second try before the answer is shown: the result lists the earlier `attempts`, the `hints` given (`hinted`), " +
	"and `revealed: true` when the learner saw the answer; say why the tries went wrong. ";

const PENDING = PENDING_DESCRIPTION;

const PROBER_DESCRIPTION =
	"Pose one diagnostic question with a right answer, to locate the learner's edge on a strand. " +
	"Give 2-5 `options` (one is `correctAnswer`, copied exactly; the others plausible misconceptions) or omit them for a short free answer. " +
	"The learner answers; the tool result is their answer and whether it was correct. Wait for it before asking the next one. " +
	NOT_SURE +
	PENDING +
	JUDGING;

const TEACHER_DESCRIPTION =
	"Pose one question with a right answer. `type`: `predict` BEFORE you explain an idea (the learner guesses first), `check` AFTER it. " +
	"Tag it with `nodeId`, the plan node it is about (that moves the learner's place on the map). " +
	"Give 2-5 `options` (one is `correctAnswer`, copied exactly; distractors are real misconceptions) or omit them for a short free answer; " +
	"put the reasoning in `explanation`. The learner answers; the tool result says what they chose and whether it was correct. " +
	STRUGGLE +
	NOT_SURE +
	PENDING +
	JUDGING;

/** Node ids named in a refusal at the most (a map is small; the list stays short). */
const MAX_NAMED = 30;

/** The refusal of a quiz tagged with `nodeId` when the map has none such, naming the map's nodes. */
export function offMap(nodeId: string, nodes: readonly { id: string }[]): string {
	const ids = nodes.slice(0, MAX_NAMED).map((n) => `\`${n.id}\``);
	return (
		`\`nodeId\` "${nodeId.slice(0, 80)}" is not on the lesson map. Tag the quiz with one of its nodes (${ids.join(", ")}), ` +
		"or change the map with plan_init first when the lesson needs a new node."
	);
}

/** The quiz tool: the prober's plain diagnostic variant or the teacher's predict/check variant with nodeId. */
export function createQuizTool(variant: "prober" | "teacher"): LessonTool {
	return {
		name: "quiz",
		learner: true,
		tool: tool({
			description: variant === "prober" ? PROBER_DESCRIPTION : TEACHER_DESCRIPTION,
			inputSchema: coreToolSchema(variant === "prober" ? "proberQuiz" : "teacherQuiz"),
		}),
		settle: (input, context) => {
			const nodeId = variant === "teacher" ? (input as { nodeId?: unknown } | null)?.nodeId : undefined;
			if (typeof nodeId !== "string") return { kind: "await-learner" };
			const tree = latestPlanTree(context.messages);
			if (!tree || tree.nodes.some((n) => n.id === nodeId)) return { kind: "await-learner" };
			return { kind: "error", errorText: offMap(nodeId, tree.nodes) };
		},
	};
}
