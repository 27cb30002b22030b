/**
 * Group lessons vote (peer instruction): every member answers a quiz
 * privately; the latest ballot of each member counts until the tally, which
 * closes the vote when every ACTIVE member voted (and at least two did) or when
 * the vote's timer ends. The tally becomes the quiz's tool result (per member:
 * id, name, answer, correct, when); a first-round check vote that split or went
 * wrong is re-opened as a revote of the same question after the teacher's
 * discussion turn (at most once; revote.ts). A tie names every tied answer.
 *
 * Active members: everyone who spoke in the thread, answered or voted in the
 * last ACTIVE_MINUTES (core/votes.ts), the starter counted from the lesson's
 * start (derived from the transcript and the open ballots, as of the engine's
 * clock). A member who arrives while a vote is open is active from their first
 * message, so the vote waits for them too; one who left long ago does not hold
 * it. The timer starts with a vote's first ballot (its deadline is saved with
 * it, so a restart re-arms it: a vote always closes). Asks are not voted (first
 * answer wins); solo lessons never vote.
 */

import {
	ANONYMOUS_PARTICIPANT,
	type AnswerResult,
	type Participant,
	type TutorEvent,
	type VoteAck,
} from "../../core/contracts/events.ts";
import type { QuizToolInput } from "../../core/question-core.ts";
import { REVEALED_NOTE } from "../../core/struggle.ts";
import { findToolCall, toolParts } from "../../core/transcript.ts";
import {
	type Ballot,
	castBallot,
	everyoneVoted,
	groupCorrect,
	type MemberResult,
	normalizeGroupSettings,
	recentlyActive,
	tallyVote,
} from "../../core/votes.ts";
import type { LessonMessage, SessionRecord } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import { displayQuiz } from "./display.ts";
import { recordAnswer } from "./learner-results.ts";
import { firstRoundId, REVOTE_SUFFIX, SPLIT_NEXT, WRONG_NEXT } from "./revote.ts";
import type { SessionState } from "./session-state.ts";

/** Whether an answer to a `kind` call is a vote in this lesson. */
export function isVote(record: SessionRecord, kind: string | undefined): boolean {
	return record.mode === "group" && kind === "quiz";
}

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** A member's vote as a job, and its private acknowledgement. */
export function voteJob(
	state: SessionState,
	toolCallId: string,
	quiz: QuizToolInput | undefined,
	result: Omit<AnswerResult, "by">,
	by: Participant,
	at: string,
): { job: { type: "vote"; toolCallId: string; ballot: Ballot }; ack: VoteAck } {
	const ballot: Ballot = {
		by,
		answer: result.answer,
		...(result.correct !== undefined ? { correct: result.correct } : {}),
		at,
	};
	const index = quiz?.options?.indexOf(result.answer) ?? -1;
	const before = state.record.votes?.[toolCallId]?.ballots ?? [];
	// A ballot of theirs still queued behind a running turn counts too: it is recorded before this one.
	const queued = state.queue.some((j) => j.type === "vote" && j.toolCallId === toolCallId && j.ballot.by.id === by.id);
	const ack: VoteAck = {
		answer: result.answer,
		...(index >= 0 && index < LETTERS.length ? { letter: LETTERS[index] } : {}),
		changed: queued || before.some((b) => b.by.id === by.id),
	};
	return { job: { type: "vote", toolCallId, ballot }, ack };
}

/** When each member was last seen in the lesson (ISO times): messages, answers, ballots; the starter from the start. */
export function lastSeen(record: SessionRecord): Map<string, string> {
	const seen = new Map<string, string>();
	const see = (id: unknown, at: unknown) => {
		if (typeof id !== "string" || id === "" || id === ANONYMOUS_PARTICIPANT) return;
		if (typeof at !== "string" || !Number.isFinite(Date.parse(at))) return;
		const before = seen.get(id);
		if (before === undefined || Date.parse(at) > Date.parse(before)) seen.set(id, at);
	};
	see(record.startedBy.id, record.createdAt);
	see(record.learner.id, record.createdAt);
	for (const m of record.messages) {
		const messageAt = m.metadata?.at;
		if (m.role === "user" && m.metadata?.kind === "learner") see(m.metadata.by?.id, messageAt);
		if (m.role !== "assistant") continue;
		for (const part of m.parts) {
			const output = (part as { state?: string; output?: AnswerResult }).output;
			if ((part as { state?: string }).state !== "output-available" || typeof output !== "object" || !output) continue;
			// A ballot carries its time; an older tally or an ask's answer only the question's (a lower bound).
			if (Array.isArray(output.vote?.members)) for (const v of output.vote.members) see(v.id, v.at ?? messageAt);
			else if (output.skipped !== true) see(output.by?.id, messageAt);
		}
	}
	for (const vote of Object.values(record.votes ?? {})) for (const b of vote.ballots) see(b.by.id, b.at);
	return seen;
}

/** The ids of the lesson's active members at `now` (see the header). */
export function activeMembers(record: SessionRecord, now: Date): Set<string> {
	return recentlyActive(lastSeen(record), now.getTime());
}

/** What applying a vote job did (as pump.ts's applyJob reports it). */
export interface VoteApplied {
	events: TutorEvent[];
	changed: boolean;
	turn: boolean;
}

const NOTHING: VoteApplied = { events: [], changed: false, turn: false };

/** Record a ballot (the latest per member counts); the tally follows at once when every active member voted. */
export function applyVote(ctx: EngineContext, state: SessionState, toolCallId: string, ballot: Ballot): VoteApplied {
	const record = state.record;
	if (findToolCall(record.messages, toolCallId)?.part.state !== "input-available") return NOTHING;
	const open = record.votes?.[toolCallId];
	// Received after the deadline (it waited in a queue or another process's inbox): late, not counted.
	if (open && ballot.at > open.closesAt) return NOTHING;
	const seconds = normalizeGroupSettings(record.group).voteSeconds;
	const closesAt = open?.closesAt ?? new Date(ctx.now().getTime() + seconds * 1000).toISOString();
	const { ballots } = castBallot(open?.ballots ?? [], ballot);
	// Replaced, not mutated: a batch the store refuses is rolled back from a shallow snapshot.
	record.votes = { ...record.votes, [toolCallId]: { closesAt, ballots } };
	if (everyoneVoted(activeMembers(record, ctx.now()), ballots)) return closeVote(ctx, state, toolCallId, false);
	return { events: [], changed: true, turn: false };
}

/** Close a vote: its tally becomes the quiz's result (the `answered` event carries it), and a turn runs. */
export function closeVote(ctx: EngineContext, state: SessionState, toolCallId: string, timedOut: boolean): VoteApplied {
	const record = state.record;
	ctx.voteTimers.clear(timerKey(record, toolCallId));
	state.claims.delete(toolCallId);
	const open = record.votes?.[toolCallId];
	if (!open) return NOTHING;
	const { [toolCallId]: _closed, ...rest } = record.votes ?? {};
	if (Object.keys(rest).length > 0) record.votes = rest;
	else delete record.votes;
	const found = findToolCall(record.messages, toolCallId);
	if (found?.part.state !== "input-available" || open.ballots.length === 0) return { ...NOTHING, changed: true };
	const quiz = displayQuiz(found.part.input);
	const round = toolCallId.endsWith(REVOTE_SUFFIX) ? 2 : 1;
	const check = quiz?.type === "check";
	const namesShown = normalizeGroupSettings(record.group).showNames;
	const vote = tallyVote(open.ballots, { check, round, timedOut, namesShown });
	const correct = groupCorrect(vote);
	const n = vote.voters;
	// A revote after a wrong first vote is the group's second try: the first one goes with it, as a solo learner's.
	const first =
		round === 2
			? (findToolCall(record.messages, firstRoundId(toolCallId))?.part.output as AnswerResult | undefined)
			: undefined;
	const result: AnswerResult = {
		// A tie names every tied answer: no one of them is "the group's answer".
		answer: vote.tie ? vote.tie.join(" | ") : (vote.counts[0]?.answer ?? ""),
		...(correct !== undefined ? { correct } : {}),
		...(first?.correct === false && typeof first.answer === "string"
			? { attempts: [{ answer: first.answer, correct: false as const }] }
			: {}),
		// The second wrong vote on a check shows the answer (as a solo learner's second miss does).
		...(check && round === 2 && correct === false ? { revealed: true, note: REVEALED_NOTE } : {}),
		// The group answers; the starter's id keeps budgets and payers on a real member.
		by: { id: record.startedBy.id, name: `the group (${n} ${n === 1 ? "vote" : "votes"})` },
		vote: { ...vote, ...(vote.revote ? { next: vote.split ? SPLIT_NEXT : WRONG_NEXT } : {}) },
	};
	const event = recordAnswer(state, toolCallId, result);
	return { events: event ? [event] : [], changed: true, turn: event !== undefined };
}

const timerKey = (record: SessionRecord, toolCallId: string) => `${record.sessionId}\u0000${toolCallId}`;

/** Arm a timer for each open vote of the session (idempotent); `due` queues the vote's tally. */
export function armVoteTimers(ctx: EngineContext, state: SessionState, due: (toolCallId: string) => void): void {
	const record = state.record;
	if (record.ended) return;
	for (const [toolCallId, vote] of Object.entries(record.votes ?? {})) {
		const at = Date.parse(vote.closesAt);
		const ms = Number.isFinite(at) ? at - ctx.now().getTime() : 0;
		ctx.voteTimers.arm(timerKey(record, toolCallId), ms, () => due(toolCallId));
	}
}

/** Each member's results in this lesson: votes (per round) and answers, in order of first answer. */
export function memberResults(messages: readonly LessonMessage[]): MemberResult[] {
	const byId = new Map<string, MemberResult>();
	const add = (by: Participant, correct: boolean | undefined) => {
		const row = byId.get(by.id) ?? { by: { ...by }, answered: 0, correct: 0 };
		if (by.name !== undefined) row.by.name = by.name;
		row.answered++;
		if (correct === true) row.correct++;
		byId.set(by.id, row);
	};
	for (const part of toolParts(messages)) {
		if (part.type !== "tool-quiz" || part.state !== "output-available") continue;
		const output = part.output as AnswerResult | undefined;
		if (!output || output.skipped === true) continue;
		if (Array.isArray(output.vote?.members))
			for (const m of output.vote.members)
				add({ id: m.id, ...(m.name !== undefined ? { name: m.name } : {}) }, m.correct);
		else if (typeof output.by?.id === "string") add(output.by, output.correct);
	}
	return [...byId.values()];
}
