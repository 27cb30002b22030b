/**
 * Outcome and behaviour measures of one run, from the transcript and the learners' hidden state
 * (what each number means and cannot tell: docs/evaluation.md).
 */

import type { LessonMessage } from "../../src/agent/store/types.ts";
import { type AnswerKey, leaksAnswer } from "../../src/core/answer-leaks.ts";
import type { RunResult } from "./drive.ts";
import { cueHits } from "./topics.ts";

/** One tutor turn (an assistant message), as the rubric and the scaffolding share read it. */
export interface TutorTurn {
	agent: "prober" | "teacher" | "tutor";
	/** What the learner read: the texts and accepted explanations, in order. */
	text: string;
	/** It handed the learner a question (a quiz or ask call, or text ending in a question mark). */
	question: boolean;
	/** The quiz it posed (its answer must not show before the learner tries). */
	key?: AnswerKey;
	/** The learner's last answer before this turn was judged wrong. */
	afterWrong: boolean;
}

/** Measures of one persona's run. */
export interface PersonaMeasures {
	persona: string;
	topic: string;
	diagnosis_accuracy: number;
	learning_gain: number;
	misconceptions_repaired: number;
	misconceptions_held: number;
	nodes_learned: number;
	turns_per_node_learned: number | null;
	tokens_per_node_learned: number | null;
	revealed_before_attempt: number;
	quizzes: number;
	scaffolding_share: number;
	typed_judged_share: number | null;
	mid_quiz_kept_open_share: number | null;
	judged_agreement: number | null;
	recall_at_end: number;
	probe_questions: number;
	tutor_turns: number;
	ended: boolean;
}

/** Words in an assessment that say an idea is not there yet. */
const NOT_YET =
	/\b(not yet|did not|didn't|doesn't|does not|needs?|reminder|unsure|not sure|confus\w*|misconceptions?|gaps?|weak|start from|struggl\w*|unknown|no idea|lacks?|missing|wrong|incorrect|shaky|new to|unfamiliar|not know|don't know|isn't|beginner)\b/i;

const round = (x: number, places = 3): number => Math.round(x * 10 ** places) / 10 ** places;

interface ToolPart {
	type: string;
	state?: string;
	input?: unknown;
	output?: unknown;
}

/** The tutor's turns of a transcript, in order. */
export function tutorTurns(messages: readonly LessonMessage[]): TutorTurn[] {
	const turns: TutorTurn[] = [];
	let lastWrong = false;
	for (const m of messages) {
		if (m.role !== "assistant") continue;
		let text = "";
		let question = false;
		let key: AnswerKey | undefined;
		const afterWrong = lastWrong;
		for (const raw of m.parts) {
			const part = raw as ToolPart & { text?: string };
			if (part.type === "text" && typeof part.text === "string") {
				text += `\n${part.text}`;
				question = /\?\s*$/.test(part.text.trim());
				continue;
			}
			if (!part.type.startsWith("tool-") || part.state === "output-error") continue;
			const input = (part.input ?? {}) as { body?: unknown; title?: unknown; correctAnswer?: unknown };
			if (part.type === "tool-explain" && typeof input.body === "string") {
				text += `\n${typeof input.title === "string" ? input.title : ""}\n${input.body}`;
				question = false;
			} else if (part.type === "tool-quiz" || part.type === "tool-ask") {
				question = true;
				if (part.type === "tool-quiz" && typeof input.correctAnswer === "string" && !key) {
					const i = input as { correctAnswer: string; acceptedAnswers?: string[]; options?: string[] };
					key = { correctAnswer: i.correctAnswer, acceptedAnswers: i.acceptedAnswers, options: i.options };
				}
				const output = part.output as { correct?: unknown } | undefined;
				if (part.type === "tool-quiz" && output) lastWrong = output.correct === false;
			}
		}
		if (text.trim() === "" && !question) continue;
		const agent = m.metadata?.agent ?? "tutor";
		turns.push({ agent, text: text.trim(), question, ...(key ? { key } : {}), afterWrong });
	}
	return turns;
}

/** A turn that is a scaffolding question: it hands the learner a question and gives no answer away. */
export function isScaffolding(turn: TutorTurn): boolean {
	return turn.question && !(turn.key && leaksAnswer(turn.text, turn.key));
}

/** Per node of each learner: did the assessment's best-matching strand call it known as it was? */
function diagnosisAccuracy(run: RunResult): number {
	const strands = run.assessment?.strands ?? [];
	let right = 0;
	let total = 0;
	run.learners.forEach((learner, i) => {
		const state = run.atAssessment[i] ?? learner.initial;
		for (const node of learner.topic.nodes) {
			total++;
			let best: { assessment: string } | undefined;
			let most = 0;
			for (const s of strands) {
				const hits = cueHits(node, `${s.strand}\n${s.assessment}`);
				if (hits > most) {
					best = s;
					most = hits;
				}
			}
			if (!best) continue;
			const saysKnown = !NOT_YET.test(best.assessment);
			if (saysKnown === (state.get(node.id) === "known")) right++;
		}
	});
	return total === 0 ? 0 : right / total;
}

/** Every measure of one run. */
export function measureRun(run: RunResult, turns: TutorTurn[] = tutorTurns(run.messages)): PersonaMeasures {
	const learners = run.learners;
	const mean = (f: (l: (typeof learners)[number]) => number): number =>
		learners.reduce((s, l) => s + f(l), 0) / Math.max(1, learners.length);
	const gain = mean((l) => l.knownShare() - l.knownShare(l.initial));
	const learned = learners.reduce((s, l) => s + l.learned().length, 0);
	const held = learners.reduce((s, l) => s + [...l.initial.values()].filter((v) => v === "misconception").length, 0);
	const repaired = learners.reduce((s, l) => s + l.repaired.length, 0);
	const lead = learners[0];
	const knownAtEnd = lead ? lead.topic.nodes.filter((n) => lead.state.get(n.id) === "known").length : 0;
	const recall = lead?.askedToRecall && knownAtEnd > 0 ? lead.recalled.length / knownAtEnd : 0;
	const share = (n: number, of: number): number | null => (of === 0 ? null : round(n / of));
	return {
		persona: run.persona.name,
		topic: run.persona.topic,
		diagnosis_accuracy: round(diagnosisAccuracy(run)),
		learning_gain: round(gain),
		misconceptions_repaired: repaired,
		misconceptions_held: held,
		nodes_learned: learned,
		turns_per_node_learned: learned === 0 ? null : round(turns.length / learned, 1),
		tokens_per_node_learned: learned === 0 ? null : Math.round(run.tokens / learned),
		revealed_before_attempt: run.quizzes.filter((q) => q.leaked).length,
		quizzes: run.quizzes.length,
		scaffolding_share: turns.length === 0 ? 0 : round(turns.filter(isScaffolding).length / turns.length),
		typed_judged_share: share(run.typed.judged, run.typed.answers),
		mid_quiz_kept_open_share: share(run.typed.keptOpen, run.typed.questions),
		judged_agreement: share(run.judged.agreed, run.judged.graded),
		recall_at_end: round(recall),
		probe_questions: run.probeQuestions,
		tutor_turns: turns.length,
		ended: run.ended,
	};
}

/** The median of some numbers (null when none). */
export function median(values: readonly (number | null)[]): number | null {
	const xs = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
	if (xs.length === 0) return null;
	const mid = Math.floor(xs.length / 2);
	return xs.length % 2 === 1 ? (xs[mid] as number) : round(((xs[mid - 1] as number) + (xs[mid] as number)) / 2);
}

/** The overall numbers of a set of persona measures: means of shares, sums of counts. */
export function overall(ms: readonly PersonaMeasures[]) {
	const mean = (f: (m: PersonaMeasures) => number) => round(ms.reduce((s, m) => s + f(m), 0) / Math.max(1, ms.length));
	return {
		diagnosis_accuracy: mean((m) => m.diagnosis_accuracy),
		learning_gain: mean((m) => m.learning_gain),
		misconceptions_repaired: ms.reduce((s, m) => s + m.misconceptions_repaired, 0),
		misconceptions_held: ms.reduce((s, m) => s + m.misconceptions_held, 0),
		revealed_before_attempt: ms.reduce((s, m) => s + m.revealed_before_attempt, 0),
		scaffolding_share: mean((m) => m.scaffolding_share),
		recall_at_end: mean((m) => m.recall_at_end),
		turns_per_node_learned: median(ms.map((m) => m.turns_per_node_learned)),
		tokens_per_node_learned: median(ms.map((m) => m.tokens_per_node_learned)),
	};
}
