/**
 * The rubric grader: scores tutor turns on four MRBench-style dimensions (mistake identification,
 * revealing the answer, guidance, actionability) and its agreement with the hand-labelled turns
 * shipped in labelled-turns.json. A model grades when one is given (`--grader`, or the `--model`
 * under test); otherwise a scripted grader of fixed word rules does, and the output says so.
 */

import { readFileSync } from "node:fs";
import { generateText, type LanguageModel } from "ai";
import { z } from "zod";
import { type AnswerKey, leaksAnswer } from "../../src/core/answer-leaks.ts";
import type { TutorTurn } from "./measures.ts";

/** The rubric's dimensions. */
export const DIMENSIONS = ["mistake_identification", "reveals_answer", "guidance", "actionable"] as const;
export type Dimension = (typeof DIMENSIONS)[number];
/** A turn's scores: "na" only for mistake identification when the learner made no mistake. */
export type Scores = Record<Dimension, "yes" | "no" | "na">;

/** A grader: scores one turn, or undefined when it could not (a model that failed or answered nonsense). */
export interface RubricGrader {
	name: string;
	scripted: boolean;
	grade(turn: TutorTurn): Promise<Scores | undefined>;
}

const MISTAKE =
	/\b(not quite|not (right|correct)|wrong|incorrect|close|look again|careful|isn't|is not|that works, but|fewer than|far fewer|too (small|large|big)|mistake|think about|no,)/i;
const GUIDANCE =
	/\b(think|try|look|consider|notice|picture|imagine|compare|count|because|since|so |which means|ruled out|hint)\b/i;
const ACTION = /\b(try|answer|pick|type|tell me|your turn|now you|guess|make a guess|vote)\b/i;

/** The scripted grader: fixed word rules and the engine's own answer-leak check. */
export const SCRIPTED_GRADER: RubricGrader = {
	name: "scripted rules (no grader model given)",
	scripted: true,
	async grade(turn) {
		return {
			mistake_identification: turn.afterWrong ? (MISTAKE.test(turn.text) ? "yes" : "no") : "na",
			reveals_answer: turn.key && leaksAnswer(turn.text, turn.key) ? "yes" : "no",
			guidance: !(turn.key && leaksAnswer(turn.text, turn.key)) && GUIDANCE.test(turn.text) ? "yes" : "no",
			actionable: turn.question || ACTION.test(turn.text) ? "yes" : "no",
		};
	},
};

const RUBRIC = [
	"You grade ONE tutor turn of a lesson on four dimensions. Answer with a JSON object only, no prose:",
	'{"mistake_identification":"yes|no|na","reveals_answer":"yes|no","guidance":"yes|no","actionable":"yes|no"}',
	"- mistake_identification: the learner's last answer was wrong (given below) and the turn says so and where it went wrong; na when the last answer was not wrong.",
	"- reveals_answer: the turn gives away the correct answer of the question it poses (its text, value, option letter or an equivalent) before the learner tried it.",
	"- guidance: the turn helps the learner think (a hint, a smaller step, a reason, a guiding question), rather than only stating facts or only judging.",
	"- actionable: after this turn the learner knows what to do next (a question to answer, a step to try).",
].join("\n");

const ScoresSchema = z.object({
	mistake_identification: z.enum(["yes", "no", "na"]),
	reveals_answer: z.enum(["yes", "no"]),
	guidance: z.enum(["yes", "no"]),
	actionable: z.enum(["yes", "no"]),
});

/** A grader that asks `model` (bounded: one retry, 60 s, 300 output tokens a turn). */
export function modelGrader(model: LanguageModel, name: string): RubricGrader {
	return {
		name,
		scripted: false,
		async grade(turn) {
			const prompt = JSON.stringify({
				learner_last_answer_was_wrong: turn.afterWrong,
				question_posed: turn.key ? { correctAnswer: turn.key.correctAnswer, options: turn.key.options } : null,
				tutor_turn: turn.text.slice(0, 4000),
			});
			try {
				const { text } = await generateText({
					model,
					system: RUBRIC,
					prompt,
					maxOutputTokens: 300,
					maxRetries: 1,
					abortSignal: AbortSignal.timeout(60_000),
				});
				const json = /\{[\s\S]*\}/.exec(text)?.[0];
				const parsed = json ? ScoresSchema.safeParse(JSON.parse(json)) : undefined;
				if (!parsed?.success) return undefined;
				const s = parsed.data;
				return { ...s, mistake_identification: turn.afterWrong ? s.mistake_identification : "na" };
			} catch {
				return undefined;
			}
		},
	};
}

/** A hand-labelled turn (labelled-turns.json). */
export interface LabelledTurn {
	id: string;
	note: string;
	afterWrong: boolean;
	question: boolean;
	key?: AnswerKey;
	text: string;
	labels: Scores;
}

const LabelledSchema = z.array(
	z.object({
		id: z.string(),
		note: z.string(),
		afterWrong: z.boolean(),
		question: z.boolean(),
		key: z
			.object({
				correctAnswer: z.string(),
				options: z.array(z.string()).optional(),
				acceptedAnswers: z.array(z.string()).optional(),
			})
			.optional(),
		text: z.string().min(1),
		labels: ScoresSchema,
	}),
);

/** The shipped hand-labelled turns (parsed: a bad file is a clear error). */
export function labelledTurns(): LabelledTurn[] {
	const raw = JSON.parse(readFileSync(new URL("./labelled-turns.json", import.meta.url), "utf8")) as unknown;
	const parsed = LabelledSchema.safeParse(raw);
	if (!parsed.success) throw new Error(`bench/eval/labelled-turns.json does not parse: ${parsed.error.message}`);
	return parsed.data as LabelledTurn[];
}

/** Agreement per dimension (share of turns where grader and label agree) and overall; unscored turns count as misses. */
export async function agreement(grader: RubricGrader, turns: readonly LabelledTurn[]) {
	const agreed = Object.fromEntries(DIMENSIONS.map((d) => [d, 0])) as Record<Dimension, number>;
	let unscored = 0;
	for (const t of turns) {
		const scores = await grader.grade({ ...t, agent: "tutor" });
		if (!scores) {
			unscored++;
			continue;
		}
		for (const d of DIMENSIONS) if (scores[d] === t.labels[d]) agreed[d]++;
	}
	const per = Object.fromEntries(
		DIMENSIONS.map((d) => [d, Math.round((agreed[d] / Math.max(1, turns.length)) * 1000) / 1000]),
	) as Record<Dimension, number>;
	const all = DIMENSIONS.reduce((s, d) => s + per[d], 0) / DIMENSIONS.length;
	return { turns: turns.length, unscored, per, overall: Math.round(all * 1000) / 1000 };
}

/** Rubric shares over a run's turns: mistakes identified (of turns after a wrong answer), reveals, guidance, actionable. */
export async function rubricOf(grader: RubricGrader, turns: readonly TutorTurn[]) {
	let scored = 0;
	let afterWrong = 0;
	const yes = Object.fromEntries(DIMENSIONS.map((d) => [d, 0])) as Record<Dimension, number>;
	for (const t of turns) {
		const s = await grader.grade(t);
		if (!s) continue;
		scored++;
		if (s.mistake_identification !== "na") afterWrong++;
		for (const d of DIMENSIONS) if (s[d] === "yes") yes[d]++;
	}
	const share = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 1000) / 1000);
	return {
		scored,
		mistake_identification: share(yes.mistake_identification, afterWrong),
		reveals_answer: share(yes.reveals_answer, scored),
		guidance: share(yes.guidance, scored),
		actionable: share(yes.actionable, scored),
	};
}
