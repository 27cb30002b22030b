/**
 * Model-facing tool schemas (TypeBox) for quiz, ask and explain, and their
 * refinements: the rules a schema cannot say (the answer is among the
 * options, options are unique, a platform can show it).
 *
 * Two kinds of schema live here:
 * - the per-agent BOUNDARY schemas the model faces (prober vs teacher), and
 * - the DISPLAY schemas the parse seam (tool-parts.ts) runs, a lenient common
 *   core of both boundaries so anything either boundary accepted parses.
 * Field names are fixed: every layer (agent, render, adapters) agrees on them.
 */

import Type, { type Static } from "typebox";
import { INPUT_LIMITS as MAX } from "./input-limits.ts";

/** Limits every platform can show (Discord 2000-char messages, 25 select options). */
export const QUESTION_LIMITS = {
	questionMaxChars: 1500,
	optionMaxChars: 300,
	minOptions: 2,
	maxOptions: 25,
	answerMaxChars: 500,
	explanationMaxChars: 1500,
	explainBodyMaxChars: 6000,
	titleMaxChars: 200,
} as const;

/** Quiz types of the teach phase: a prediction before an idea, a check after it. */
export const quizTypeSchema = Type.Union([Type.Literal("predict"), Type.Literal("check")], {
	description: "predict: asked BEFORE you explain the idea; check: asked AFTER, to verify understanding.",
});
export type QuizType = Static<typeof quizTypeSchema>;

const quizBaseProperties = {
	question: Type.String({
		maxLength: MAX.questionMaxChars,
		description: "The question, in markdown. One question, short enough for a chat screen.",
	}),
	options: Type.Optional(
		Type.Array(Type.String({ maxLength: MAX.optionMaxChars }), {
			maxItems: MAX.maxOptions,
			description:
				"2 to 25 answer choices, each distinct. Omit for a free answer the learner types. Do not prefix with letters; the UI adds A, B, C.",
		}),
	),
	correctAnswer: Type.String({
		maxLength: MAX.answerMaxChars,
		description: "The correct answer: exactly one of `options` when options are given, else the expected free answer.",
	}),
	acceptedAnswers: Type.Optional(
		Type.Array(Type.String({ maxLength: MAX.acceptedAnswerMaxChars }), {
			maxItems: MAX.maxAcceptedAnswers,
			description:
				"Free answers only: other short forms that mean the same as `correctAnswer` (e.g. `all of them`, `every item`). " +
				"Numbers in words or digits, units and answers inside a sentence are already recognized; list what they do not cover.",
		}),
	),
	explanation: Type.Optional(
		Type.String({
			maxLength: MAX.explanationMaxChars,
			description: "Why the correct answer is right (and the tempting wrong one wrong); shown after answering.",
		}),
	),
};

/** Prober boundary: a diagnostic quiz (no plan node). `type` stays the strict optional union so
 *  whatever the prober's boundary accepts, the display parse accepts too. */
export const proberQuizInputSchema = Type.Object({ ...quizBaseProperties, type: Type.Optional(quizTypeSchema) });

/** Teacher boundary: base + the quiz type + the plan node it is about. */
export const teacherQuizInputSchema = Type.Object({
	...quizBaseProperties,
	type: Type.Optional(quizTypeSchema),
	nodeId: Type.Optional(
		Type.String({
			maxLength: MAX.nodeIdMaxChars,
			description: "The id of the plan node this question is ABOUT (from plan_init). Tag every quiz.",
		}),
	),
});

/** Display schema: the lenient common core of both boundaries (nodeId is stripped by Clean). */
export const quizDisplayInputSchema = Type.Object({
	...quizBaseProperties,
	type: Type.Optional(quizTypeSchema),
});
/** A quiz as displayed (nodeId is read from the raw call, not from this shape). */
export type QuizToolInput = Static<typeof quizDisplayInputSchema>;
/** A teacher quiz as the boundary accepted it. */
export type TeacherQuizInput = Static<typeof teacherQuizInputSchema>;

/** ask: a free-text question, or one with labelled options. */
export const askInputSchema = Type.Object({
	question: Type.String({ maxLength: MAX.questionMaxChars, description: "The question, in markdown." }),
	options: Type.Optional(
		Type.Array(
			Type.Object({
				value: Type.String({
					maxLength: MAX.optionValueMaxChars,
					description: "A short stable value, unique among the options.",
				}),
				label: Type.String({ maxLength: MAX.optionMaxChars, description: "What the learner sees." }),
			}),
			{ maxItems: MAX.maxOptions, description: "2 to 25 choices. Omit for a free-text answer." },
		),
	),
});
export type AskToolInput = Static<typeof askInputSchema>;
export type AskOption = NonNullable<AskToolInput["options"]>[number];

/** Roles of an explanation, so the UI can frame it. */
export const explainRoleSchema = Type.Union(
	[Type.Literal("intro"), Type.Literal("concept"), Type.Literal("example"), Type.Literal("recap")],
	{ description: "intro | concept | example | recap (the final summary of the lesson)." },
);

const explainBaseProperties = {
	title: Type.Optional(Type.String({ maxLength: MAX.titleMaxChars, description: "A short heading." })),
	body: Type.String({
		maxLength: MAX.explainBodyMaxChars,
		description: "Markdown. One idea, a chat screen long; end by handing the turn to the learner.",
	}),
	role: Type.Optional(explainRoleSchema),
};

/** Teacher boundary for explain: base + the plan node it is about. */
export const teacherExplainInputSchema = Type.Object({
	...explainBaseProperties,
	nodeId: Type.Optional(
		Type.String({ maxLength: MAX.nodeIdMaxChars, description: "The plan node this explanation is about." }),
	),
	source: Type.Optional(
		Type.Object(
			{
				page: Type.Integer({ minimum: 1, maximum: 100_000, description: "The material's page number." }),
				quote: Type.String({
					minLength: 1,
					maxLength: 300,
					description: "Words copied exactly from that page (at least 3), as search_material returned them.",
				}),
			},
			{
				description:
					"Only in a lesson with material: the page this explanation draws on. Checked: the page must hold the quoted words. Omit it when the material does not cover the point.",
			},
		),
	),
});
/** Display schema for explain (nodeId stripped by Clean). */
export const explainDisplayInputSchema = Type.Object(explainBaseProperties);
export type ExplainToolInput = Static<typeof explainDisplayInputSchema>;

const isBlank = (s: string | undefined): boolean => s === undefined || s.trim() === "";
const norm = (s: string): string => s.trim().toLowerCase();

/** Quiz rules a schema cannot say. Returns human-readable problems; empty = fine. */
export function quizInputProblems(input: QuizToolInput): string[] {
	const problems: string[] = [];
	const L = QUESTION_LIMITS;
	if (isBlank(input.question)) problems.push("`question` is blank: write the question the learner should answer.");
	else if (input.question.length > L.questionMaxChars)
		problems.push(`\`question\` is ${input.question.length} characters; keep it under ${L.questionMaxChars}.`);
	if (input.explanation !== undefined && input.explanation.length > L.explanationMaxChars)
		problems.push(`\`explanation\` is too long; keep it under ${L.explanationMaxChars} characters.`);
	const options = input.options;
	if (options === undefined) {
		if (isBlank(input.correctAnswer))
			problems.push("`correctAnswer` is blank: give the expected free answer, or give `options`.");
		else if (input.correctAnswer.length > L.answerMaxChars)
			problems.push(`\`correctAnswer\` is too long for a free answer; keep it under ${L.answerMaxChars} characters.`);
		return problems;
	}
	if (options.length < L.minOptions || options.length > L.maxOptions)
		problems.push(
			`\`options\` has ${options.length} entries; give ${L.minOptions} to ${L.maxOptions}, or omit it for a free answer.`,
		);
	const seen = new Set<string>();
	options.forEach((option, i) => {
		if (isBlank(option)) problems.push(`option ${i + 1} is blank.`);
		else if (option.length > L.optionMaxChars)
			problems.push(`option ${i + 1} is ${option.length} characters; keep options under ${L.optionMaxChars}.`);
		const key = norm(option);
		if (key !== "" && seen.has(key))
			problems.push(`option ${i + 1} (${JSON.stringify(option)}) repeats an earlier option.`);
		seen.add(key);
	});
	if (!options.includes(input.correctAnswer))
		problems.push(
			`\`correctAnswer\` ${JSON.stringify(input.correctAnswer)} is not one of the options; copy the correct option exactly.`,
		);
	return problems;
}

/** Ask option rules (duplicate values break answer keying). Empty options = free text, fine. */
export function askOptionProblems(options: readonly AskOption[]): string[] {
	if (options.length === 0) return [];
	const problems: string[] = [];
	const L = QUESTION_LIMITS;
	if (options.length < L.minOptions || options.length > L.maxOptions)
		problems.push(`\`options\` has ${options.length} entries; give ${L.minOptions} to ${L.maxOptions}, or omit it.`);
	const seen = new Set<string>();
	options.forEach((o, i) => {
		if (isBlank(o.value)) problems.push(`option ${i + 1} has a blank \`value\`.`);
		if (isBlank(o.label)) problems.push(`option ${i + 1} has a blank \`label\`.`);
		else if (o.label.length > L.optionMaxChars)
			problems.push(`option ${i + 1}'s label is too long; keep labels under ${L.optionMaxChars} characters.`);
		if (seen.has(o.value))
			problems.push(`option value ${JSON.stringify(o.value)} appears twice; values must be unique.`);
		seen.add(o.value);
	});
	return problems;
}

/** Ask rules: a question, and sane options. */
export function askInputProblems(input: AskToolInput): string[] {
	const problems: string[] = [];
	if (isBlank(input.question)) problems.push("`question` is blank: write the question the learner should answer.");
	else if (input.question.length > QUESTION_LIMITS.questionMaxChars)
		problems.push(`\`question\` is too long; keep it under ${QUESTION_LIMITS.questionMaxChars} characters.`);
	return [...problems, ...askOptionProblems(input.options ?? [])];
}

/** Explain rules: a body that fits a few chat messages. */
export function explainInputProblems(input: ExplainToolInput): string[] {
	const problems: string[] = [];
	if (isBlank(input.body)) problems.push("`body` is blank: write the explanation.");
	else if (input.body.length > QUESTION_LIMITS.explainBodyMaxChars)
		problems.push(
			`\`body\` is ${input.body.length} characters; keep one idea under ${QUESTION_LIMITS.explainBodyMaxChars} (split it).`,
		);
	if (input.title !== undefined && input.title.length > QUESTION_LIMITS.titleMaxChars)
		problems.push(`\`title\` is too long; keep it under ${QUESTION_LIMITS.titleMaxChars} characters.`);
	return problems;
}
