/**
 * Judging a review answer the way a lesson judges a typed quiz answer: the
 * same judge first (core/answer-resolve.ts resolveQuizAnswer: a letter or option
 * text, numbers, units, the lesson's language, math), then, for what it
 * leaves undecided, the same grader (agent/grader.ts: one structured-output
 * request, bounded by a deadline, its verdict bounded by code). "I don't know"
 * is not known: a miss like any other, never sent to the grader as a
 * paraphrase. A miss carries a one-line why: the grader's reason, else the
 * question's stored explanation.
 */

import type { LanguageModel } from "ai";
import { resolveQuizAnswer } from "../../core/answer-resolve.ts";
import type { QuizToolInput } from "../../core/question-core.ts";
import { DEFAULT_LOCALE, type Locale } from "../../i18n/index.ts";
import { boundVerdict, type GradeVerdict, gradeAnswer, gradeRequest, oneLine } from "../grader.ts";

/** A review question as the judge needs it. */
export interface ReviewQuestion {
	question: string;
	correctAnswer: string;
	options?: string[];
	acceptedAnswers?: string[];
	/** Why the answer is right (the lesson's quiz explanation), for the line that explains a miss. */
	explanation?: string;
}

/**
 * The grader as the review asks it: the question, the typed answer and the lesson's language; its verdict and
 * one-line reason, or undefined when it gave none (a failure, the deadline). Must not throw.
 */
export type AnswerGrader = (
	question: QuizToolInput,
	answer: string,
	locale: Locale,
) => Promise<{ verdict: GradeVerdict; reason: string } | undefined>;

/** How a review answer went, and who said so. */
export type ReviewJudgement =
	/** Not an answer (empty, too long): nothing is graded; the message says why. */
	| { kind: "refused"; message: string }
	| { kind: "right"; by: "judge" | "grader" }
	| { kind: "wrong"; by: "judge" | "grader"; why?: string }
	/** "I don't know": a miss, not a guess. */
	| { kind: "dont-know"; why?: string }
	/** Neither the judge nor the grader could read it as the answer: a miss. */
	| { kind: "unread"; why?: string };

/** The review question as the quiz the engine's judge and grader read (a check, so a miss is a miss). */
export function quizOf(item: ReviewQuestion): QuizToolInput {
	return {
		question: item.question,
		correctAnswer: item.correctAnswer,
		type: "check",
		...(item.options && item.options.length > 0 ? { options: [...item.options] } : {}),
		...(item.acceptedAnswers && item.acceptedAnswers.length > 0 ? { acceptedAnswers: [...item.acceptedAnswers] } : {}),
		...(item.explanation ? { explanation: item.explanation } : {}),
	};
}

/** The stored explanation on one line, if there is one. */
const explained = (item: ReviewQuestion): string | undefined => {
	const line = item.explanation ? oneLine(item.explanation) : "";
	return line === "" ? undefined : line;
};

/** Judge a typed review answer: the judge, then the grader for what it leaves open. Never throws. */
export async function judgeReviewAnswer(
	item: ReviewQuestion,
	text: string,
	locale: Locale = DEFAULT_LOCALE,
	grade?: AnswerGrader,
): Promise<ReviewJudgement> {
	const quiz = quizOf(item);
	const resolved = resolveQuizAnswer(quiz, text, true, locale);
	if (!resolved.ok) return { kind: "refused", message: resolved.message };
	const result = resolved.result;
	const why = explained(item);
	const withWhy = <T extends object>(j: T): T & { why?: string } => (why ? { ...j, why } : j);
	if (result.notSure === true) return withWhy({ kind: "dont-know" as const });
	if (result.correct === true) return { kind: "right", by: "judge" };
	if (result.correct === false) return withWhy({ kind: "wrong" as const, by: "judge" as const });
	const graded = grade ? await grade(quiz, result.answer, locale).catch(() => undefined) : undefined;
	if (!graded) return withWhy({ kind: "unread" as const });
	// Code bounds the verdict (an answer that instructs the judge is never correct). Its reason is kept whole:
	// a review shows the answer with every miss, so a reason that names it gives nothing away.
	const { verdict } = boundVerdict(quiz, result.answer, graded);
	const reason = oneLine(graded.reason) || why;
	if (verdict === "correct") return { kind: "right", by: "grader" };
	if (verdict === "incorrect") return { kind: "wrong", by: "grader", ...(reason ? { why: reason } : {}) };
	return { kind: "unread", ...(reason ? { why: reason } : {}) };
}

/** Options of createAnswerGrader. */
export interface AnswerGraderOptions {
	/** The whole call (its retry included) ends by this many milliseconds (default 20 s, as in lessons). */
	deadlineMs?: number;
	/** Retries of a failed request (default 1). */
	maxRetries?: number;
}

/** The grader on `model` (the lessons' grader model), as the review asks it. Never rejects. */
export function createAnswerGrader(model: LanguageModel, options: AnswerGraderOptions = {}): AnswerGrader {
	const deadlineMs = options.deadlineMs ?? 20_000;
	return async (quiz, answer, locale) => {
		// A model id or an older provider is not one the grader speaks to: no verdict (the answer stays unread).
		if (typeof model !== "object" || model === null || model.specificationVersion !== "v3") return undefined;
		const outcome = await gradeAnswer(model, gradeRequest(quiz, answer), {
			deadlineMs,
			signal: AbortSignal.timeout(deadlineMs + 1_000),
			maxRetries: options.maxRetries ?? 1,
			...(locale !== DEFAULT_LOCALE ? { language: locale } : {}),
		});
		return outcome.ok ? { verdict: outcome.verdict, reason: outcome.reason } : undefined;
	};
}
