/**
 * Struggle before the answer, in the pump: a wrong first answer to a `check`
 * quiz is an attempt (kept in the record, the question stays open, no turn
 * runs); the second miss, Show answer or Not sure resolve the question
 * (Explain another way keeps it open over the tutor's reply: held-open.ts), and the tool result our code authors carries every
 * try and hint (`attempts`, `hints`/`hinted`, `revealed`, `notSure`,
 * `explainAgain`, a `note` for the model). Predict and probe quizzes are
 * never attempts: a prediction is a guess, a probe answer a diagnosis.
 */

import type { AnswerResult, Participant, TutorEvent } from "../../core/contracts/events.ts";
import {
	type HelpKind,
	MAX_CHECK_TRIES,
	NOT_SURE_NOTE,
	REVEALED_NOTE,
	type StruggleEntry,
} from "../../core/struggle.ts";
import { findToolCall } from "../../core/transcript.ts";
import { learnerMessageText } from "../prompts/context.ts";
import type { EngineContext } from "./context.ts";
import { displayQuiz } from "./display.ts";
import { holdOpen } from "./held-open.ts";
import { askForHint } from "./hint-call.ts";
import { recordAnswer } from "./learner-results.ts";
import { type answeredPart, replaceToolPart } from "./record-edit.ts";
import type { SessionState } from "./session-state.ts";

/** What applying a job did: events to emit after the save, whether the record changed, whether a turn should run. */
export interface Applied {
	events: TutorEvent[];
	changed: boolean;
	turn: boolean;
}

const NOTHING: Applied = { events: [], changed: false, turn: false };

/** The words of the learner message an "Explain another way" click adds to the transcript. */
export const EXPLAIN_AGAIN_TEXT = "Could you explain that another way? I'll answer the question after.";

/** The open quiz `toolCallId` (parsed for display), or undefined when it is not pending. */
function openQuiz(state: SessionState, toolCallId: string) {
	const found = findToolCall(state.record.messages, toolCallId);
	if (found?.part.type !== "tool-quiz" || found.part.state !== "input-available") return undefined;
	return { quiz: displayQuiz(found.part.input) };
}

const entryOf = (state: SessionState, toolCallId: string): StruggleEntry | undefined =>
	state.record.struggle?.[toolCallId];

function keepEntry(state: SessionState, toolCallId: string, entry: StruggleEntry): void {
	state.record.struggle = { ...(state.record.struggle ?? {}), [toolCallId]: entry };
}

function dropEntry(state: SessionState, toolCallId: string): void {
	const all = state.record.struggle;
	if (!all || !(toolCallId in all)) return;
	const { [toolCallId]: _gone, ...rest } = all;
	if (Object.keys(rest).length === 0) delete state.record.struggle;
	else state.record.struggle = rest;
}

/** The tries and hints of an entry, as result fields (none when there were none). */
function gathered(entry: StruggleEntry | undefined): Partial<AnswerResult> {
	if (!entry) return {};
	return {
		...(entry.attempts.length > 0 ? { attempts: [...entry.attempts] } : {}),
		...(entry.hints.length > 0 ? { hints: [...entry.hints], hinted: true } : {}),
	};
}

/** Resolve the quiz with `result` plus what it gathered; the answered event. */
function resolve(state: SessionState, toolCallId: string, result: AnswerResult): Applied {
	const full: AnswerResult = { ...result, ...gathered(entryOf(state, toolCallId)) };
	const event = recordAnswer(state, toolCallId, full);
	if (event) dropEntry(state, toolCallId);
	return { events: event ? [event] : [], changed: event !== undefined, turn: event !== undefined };
}

/**
 * An answer to a quiz: a first miss on a check becomes an attempt (question still open);
 * anything else resolves it, carrying the earlier tries (the second miss reveals the answer).
 */
export function applyAnswer(state: SessionState, toolCallId: string, result: AnswerResult): Applied {
	const open = openQuiz(state, toolCallId);
	if (open?.quiz?.type !== "check" || result.correct !== false) return resolve(state, toolCallId, result);
	const entry = entryOf(state, toolCallId) ?? { attempts: [], hints: [] };
	const tries = entry.attempts.length + 1;
	if (tries >= MAX_CHECK_TRIES) return resolve(state, toolCallId, { ...result, revealed: true, note: REVEALED_NOTE });
	const attempts = [...entry.attempts, { answer: result.answer, correct: false as const }];
	keepEntry(state, toolCallId, { ...entry, attempts });
	// Answerable again at once: the claim of this answer is spent.
	state.claims.delete(toolCallId);
	const event: TutorEvent = {
		type: "attempt",
		sessionId: state.record.sessionId,
		toolCallId,
		attempts,
		state: "missed",
		by: result.by,
		...(open.quiz ? { quiz: open.quiz } : {}),
	};
	return { events: [event], changed: true, turn: false };
}

/**
 * Open a recorded answer's question again (the grader found it a first miss on a check, or not an answer
 * at all): the call waits for the learner again, with the tries and hints it had gathered.
 */
export function reopenQuestion(state: SessionState, toolCallId: string, recorded: AnswerResult): void {
	replaceToolPart(
		state.record,
		toolCallId,
		(part) =>
			({ type: part.type, toolCallId: part.toolCallId, state: "input-available", input: part.input }) as ReturnType<
				typeof answeredPart
			>,
	);
	const attempts = recorded.attempts ?? [];
	const hints = recorded.hints ?? [];
	if (attempts.length > 0 || hints.length > 0)
		keepEntry(state, toolCallId, { attempts: [...attempts], hints: [...hints] });
	state.claims.delete(toolCallId);
}

/** A help control on an open quiz; a hint asks the teacher's model (bounded) before it returns. */
export async function applyHelp(
	ctx: EngineContext,
	state: SessionState,
	job: { toolCallId: string; kind: HelpKind; by: Participant },
): Promise<Applied> {
	const { toolCallId, kind, by } = job;
	const open = openQuiz(state, toolCallId);
	if (!open) {
		state.claims.delete(toolCallId);
		return NOTHING;
	}
	const entry = entryOf(state, toolCallId) ?? { attempts: [], hints: [] };
	const lastTry = entry.attempts.at(-1)?.answer ?? "";
	const sessionId = state.record.sessionId;
	switch (kind) {
		case "again": {
			const event: TutorEvent = {
				type: "attempt",
				sessionId,
				toolCallId,
				attempts: entry.attempts,
				state: "retry",
				by,
				...(open.quiz ? { quiz: open.quiz } : {}),
			};
			return { events: [event], changed: false, turn: false };
		}
		case "hint": {
			if (!open.quiz) return NOTHING;
			const hint = await askForHint(ctx, open.quiz, entry.attempts, entry.hints, sessionId, by);
			state.record.usage.inputTokens += hint.inputTokens;
			state.record.usage.outputTokens += hint.outputTokens;
			keepEntry(state, toolCallId, { ...entry, hints: [...entry.hints, hint.text] });
			const events: TutorEvent[] = [{ type: "hint", sessionId, toolCallId, text: hint.text, by }];
			// Over budget: the generic hint, and the notice saying why.
			if (hint.overBudget)
				events.push({ type: "error", sessionId, code: "budget", message: hint.overBudget, retryable: false });
			return { events, changed: true, turn: false };
		}
		case "show":
			return resolve(state, toolCallId, { answer: lastTry, correct: false, revealed: true, note: REVEALED_NOTE, by });
		case "not-sure":
			return resolve(state, toolCallId, { answer: "Not sure", correct: false, notSure: true, note: NOT_SURE_NOTE, by });
		case "explain": {
			// The question stays open (held-open.ts): the tutor explains another way, then it is offered again.
			holdOpen(state.record, [toolCallId]);
			state.claims.delete(toolCallId);
			state.record.messages.push({
				id: ctx.newId(),
				role: "user",
				metadata: { kind: "learner", by, at: ctx.now().toISOString() },
				parts: [{ type: "text", text: learnerMessageText(EXPLAIN_AGAIN_TEXT, by, state.record.mode) }],
			});
			return { events: [], changed: true, turn: true };
		}
	}
}
