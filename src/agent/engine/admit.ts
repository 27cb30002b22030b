/**
 * handle()'s verdict, decided synchronously against the session as it is now
 * (its transcript plus the claims of events admitted but not yet recorded):
 * who may act, whether the question is still pending, whether the value is a
 * valid answer. An admitted event becomes a job; nothing here calls the model.
 */

import { resolveAskAnswer, resolveQuizAnswer } from "../../core/answer-resolve.ts";
import type { HandleResult, LearnerEvent, RefusalCode, VoteAck } from "../../core/contracts/events.ts";
import { learnerImagesProblem } from "../../core/learner-images.ts";
import { HELP_KINDS, helpResolves, MAX_HINTS } from "../../core/struggle.ts";
import { findToolCall, pendingLearnerCalls, toolNameOf } from "../../core/transcript.ts";
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import { displayAsk, displayQuiz } from "./display.ts";
import type { Job, SessionState } from "./session-state.ts";
import { readTypedLine } from "./typed-reading.ts";
import { isVote, voteJob } from "./votes.ts";

/** A member's "Not sure" on a group vote: their ballot (does not know, never a guess). */
const NOT_SURE_BALLOT = { answer: "Not sure", correct: false, notSure: true } as const;

/** Longest typed message we accept. */
export const MAX_MESSAGE_CHARS = 4000;

/** Admitted (with its job) or refused. */
export type Admission = { ok: true; job: Job; ack?: VoteAck } | Extract<HandleResult, { ok: false }>;

const refuse = (code: RefusalCode, message: string): Admission => ({ ok: false, code, message });

/** A platform payload can be anything: check the shape before trusting it. */
function wellFormed(event: LearnerEvent): boolean {
	const e = event as Partial<LearnerEvent> | null;
	if (typeof e !== "object" || e === null) return false;
	if (typeof e.by !== "object" || e.by === null || typeof e.by.id !== "string" || e.by.id === "") return false;
	if (e.type === "answer" || e.type === "reply") return typeof (e as { toolCallId?: unknown }).toolCallId === "string";
	if (e.type === "help")
		return (
			typeof (e as { toolCallId?: unknown }).toolCallId === "string" &&
			(HELP_KINDS as readonly unknown[]).includes((e as { kind?: unknown }).kind)
		);
	return e.type === "message" || e.type === "end";
}

/** Decide an event against the session; the caller applies the claims (see claim()). */
export function admit(state: SessionState, event: LearnerEvent, at = new Date().toISOString()): Admission {
	const record = state.record;
	const locale = record.language ?? DEFAULT_LOCALE;
	if (!wellFormed(event)) return refuse("invalid-answer", t(locale, "engine.malformed"));
	if (record.ended || state.ending) return refuse("ended", t(locale, "status.ended"));
	const isLearner = event.by.id === record.learner.id;
	if (event.type === "end") {
		const isStarter = event.by.id === record.startedBy.id;
		if (!isLearner && !isStarter && !event.privileged) return refuse("not-allowed", t(locale, "engine.endNotAllowed"));
		const reason = event.privileged && !isLearner ? "ended-by-admin" : "ended-by-user";
		return { ok: true, job: { type: "end", by: event.by, reason } };
	}
	if (record.mode === "solo" && !isLearner) {
		const name = record.learner.name ?? t(locale, "refuse.theLearner");
		return refuse("not-allowed", t(locale, "engine.soloOnly", { name }));
	}
	if (event.type === "message") {
		const text = typeof event.text === "string" ? event.text.trim() : "";
		const imageProblem = learnerImagesProblem(event.images);
		if (imageProblem) return refuse("invalid-answer", imageProblem);
		const images = event.images && event.images.length > 0 ? event.images : undefined;
		if (text === "" && !images) return refuse("invalid-answer", t(locale, "engine.messageEmpty"));
		if (text.length > MAX_MESSAGE_CHARS)
			return refuse("invalid-answer", t(locale, "engine.messageTooLong", { max: String(MAX_MESSAGE_CHARS) }));
		// Questions open to this message (a vote is not: talk during a vote keeps it open and runs no turn).
		const open = pendingLearnerCalls(record.messages)
			.filter((p) => !isVote(record, p.kind) && !state.claims.has(p.toolCallId))
			.map((p) => p.toolCallId);
		const target = open.at(-1);
		// Typed while a question is open: read for what it is (typed-reading.ts); an answer is judged like a form reply.
		const read = target !== undefined && !images ? readTypedLine(record, target, text, event.by, locale) : undefined;
		if (read) return { ok: true, job: read };
		// A question of the learner's own, or words that are not an answer: the open questions stay open.
		return { ok: true, job: { type: "message", text, by: event.by, holds: open, ...(images ? { images } : {}) } };
	}
	const found = findToolCall(record.messages, event.toolCallId);
	const kind = found ? toolNameOf(found.part.type) : undefined;
	if (!found || (kind !== "quiz" && kind !== "ask")) return refuse("not-pending", t(locale, "engine.notInLesson"));
	const claim = state.claims.get(event.toolCallId);
	if (claim === "answered") return refuse("already-answered", t(locale, "engine.alreadyAnswered"));
	if (claim === "superseded") return refuse("not-pending", t(locale, "engine.movedOn"));
	if (found.part.state !== "input-available") {
		const output = found.part.output as { skipped?: unknown } | undefined;
		if (found.part.state === "output-available" && output?.skipped !== true)
			return refuse("already-answered", t(locale, "engine.alreadyAnswered"));
		return refuse("not-pending", t(locale, "engine.movedOn"));
	}
	if (event.type === "help") {
		if (kind !== "quiz") return refuse("invalid-answer", t(locale, "engine.helpQuizOnly"));
		const hints = record.struggle?.[event.toolCallId]?.hints.length ?? 0;
		if (event.kind === "hint" && hints >= MAX_HINTS)
			return refuse("invalid-answer", t(locale, "engine.maxHints", { max: MAX_HINTS }));
		if (isVote(record, kind)) {
			// A group vote closes on its tally, never on one member's click: their "Not sure" is their ballot, a hint
			// is theirs to see, the rest is said in the thread (the vote stays open).
			if (event.kind === "not-sure")
				return {
					ok: true,
					...voteJob(state, event.toolCallId, displayQuiz(found.part.input), NOT_SURE_BALLOT, event.by, at),
				};
			if (event.kind !== "hint") return refuse("invalid-answer", t(locale, "engine.helpInVote"));
		}
		const job = { type: "help" as const, toolCallId: event.toolCallId, kind: event.kind, by: event.by };
		return { ok: true, job };
	}
	const value = event.type === "answer" ? event.value : event.text;
	if (typeof value !== "string" && typeof value !== "number")
		return refuse("invalid-answer", t(locale, "engine.answerEmpty"));
	const typed = event.type === "reply";
	// Pictures of the learner's working come only with a typed answer, checked as a message's are.
	const images = typed && event.images && event.images.length > 0 ? event.images : undefined;
	if (images) {
		const imageProblem = learnerImagesProblem(images);
		if (imageProblem) return refuse("invalid-answer", imageProblem);
		// A ballot is private until the tally; the answer form never offers an upload on a vote (answers.ts).
		if (isVote(record, kind)) return refuse("invalid-answer", t(locale, "engine.votePictures"));
	}
	let verdict: ReturnType<typeof resolveQuizAnswer>;
	if (kind === "quiz") {
		const quiz = displayQuiz(found.part.input);
		verdict = quiz
			? resolveQuizAnswer(quiz, value, typed, locale)
			: { ok: true, result: { answer: String(value).trim() } };
	} else {
		const ask = displayAsk(found.part.input);
		verdict = ask
			? resolveAskAnswer(ask, value, typed, locale)
			: { ok: true, result: { answer: String(value).trim() } };
	}
	if (!verdict.ok) return refuse("invalid-answer", verdict.message);
	if (isVote(record, kind)) {
		// Past the vote's deadline a ballot is late even when the timer has not tallied yet (a busy process, a restart).
		const closesAt = record.votes?.[event.toolCallId]?.closesAt;
		if (closesAt !== undefined && at > closesAt) return refuse("not-pending", t(locale, "engine.voteClosed"));
		const vote = voteJob(state, event.toolCallId, displayQuiz(found.part.input), verdict.result, event.by, at);
		return { ok: true, ...vote };
	}
	return {
		ok: true,
		job: {
			type: "answer",
			toolCallId: event.toolCallId,
			kind,
			result: { ...verdict.result, by: event.by },
			...(images ? { images } : {}),
		},
	};
}

/** Record an admitted job's claims so later events see them at once. */
export function claim(state: SessionState, job: Job): void {
	if (job.type === "answer") state.claims.set(job.toolCallId, "answered");
	else if (job.type === "help" && helpResolves(job.kind)) state.claims.set(job.toolCallId, "answered");
	else if (job.type === "end") {
		state.ending = true;
		for (const p of pendingLearnerCalls(state.record.messages))
			if (!state.claims.has(p.toolCallId)) state.claims.set(p.toolCallId, "superseded");
	}
}
