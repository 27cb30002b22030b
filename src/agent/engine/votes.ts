/**
 * Group lessons vote (peer instruction): every member answers a quiz
 * privately; the latest ballot of each member counts until the tally, which
 * closes the vote when every ACTIVE member voted (and at least two did) or when
 * the vote's timer ends. The tally becomes the quiz's tool result (per member:
 * id, name, answer, correct); a split check vote is re-opened as a revote of
 * the same question after the teacher's discussion turn (at most once).
 *
 * Active members: the learner and the starter, plus everyone who wrote in the
 * thread, answered a question or voted in this lesson (derived from the
 * transcript and the open ballots). The timer starts with a vote's first ballot
 * (its deadline is saved with it, so a restart re-arms it: a vote always closes).
 * Asks are not voted (first answer wins); solo lessons never vote.
 */

import type { AnswerResult, Participant, TutorEvent, VoteAck } from "../../core/contracts/events.ts";
import type { QuizToolInput } from "../../core/question-core.ts";
import {
	type Ballot,
	castBallot,
	everyoneVoted,
	groupCorrect,
	type MemberResult,
	normalizeGroupSettings,
	tallyVote,
} from "../../core/votes.ts";
import type { LessonMessage, SessionRecord } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import { displayQuiz } from "./display.ts";
import { recordAnswer } from "./learner-results.ts";
import type { StepContent } from "./model-step.ts";
import { saveUntilStored } from "./persist.ts";
import { questionEvent } from "./question-events.ts";
import { appendAssistantParts } from "./record-edit.ts";
import type { SessionState } from "./session-state.ts";
import { findToolCall, toolParts } from "./transcript.ts";

/** The tool call id suffix of a revote (the re-opened copy of a split question). */
export const REVOTE_SUFFIX = "~revote";
/** What the model hears when it asks a new question while a revote is due. */
export const REVOTE_HOLD_TEXT =
	"A revote of the split question comes first: discuss the split in a short message (no new question), then end your turn; the same question re-opens for a revote by itself.";

/** The timer functions the votes run on (injected in tests). */
export interface TimerFunctions {
	setTimeout(fire: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

/** Armed vote timers, by key. */
export interface VoteTimers {
	/** Arm `key` (no-op when armed). */
	arm(key: string, ms: number, fire: () => void): void;
	clear(key: string): void;
	clearAll(): void;
}

/** Longest single wait (setTimeout's limit); a later deadline re-arms. */
const MAX_WAIT_MS = 2 ** 31 - 1;

/** Vote timers on `timers` (default: the process's, unref'd so a pending vote never holds the process open). */
export function createVoteTimers(timers?: TimerFunctions): VoteTimers {
	const fns: TimerFunctions = timers ?? {
		setTimeout: (fire, ms) => setTimeout(fire, ms).unref(),
		clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
	};
	const armed = new Map<string, unknown>();
	return {
		arm(key, ms, fire) {
			if (armed.has(key)) return;
			const handle = fns.setTimeout(
				() => {
					armed.delete(key);
					fire();
				},
				Math.max(0, Math.min(ms, MAX_WAIT_MS)),
			);
			armed.set(key, handle);
		},
		clear(key) {
			if (armed.has(key)) fns.clearTimeout(armed.get(key));
			armed.delete(key);
		},
		clearAll() {
			for (const handle of armed.values()) fns.clearTimeout(handle);
			armed.clear();
		},
	};
}

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

/** The ids of the lesson's active members (see the header). */
export function activeMembers(record: SessionRecord): Set<string> {
	const ids = new Set([record.learner.id, record.startedBy.id]);
	for (const m of record.messages) {
		if (m.role === "user" && m.metadata?.kind === "learner" && m.metadata.by) ids.add(m.metadata.by.id);
		if (m.role !== "assistant") continue;
		for (const part of m.parts) {
			const output = (part as { state?: string; output?: AnswerResult }).output;
			if ((part as { state?: string }).state !== "output-available" || typeof output !== "object" || !output) continue;
			if (Array.isArray(output.vote?.members)) for (const v of output.vote.members) ids.add(v.id);
			else if (typeof output.by?.id === "string" && output.skipped !== true) ids.add(output.by.id);
		}
	}
	for (const vote of Object.values(record.votes ?? {})) for (const b of vote.ballots) ids.add(b.by.id);
	return ids;
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
	if (everyoneVoted(activeMembers(record), ballots)) return closeVote(ctx, state, toolCallId, false);
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
	const namesShown = normalizeGroupSettings(record.group).showNames;
	const vote = tallyVote(open.ballots, { check: quiz?.type === "check", round, timedOut, namesShown });
	const correct = groupCorrect(vote);
	const n = vote.voters;
	const result: AnswerResult = {
		answer: vote.counts[0]?.answer ?? "",
		...(correct !== undefined ? { correct } : {}),
		// The group answers; the starter's id keeps budgets and payers on a real member.
		by: { id: record.startedBy.id, name: `the group (${n} ${n === 1 ? "vote" : "votes"})` },
		vote: {
			...vote,
			...(vote.revote
				? {
						next: "The vote split. Discuss it: say why each chosen answer is tempting and ask the group to think again, without giving the answer. The same question re-opens for a revote after your message.",
					}
				: {}),
		},
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

/** The split question whose revote is due (the latest question was a split first-round vote not yet revoted). */
export function revotePending(
	messages: readonly LessonMessage[],
): { toolCallId: string; input: unknown; messageIndex: number } | undefined {
	let last: { toolCallId: string; input: unknown; output: unknown; state: string } | undefined;
	// Refused calls (output-error) asked nobody anything: they do not count as the latest question.
	for (const part of toolParts(messages))
		if ((part.type === "tool-quiz" || part.type === "tool-ask") && part.state !== "output-error")
			last = { toolCallId: part.toolCallId, input: part.input, output: part.output, state: part.state };
	if (last?.state !== "output-available") return undefined;
	if ((last.output as AnswerResult | undefined)?.vote?.revote !== true) return undefined;
	if (last.toolCallId.endsWith(REVOTE_SUFFIX)) return undefined;
	const found = findToolCall(messages, last.toolCallId);
	return found ? { toolCallId: last.toolCallId, input: last.input, messageIndex: found.messageIndex } : undefined;
}

/** While a revote is due, the model's new questions are refused (it discusses first); other content passes. */
export function holdQuestionsForRevote(
	messages: readonly LessonMessage[],
	isLearnerTool: (name: string) => boolean,
	content: StepContent[],
): StepContent[] {
	if (!revotePending(messages)) return content;
	return content.map((c) =>
		c.type === "tool-call" && c.refused === undefined && isLearnerTool(c.toolName)
			? { ...c, refused: REVOTE_HOLD_TEXT }
			: c,
	);
}

/**
 * After the teacher's turn: when a revote is due and the teacher discussed the split (it wrote
 * something after the tally), re-open the same question as a revote (persist, then publish).
 */
export async function openRevoteIfDue(ctx: EngineContext, state: SessionState): Promise<void> {
	const record = state.record;
	const due = revotePending(record.messages);
	if (!due) return;
	const discussed = record.messages
		.slice(due.messageIndex + 1)
		.some((m) => m.role === "assistant" && m.parts.some((p) => p.type === "text" && p.text.trim() !== ""));
	if (!discussed) return;
	const toolCallId = `${due.toolCallId}${REVOTE_SUFFIX}`;
	const event = questionEvent(record, "quiz", toolCallId, due.input);
	if (!event) return;
	const last = record.messages.at(-1);
	const draft = last?.role === "assistant" ? last.id : undefined;
	appendAssistantParts(
		record,
		draft,
		[{ type: "step-start" }, { type: "tool-quiz", toolCallId, state: "input-available", input: due.input } as never],
		() => ({
			id: ctx.newId(),
			role: "assistant",
			metadata: { kind: "tutor", agent: "teacher", at: ctx.now().toISOString() },
			parts: [],
		}),
	);
	record.unpublished = [toolCallId];
	await saveUntilStored(ctx, state);
	await ctx.hub.emit(event);
	delete record.unpublished;
	state.dirty = true;
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
