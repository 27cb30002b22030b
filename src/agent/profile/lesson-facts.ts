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
 */

import type { Participant } from "../../core/contracts/events.ts";
import { derivePlanMastery, type NodeMastery, quizCallType } from "../../core/mastery.ts";
import { isAnswer, outcomeOf } from "../../core/outcome.ts";
import { findAssessment } from "../../core/phases.ts";
import { parseQuizInput } from "../../core/tool-parts.ts";
import { latestPlanTree, toolParts } from "../engine/transcript.ts";
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

/** The community part of a session id (`discord:<guild>:…`, `slack:<team>:…`); "" for the terminal. */
export function communityOf(sessionId: string): string {
	const [platform, community] = sessionId.split(":");
	return platform === "terminal" || community === undefined ? "" : community;
}

/**
 * A learner's profile key: Discord user ids are global (`discord:<user>`), Slack ids
 * are per team (`slack:<team>:<user>`), the terminal's per machine (`terminal:<user>`).
 */
export function learnerKeyOf(sessionId: string, learner: Participant): string {
	const [platform = "terminal", community = ""] = sessionId.split(":");
	return platform === "slack" ? `slack:${community}:${learner.id}` : `${platform}:${learner.id}`;
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

/** The facts of a lesson from its stored record. Pure; linear in the transcript. */
export function lessonFacts(record: SessionRecord): LessonFacts {
	const tree = latestPlanTree(record.messages);
	const mastery = tree ? derivePlanMastery(tree, record.messages) : {};
	const labels = new Map(tree?.nodes.map((n) => [n.id, n.title]) ?? []);
	let answered = 0;
	let firstTry = 0;
	const seeds = new Map<string, ReviewSeed>();
	for (const part of toolParts(record.messages)) {
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
