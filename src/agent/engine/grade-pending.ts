/**
 * Typed answers waiting for the grading model. Recording such an answer keeps
 * the judge's undecided result (`judged: "unsure"`, the teacher-will-judge
 * fallback) as the call's output and lists the call in `record.grading`, in
 * the same save, so the pending grading is durable: the pump grades before
 * the next turn, and a restart in the middle re-runs it (resume re-runs the
 * open turn, which grades first). A verdict replaces the output (persist, then
 * publish an `answered` event with it); a failed call leaves the fallback.
 */

import { decidedByJudge } from "../../core/answer-resolve.ts";
import type { AnswerResult, TutorEvent } from "../../core/contracts/events.ts";
import type { QuizToolInput } from "../../core/question-core.ts";
import { findToolCall, toolNameOf } from "../../core/transcript.ts";
import {
	boundVerdict,
	GRADE_MAX_OUTPUT_TOKENS,
	type GradeOutcome,
	gradeAnswer,
	gradeRequest,
	gradeRequestText,
} from "../grader.ts";
import { learnerMessageText } from "../prompts/context.ts";
import { reportUsage, reserveUsage, turnPayer } from "./budget.ts";
import type { EngineContext } from "./context.ts";
import { displayQuiz } from "./display.ts";
import { answerHeld, holdOpen } from "./held-open.ts";
import { saveUntilStored } from "./persist.ts";
import { answeredPart, replaceToolPart } from "./record-edit.ts";
import type { SessionState } from "./session-state.ts";
import { applyAnswer, reopenQuestion } from "./struggle.ts";
import { estimateInputTokens } from "./token-estimate.ts";

const NO_USAGE = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };

/** Most gradings run before one turn (a batch of answers is small; the rest keep the fallback). */
const MAX_GRADINGS_PER_TURN = 8;

/** True when a recorded quiz answer goes to the grader: typed, not decided, not skipped, not "not sure". */
export function needsGrading(kind: "quiz" | "ask", result: AnswerResult): boolean {
	return kind === "quiz" && result.judged === "unsure" && result.skipped !== true && result.notSure !== true;
}

/** List a recorded answer for grading; its `answered` event becomes the checking state. */
export function queueGrading(state: SessionState, event: Extract<TutorEvent, { type: "answered" }>): void {
	const record = state.record;
	if (!needsGrading(event.kind, event.result) || event.quiz === undefined) return;
	record.grading = [...(record.grading ?? []).filter((id) => id !== event.toolCallId), event.toolCallId];
	event.checking = true;
}

/** The result a verdict makes of the undecided one (a grader that is unsure keeps it undecided, with its reason). */
function gradedResult(
	undecided: AnswerResult,
	verdict: "correct" | "incorrect" | "unsure",
	reason: string | undefined,
): AnswerResult {
	const { correct: _c, judged: _j, reason: _r, inThread: _t, ...rest } = undecided;
	const why = reason !== undefined ? { reason } : {};
	if (verdict === "unsure") return { ...rest, judged: "unsure", ...why };
	return { ...rest, correct: verdict === "correct", judged: "grader", ...why };
}

/**
 * Grade every answer in `record.grading`, in order: one grading call each, then save and publish the
 * verdict. Stops (leaving the rest listed) when the tutor closes; never throws on a model failure.
 */
export async function gradePending(rt: EngineContext, state: SessionState): Promise<boolean> {
	const record = state.record;
	let reopened = false;
	const sessionId = record.sessionId;
	for (let i = 0; i < MAX_GRADINGS_PER_TURN && (record.grading?.length ?? 0) > 0; i++) {
		if (rt.signal.aborted) return false;
		const toolCallId = record.grading?.[0] ?? "";
		const found = findToolCall(record.messages, toolCallId);
		const quiz = found && toolNameOf(found.part.type) === "quiz" ? displayQuiz(found.part.input) : undefined;
		const undecided = found?.part.state === "output-available" ? (found.part.output as AnswerResult) : undefined;
		let events: TutorEvent[] = [];
		// The grader decides only what the judge leaves open (a record judged by older rules is judged again).
		const decided =
			quiz && undecided && needsGrading("quiz", undecided) && decidedByJudge(quiz, undecided.answer, record.language);
		if (quiz && undecided && decided) {
			const { judged: _j, reason: _r, inThread: _t, ...rest } = undecided;
			events = settleVerdict(rt, state, toolCallId, quiz, undecided, { ...rest, ...decided, by: undecided.by });
		} else if (quiz && undecided && needsGrading("quiz", undecided)) {
			const request = gradeRequest(quiz, undecided.answer);
			// Cost caps: the grading reserves what it may cost first; refused, the teacher judges the answer.
			const payer = turnPayer(record);
			const reserved = await reserveUsage(rt, sessionId, payer, "grader", rt.models.grader, {
				inputTokens: estimateInputTokens(gradeRequestText(request, record.language)),
				outputTokens: GRADE_MAX_OUTPUT_TOKENS,
			});
			const outcome: GradeOutcome = reserved.ok
				? await gradeAnswer(rt.models.grader, request, {
						deadlineMs: rt.gradingTimeoutMs,
						signal: rt.signal,
						maxRetries: Math.min(rt.maxRetries, 1),
						...(record.language ? { language: record.language } : {}),
					})
				: { ok: false, problem: "over the budget" };
			// A failed grading's usage is unknown: its reservation is given back.
			if (reserved.ok && !outcome.ok && reserved.reservation)
				await reportUsage(rt, sessionId, payer, "grader", rt.models.grader, NO_USAGE, reserved.reservation);
			// Closing: the grading stays listed (and the turn open on disk): the next start grades it again.
			if (rt.signal.aborted) return false;
			let result = undecided;
			// Typed in the thread and not an answer at all (a question of the learner's own, a remark): the question
			// stays open, and the words go to the tutor as a message.
			const notAnAnswer = outcome.ok && outcome.intent !== "answer" && undecided.inThread === true;
			if (outcome.ok) {
				const bounded = boundVerdict(quiz, undecided.answer, outcome);
				result = gradedResult(undecided, bounded.verdict, bounded.reason);
				record.usage.inputTokens += outcome.usage.inputTokens;
				record.usage.outputTokens += outcome.usage.outputTokens;
				record.usage.cachedInputTokens += outcome.usage.cachedInputTokens;
				await reportUsage(
					rt,
					sessionId,
					payer,
					"grader",
					rt.models.grader,
					outcome.usage,
					reserved.ok ? reserved.reservation : undefined,
				);
			} else
				rt.logger.warn(
					{ sessionId, toolCallId, problem: outcome.problem },
					"grading failed; the teacher will judge the answer",
				);
			events = notAnAnswer
				? keptOpen(rt, state, toolCallId, quiz, undecided)
				: settleVerdict(rt, state, toolCallId, quiz, undecided, result);
		}
		// A first miss waits for the second try: the turn the answer would have run is not due (saved with this).
		if (events.some((e) => e.type === "attempt" && e.state === "missed")) {
			reopened = true;
			record.turnOpen = false;
		}
		record.grading = (record.grading ?? []).filter((id) => id !== toolCallId);
		if (record.grading.length === 0) delete record.grading;
		try {
			await saveUntilStored(rt, state);
		} catch (error) {
			rt.logger.warn({ err: error, sessionId }, "the tutor closed before a grading could be saved");
			return false;
		}
		for (const event of events) await rt.hub.emit(event);
	}
	// Beyond the bound: the rest keep the teacher-will-judge fallback.
	if (record.grading) delete record.grading;
	return !reopened;
}

/**
 * A typed answer's final verdict. On a check quiz it counts like a click's (struggle.ts): a first miss
 * opens the question again for a second try (no turn runs), the second miss reveals the answer. An
 * answer to a question kept open over a turn goes to the model in a later message (held-open.ts).
 */
function settleVerdict(
	rt: EngineContext,
	state: SessionState,
	toolCallId: string,
	quiz: QuizToolInput,
	recorded: AnswerResult,
	verdict: AnswerResult,
): TutorEvent[] {
	// The thread mark was for the grader: the recorded answer is the same whichever way it came.
	const { inThread: _t, ...result } = verdict;
	let events: TutorEvent[];
	if (quiz.type === "check" && result.correct === false && result.revealed !== true && result.notSure !== true) {
		reopenQuestion(state, toolCallId, recorded);
		const { attempts: _a, hints: _h, hinted: _d, ...plain } = result;
		events = applyAnswer(state, toolCallId, plain).events;
		// A second try is due, on a question the model saw pending: it stays that way.
		if (recorded.deferred === true && events.some((e) => e.type === "attempt")) holdOpen(state.record, [toolCallId]);
	} else {
		replaceToolPart(state.record, toolCallId, (part) => answeredPart(part, result));
		events = [{ type: "answered", sessionId: state.record.sessionId, toolCallId, kind: "quiz", result, quiz }];
	}
	for (const event of events) if (event.type === "answered") answerHeld(rt, state, event);
	return events;
}

/** Words typed in the thread that the grader found were not an answer: the question opens again, the words go to the tutor. */
function keptOpen(
	rt: EngineContext,
	state: SessionState,
	toolCallId: string,
	quiz: QuizToolInput,
	recorded: AnswerResult,
): TutorEvent[] {
	const record = state.record;
	reopenQuestion(state, toolCallId, recorded);
	record.messages.push({
		id: rt.newId(),
		role: "user",
		metadata: { kind: "learner", by: recorded.by, at: rt.now().toISOString() },
		parts: [{ type: "text", text: learnerMessageText(recorded.answer, recorded.by, record.mode) }],
	});
	holdOpen(record, [toolCallId]);
	const attempts = record.struggle?.[toolCallId]?.attempts ?? [];
	// The card shows the question open again (it showed "checking").
	return [
		{ type: "attempt", sessionId: record.sessionId, toolCallId, attempts, state: "retry", by: recorded.by, quiz },
	];
}
