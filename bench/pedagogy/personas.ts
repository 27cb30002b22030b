/**
 * Scripted learners for the pedagogy evaluation. Each decides, for every question the tutor
 * posts, what to do (pick an option, type an answer) and what it MEANS by it (right, wrong,
 * or "does not know"), so the run can compare the tutor's judgement with the learner's intent.
 */

import type { LearnerEvent, Participant, TutorEvent } from "../../src/core/contracts/events.ts";

/** A question as posted. */
export type Question = Extract<TutorEvent, { type: "quiz" | "ask" }>;

/** What a persona does with a question, and whether it means a right answer (quizzes only). */
export interface PersonaMove {
	event: LearnerEvent;
	/** true: it means the right answer; false: a wrong one; undefined: not a graded question. */
	intendsCorrect?: boolean;
	/**
	 * A message typed in the thread while the question is open, and what the persona means by it: an answer
	 * (it should be judged as one) or a question of its own (the quiz should stay open).
	 */
	typed?: "answer" | "question";
}

/** A scripted learner. */
export interface Persona {
	name: string;
	/** One line on who this is. */
	about: string;
	/** The move for the n-th question it sees (0-based). */
	move(question: Question, n: number, by: Participant): PersonaMove;
}

/** The option index of the correct answer, if the quiz has options and names one of them. */
function correctIndex(question: Question): number | undefined {
	if (question.type !== "quiz") return undefined;
	const options = question.input.options ?? [];
	const i = options.indexOf(question.input.correctAnswer);
	return i >= 0 ? i : undefined;
}

/** A wrong option (the last one that is not correct), if there is one. */
function wrongIndex(question: Question): number | undefined {
	if (question.type !== "quiz") return undefined;
	const options = question.input.options ?? [];
	for (let i = options.length - 1; i >= 0; i--) if (options[i] !== question.input.correctAnswer) return i;
	return undefined;
}

/** Answer right (or wrong) the plain way: a click on an option, or the answer typed as given. */
function plain(question: Question, right: boolean, by: Participant): PersonaMove {
	const toolCallId = question.toolCallId;
	if (question.type === "ask") {
		const options = question.input.options ?? [];
		if (options.length > 0) return { event: { type: "answer", toolCallId, value: 0, by } };
		return {
			event: { type: "reply", toolCallId, text: right ? "Because it halves the range each time." : "No idea.", by },
		};
	}
	const index = right ? correctIndex(question) : wrongIndex(question);
	if (index !== undefined) return { event: { type: "answer", toolCallId, value: index, by }, intendsCorrect: right };
	const text = right ? question.input.correctAnswer : "I don't know";
	return { event: { type: "reply", toolCallId, text, by }, intendsCorrect: right };
}

/** The answer as words to type: the right option's text, or the expected answer. */
const typedAnswer = (question: Question): string =>
	question.type === "quiz" ? question.input.correctAnswer : "I want to understand why it works.";

/**
 * Types in the thread, as people do in chat: first a question of its own on each quiz ("wait, why?"), then
 * the right answer as a message (never a click or the form).
 */
function chatty(): Persona {
	const asked = new Set<string>();
	return {
		name: "chatty",
		about: "types in the thread: asks a question of its own mid-quiz, then types the answer as a message",
		move(q, _n, by) {
			if (q.type === "quiz" && !asked.has(q.toolCallId)) {
				asked.add(q.toolCallId);
				return { event: { type: "message", text: "wait, why does that matter here?", by }, typed: "question" };
			}
			return {
				event: { type: "message", text: typedAnswer(q), by },
				typed: "answer",
				...(q.type === "quiz" ? { intendsCorrect: true } : {}),
			};
		},
	};
}

/** The personas the issues name. */
export const PERSONAS: readonly Persona[] = [
	{
		name: "novice",
		about: "knows nothing: picks a wrong option, types that it does not know",
		move: (q, _n, by) => plain(q, false, by),
	},
	{
		name: "basics",
		about: "knows the basics: right on the first three questions, wrong after",
		move: (q, n, by) => plain(q, n < 3, by),
	},
	{
		name: "misconception",
		about: "holds one misconception: right, except it always takes the last wrong option on check quizzes",
		move: (q, _n, by) => plain(q, !(q.type === "quiz" && q.input.type === "check"), by),
	},
	{
		name: "sentences",
		about: "knows the answers but writes them as sentences, numbers as words",
		move(q, _n, by) {
			if (q.type !== "quiz") return plain(q, true, by);
			const answer = q.input.correctAnswer;
			const words = NUMBER_WORDS[answer.trim()];
			const options = q.input.options ?? [];
			// A typed sentence even when there are options: the judge must find the option in it.
			const text = options.length > 0 ? `I'd go with ${answer}, I think` : `I think it's ${words ?? answer}`;
			return { event: { type: "reply", toolCallId: q.toolCallId, text, by }, intendsCorrect: true };
		},
	},
	chatty(),
];

const NUMBER_WORDS: Record<string, string> = {
	"1": "one",
	"2": "two",
	"3": "three",
	"4": "four",
	"5": "five",
	"6": "six",
	"7": "seven",
	"8": "eight",
	"9": "nine",
	"10": "ten",
	"16": "sixteen",
	"20": "twenty",
};
