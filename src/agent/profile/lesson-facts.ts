/**
 * What a finished lesson leaves in the learner's profile, derived from its
 * transcript (never from anything the model or the adapters stored beside it):
 * topic, dates, outcome, per-node mastery (core/mastery.ts), the counts the
 * admin report shows, the misconceptions the probe named, and one review seed
 * per checked node (its latest check question, answer included).
 *
 * Counting rules (the report test recomputes them from the transcript):
 *   answered: quiz results that are answers (core/outcome.ts isAnswer: graded,
 *             or "not sure"; skipped and undecided ones are not);
 *   firstTry: answered ones whose outcome is "first-try" (the same rule that
 *             makes a node "learned").
 *
 * Group lessons: every participant gets their own facts, read from their own
 * ballots (memberMessages): a vote's result becomes the member's own answer,
 * a revote after their own wrong first ballot counts as a second try, and a
 * vote they did not cast is no answer of theirs. The group's verdict (the
 * lesson's map) is for the thread; a profile holds what its learner did.
 */

import { ANONYMOUS_PARTICIPANT, type AnswerResult, type Participant } from "../../core/contracts/events.ts";
import { communityOf, platformOf } from "../../core/contracts/thread-id.ts";
import { derivePlanMastery, type NodeMastery, quizCallType } from "../../core/mastery.ts";
import { isAnswer, outcomeOf } from "../../core/outcome.ts";
import { findAssessment } from "../../core/phases.ts";
import { parseQuizInput } from "../../core/tool-parts.ts";
import { latestPlanTree, toolParts } from "../../core/transcript.ts";
import { REVOTE_SUFFIX } from "../../core/votes.ts";
import type { LessonMessage, SessionRecord } from "../store/types.ts";

/** A check question kept for review. */
export interface ReviewSeed {
	nodeId: string;
	label: string;
	question: string;
	correctAnswer: string;
	options?: string[];
	acceptedAnswers?: string[];
	/** Why the answer is right (the quiz's explanation): the review's line when it is missed. */
	explanation?: string;
	mastery: Exclude<NodeMastery, "not-yet">;
}

/** One node of a lesson's map, with its derived mastery at the lesson's end. */
export interface NodeFact {
	id: string;
	label: string;
	mastery: NodeMastery;
}

/** The profile's record of one lesson. */
export interface LessonFacts {
	sessionId: string;
	topic: string;
	/** The community (guild, team) from the session id; "" in the terminal. */
	community: string;
	startedAt: string;
	endedAt?: string;
	outcome: "completed" | "ended-by-user" | "ended-by-admin" | "open";
	questionsAnswered: number;
	firstTryCorrect: number;
	nodes: NodeFact[];
	misconceptions: string[];
	seeds: ReviewSeed[];
}

/** Longest misconception line kept (the prober's assessments may be long). */
const MISCONCEPTION_MAX_CHARS = 200;
const MISCONCEPTION_WORDS = /misconcept|confus|mistak|thinks that|believes|mixes up|mix(?:es)? up|wrongly/i;

/**
 * A learner's profile key: Discord user ids are global (`discord:<user>`), Slack ids
 * are per team (`slack:<team>:<user>`), the terminal's per machine (`terminal:<user>`).
 */
export function learnerKeyOf(sessionId: string, learner: Participant): string {
	const platform = platformOf(sessionId);
	return platform === "slack" ? `${platform}:${communityOf(sessionId)}:${learner.id}` : `${platform}:${learner.id}`;
}

/** Sentences of the probe's assessment that name a misconception, cut to a line each. */
function misconceptionsOf(messages: readonly LessonMessage[]): string[] {
	const assessment = findAssessment(messages);
	if (!assessment) return [];
	const out: string[] = [];
	for (const strand of assessment.strands) {
		for (const sentence of strand.assessment.split(/(?<=[.!?;])\s+/)) {
			if (!MISCONCEPTION_WORDS.test(sentence)) continue;
			out.push(`${strand.strand}: ${sentence.trim()}`.slice(0, MISCONCEPTION_MAX_CHARS));
			if (out.length >= 8) return out;
		}
	}
	return out;
}

/** Everyone who took part in a lesson: the learner first, then whoever wrote, voted or answered, in order. */
export function lessonParticipants(record: SessionRecord): Participant[] {
	const byId = new Map<string, Participant>();
	const add = (who: { id?: unknown; name?: unknown } | undefined) => {
		if (typeof who?.id !== "string" || who.id === "" || who.id === ANONYMOUS_PARTICIPANT) return;
		const name = typeof who.name === "string" ? who.name : byId.get(who.id)?.name;
		byId.set(who.id, { id: who.id, ...(name !== undefined ? { name } : {}) });
	};
	add(record.learner);
	for (const m of record.messages) {
		if (m.role === "user" && m.metadata?.kind === "learner") add(m.metadata.by);
		if (m.role !== "assistant") continue;
		for (const part of m.parts) {
			const output = (part as { state?: string; output?: AnswerResult }).output;
			if ((part as { state?: string }).state !== "output-available" || typeof output !== "object" || !output) continue;
			if (Array.isArray(output.vote?.members)) for (const v of output.vote.members) add(v);
			else if (output.skipped !== true && !(part.type === "tool-quiz" && record.mode === "group")) add(output.by);
		}
	}
	return [...byId.values()];
}

/**
 * The transcript as one member of a group lesson lived it: each closed vote's result becomes their own
 * ballot's (answer, correct; a revote after their own wrong first ballot carries it as a try), and a vote
 * they did not cast is left unanswered. Other parts are kept as they are (new objects only where changed).
 */
export function memberMessages(messages: readonly LessonMessage[], memberId: string): LessonMessage[] {
	const missedFirst = new Map<string, string>();
	return messages.map((m) => {
		if (m.role !== "assistant") return m;
		let changed = false;
		const parts = m.parts.map((part) => {
			const p = part as { type: string; toolCallId?: string; state?: string; output?: AnswerResult };
			const members = p.output?.vote?.members;
			if (p.type !== "tool-quiz" || p.state !== "output-available" || !Array.isArray(members)) return part;
			changed = true;
			const id = p.toolCallId ?? "";
			const own = members.find((v) => v.id === memberId);
			const { output: _group, ...rest } = p;
			if (!own) return { ...rest, state: "input-available" } as unknown as typeof part;
			const revote = id.endsWith(REVOTE_SUFFIX);
			const before = revote ? missedFirst.get(id.slice(0, -REVOTE_SUFFIX.length)) : undefined;
			if (!revote && own.correct === false) missedFirst.set(id, own.answer);
			const output: AnswerResult = {
				answer: own.answer,
				...(own.correct !== undefined ? { correct: own.correct } : {}),
				...(before !== undefined ? { attempts: [{ answer: before, correct: false as const }] } : {}),
				by: { id: own.id, ...(own.name !== undefined ? { name: own.name } : {}) },
			};
			return { ...rest, output } as unknown as typeof part;
		});
		return changed ? { ...m, parts } : m;
	});
}

/**
 * The facts of a lesson from its stored record. Pure; linear in the transcript. `member`: in a group
 * lesson, that participant's own facts (their ballots); absent, or in a solo lesson, the lesson's as recorded.
 */
export function lessonFacts(record: SessionRecord, member?: Participant): LessonFacts {
	const messages = member && record.mode === "group" ? memberMessages(record.messages, member.id) : record.messages;
	const tree = latestPlanTree(messages);
	const mastery = tree ? derivePlanMastery(tree, messages) : {};
	const labels = new Map(tree?.nodes.map((n) => [n.id, n.title]) ?? []);
	let answered = 0;
	let firstTry = 0;
	const seeds = new Map<string, ReviewSeed>();
	for (const part of toolParts(messages)) {
		if (part.type !== "tool-quiz" || part.state !== "output-available") continue;
		const outcome = outcomeOf(part.output);
		if (!isAnswer(outcome)) continue;
		answered++;
		if (outcome.kind === "first-try") firstTry++;
		const verdict = outcome.kind === "first-try" ? "learned" : "shaky";
		const nodeId = (part.input as { nodeId?: unknown } | undefined)?.nodeId;
		if (typeof nodeId !== "string" || !labels.has(nodeId) || quizCallType(part.input) !== "check") continue;
		const input = parseQuizInput(part.input);
		if (!input) continue;
		seeds.set(nodeId, {
			nodeId,
			label: labels.get(nodeId) ?? nodeId,
			question: input.question,
			correctAnswer: input.correctAnswer,
			...(input.options && input.options.length > 0 ? { options: [...input.options] } : {}),
			...(input.acceptedAnswers && input.acceptedAnswers.length > 0
				? { acceptedAnswers: [...input.acceptedAnswers] }
				: {}),
			...(input.explanation ? { explanation: input.explanation } : {}),
			mastery: verdict,
		});
	}
	// A node's seed carries its final mastery (a later shaky check on another question still counts).
	for (const seed of seeds.values()) {
		const m = mastery[seed.nodeId];
		if (m === "learned" || m === "shaky") seed.mastery = m;
	}
	return {
		sessionId: record.sessionId,
		topic: record.topic,
		community: communityOf(record.sessionId),
		startedAt: record.createdAt,
		...(record.ended ? { endedAt: record.ended.at } : {}),
		outcome: record.ended?.reason ?? "open",
		questionsAnswered: answered,
		firstTryCorrect: firstTry,
		nodes: (tree?.nodes ?? []).map((n) => ({ id: n.id, label: n.title, mastery: mastery[n.id] ?? "not-yet" })),
		misconceptions: misconceptionsOf(record.messages),
		seeds: [...seeds.values()],
	};
}
