/**
 * A line typed in the thread while a question is open, read for what it is, the same way on every
 * platform (the terminal's typed lines come here too):
 * - a request for a hint or for the answer (core/typed-intent.ts): that help, on the open quiz;
 * - a question of the learner's own, or a request for another explanation: a message, and the
 *   question stays open (admit.ts; engine/held-open.ts);
 * - otherwise an answer, judged exactly like a form reply (core/answer-resolve.ts), with a check's second try;
 *   what the judge cannot decide goes to the grader, which also says whether it was an answer at
 *   all (grade-pending.ts), except a text put as a question (`…?`), which stays a question.
 * Undefined: not an answer or a help request (the caller makes it a message).
 */

import { resolveAskAnswer, resolveQuizAnswer } from "../../core/answer-resolve.ts";
import type { Participant } from "../../core/contracts/events.ts";
import { MAX_HINTS } from "../../core/struggle.ts";
import { findToolCall, toolNameOf } from "../../core/transcript.ts";
import { putAsQuestion, readTypedIntent } from "../../core/typed-intent.ts";
import type { Locale } from "../../i18n/index.ts";
import type { SessionRecord } from "../store/types.ts";
import { displayAsk, displayQuiz } from "./display.ts";
import type { Job } from "./session-state.ts";

/** The job a typed line makes on the open question `toolCallId`, or undefined when it is a message. */
export function readTypedLine(
	record: SessionRecord,
	toolCallId: string,
	text: string,
	by: Participant,
	locale: Locale,
): Job | undefined {
	const found = findToolCall(record.messages, toolCallId);
	const kind = found ? toolNameOf(found.part.type) : undefined;
	if (found?.part.state !== "input-available" || (kind !== "quiz" && kind !== "ask")) return undefined;
	const intent = readTypedIntent(text, locale);
	if (intent?.kind === "question") return undefined;
	if (intent?.kind === "help") {
		// Another explanation is asked in the learner's own words: a message that keeps the question open.
		if (kind !== "quiz" || intent.help === "explain") return undefined;
		const hints = record.struggle?.[toolCallId]?.hints.length ?? 0;
		if (intent.help === "hint" && hints >= MAX_HINTS) return undefined;
		return { type: "help", toolCallId, kind: intent.help, by };
	}
	if (kind === "ask") {
		const ask = displayAsk(found.part.input);
		const verdict = ask ? resolveAskAnswer(ask, text, true, locale) : { ok: true as const, result: { answer: text } };
		return verdict.ok ? { type: "answer", toolCallId, kind, result: { ...verdict.result, by } } : undefined;
	}
	const quiz = displayQuiz(found.part.input);
	if (!quiz) return undefined;
	const verdict = resolveQuizAnswer(quiz, text, true, locale);
	if (!verdict.ok) return undefined;
	const decided = typeof verdict.result.correct === "boolean" || verdict.result.notSure === true;
	// Undecided and put as a question ("why sorted?", "is it the middle one?"): the learner is asking.
	if (!decided && putAsQuestion(text)) return undefined;
	// Undecided: the grader is told the words came from the thread (they may not be an answer at all); the mark
	// goes with its verdict, so a decided answer is recorded the same whichever way it came.
	return {
		type: "answer",
		toolCallId,
		kind,
		result: { ...verdict.result, by, ...(decided ? {} : { inThread: true }) },
	};
}
