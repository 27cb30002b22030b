/**
 * One persona through one lesson on a tutor engine (the real engine: prober, teacher, tools,
 * grading, struggle, votes). The learners read every tutor event in order (learner.ts) and answer
 * each open question from their hidden state; what happened is kept for measures.ts. Bounded by a
 * count of learner actions, never by time: a lesson with no question open for three actions in a
 * row is ended by the learner.
 */

import type { LessonMessage, SessionStore } from "../../src/agent/store/types.ts";
import { type AnswerKey, leaksAnswer } from "../../src/core/answer-leaks.ts";
import type { LearnerEvent, Participant, TutorEvent } from "../../src/core/contracts/events.ts";
import type { ProbeAssessment } from "../../src/core/contracts/probe.ts";
import type { Tutor } from "../../src/core/contracts/tutor.ts";
import type { NodeState, SimLearner } from "./learner.ts";
import { learnersOf, type Persona } from "./personas.ts";
import { topicOf } from "./topics.ts";

/** One quiz as the learners met it. */
export interface QuizLog {
	toolCallId: string;
	phase: "probe" | "teach";
	node?: string;
	/** The tutor's words gave its answer away before the first attempt. */
	leaked: boolean;
	/** What the (first) learner meant by its first answer. */
	intends?: "right" | "wrong" | "unknown";
}

/** What one run showed, for the measures (the baseline fills the same shape). */
export interface RunResult {
	persona: Persona;
	learners: SimLearner[];
	assessment?: ProbeAssessment;
	/** Each learner's hidden state when the assessment came. */
	atAssessment: Array<ReadonlyMap<string, NodeState>>;
	quizzes: QuizLog[];
	probeQuestions: number;
	/** The transcript (engine runs): the tutor's turns are read from it. */
	messages: LessonMessage[];
	events: TutorEvent[];
	/** Typed answers (messages) and how many were judged as an answer; typed questions and how many kept the quiz open. */
	typed: { answers: number; judged: number; questions: number; keptOpen: number };
	/** Solo answers with a verdict, how many matched what the learner meant, how many were left undecided. */
	judged: { graded: number; agreed: number; unsure: number };
	tokens: number;
	actions: number;
	ended: boolean;
}

/** How many learner actions a lesson may take at most. */
export const MAX_ACTIONS = 80;

const keyOf = (input: { correctAnswer: string; acceptedAnswers?: string[]; options?: string[] }): AnswerKey => ({
	correctAnswer: input.correctAnswer,
	acceptedAnswers: input.acceptedAnswers,
	options: input.options,
});

/** Run `persona` through a new lesson; `seed` fixes every roll of its learners. */
export async function drivePersona(
	tutor: Tutor,
	store: SessionStore,
	persona: Persona,
	seed: string,
	sessionId: string,
	maxActions = MAX_ACTIONS,
): Promise<RunResult> {
	const learners = learnersOf(persona, seed);
	const people: Participant[] = learners.map((l) => ({ id: `sim-${persona.name}-${l.name}`, name: l.name }));
	const starter = people[0] as Participant;
	const group = learners.length > 1;
	const events: TutorEvent[] = [];
	const unsubscribe = tutor.subscribe((e) => {
		if (e.sessionId === sessionId) events.push(e);
	});
	const result: RunResult = {
		persona,
		learners,
		atAssessment: [],
		quizzes: [],
		probeQuestions: 0,
		messages: [],
		events,
		typed: { answers: 0, judged: 0, questions: 0, keptOpen: 0 },
		judged: { graded: 0, agreed: 0, unsure: 0 },
		tokens: 0,
		actions: 0,
		ended: false,
	};
	let cursor = 0;
	let heard = ""; // tutor words since the last answer
	const nodeTags = new Map<string, string>();
	const logged = new Map<string, QuizLog>();
	const asked = new Set<string>();
	const helped = new Set<string>();
	/** The learners read what the tutor said since last time. */
	const absorb = (): void => {
		for (; cursor < events.length; cursor++) {
			const e = events[cursor] as TutorEvent;
			const words =
				e.type === "text" || e.type === "hint"
					? e.text
					: e.type === "explain"
						? `${e.input.title ?? ""}\n${e.input.body}`
						: undefined;
			if (words !== undefined) {
				for (const l of learners) l.hear(words);
				heard += `\n${words}`;
			} else if (e.type === "assessment" && !result.assessment) {
				result.assessment = e.assessment;
				result.atAssessment = learners.map((l) => new Map(l.state));
			} else if (e.type === "quiz" && e.nodeId) nodeTags.set(e.toolCallId, e.nodeId);
			if ((e.type === "quiz" || e.type === "ask") && !e.again && !e.replay && !result.assessment)
				result.probeQuestions++;
		}
	};
	const act = async (event: LearnerEvent): Promise<number> => {
		const before = events.length;
		result.actions++;
		const verdict = await tutor.handle(sessionId, event);
		if (!verdict.ok && event.type !== "message" && event.type !== "end")
			await tutor.handle(sessionId, { type: "message", text: "next question please", by: event.by });
		await tutor.idle(sessionId);
		return before;
	};
	try {
		const started = await tutor.startLesson({
			sessionId,
			topic: topicOf(persona.topic).request,
			learner: starter,
			mode: group ? "group" : "solo",
		});
		if (!started.ok) throw new Error(`the lesson did not start: ${started.message}`);
		let idle = 0;
		while (result.actions < maxActions) {
			await tutor.idle(sessionId);
			absorb();
			const summary = await tutor.getSession(sessionId);
			if (!summary || summary.phase === "ended") break;
			const pending = summary.pending[0];
			if (!pending?.input) {
				if (++idle >= 3) {
					await act({ type: "end", by: starter });
					break;
				}
				await act({ type: "message", text: "go on", by: starter });
				continue;
			}
			idle = 0;
			const id = pending.toolCallId;
			const lead = learners[0] as SimLearner;
			if (pending.kind === "ask") {
				const input = pending.input;
				const options = input.options ?? [];
				await act(
					options.length > 0
						? { type: "answer", toolCallId: id, value: 0, by: starter }
						: { type: "reply", toolCallId: id, text: lead.reply(input.question), by: starter },
				);
				heard = "";
				continue;
			}
			const input = pending.input;
			// A question of its own while the quiz is open, at the persona's rate (once per quiz).
			const ask = persona.asks > 0 && !asked.has(id) && lead.chance(persona.asks);
			asked.add(id);
			if (ask) {
				const from = await act({ type: "message", text: "wait, why does that matter here?", by: starter });
				const after = events.slice(from);
				result.typed.questions++;
				const tried = after.some((e) => (e.type === "answered" || e.type === "attempt") && e.toolCallId === id);
				const still = (await tutor.getSession(sessionId))?.pending.some((p) => p.toolCallId === id) === true;
				const offered = after.some((e) => e.type === "quiz" && e.toolCallId === id && e.again);
				if (!tried && still && offered) result.typed.keptOpen++;
				continue;
			}
			if (persona.help && !helped.has(id) && result.assessment) {
				helped.add(id);
				await act({ type: "help", toolCallId: id, kind: persona.help, by: starter });
				continue;
			}
			const key = keyOf(input);
			const leaked = key.correctAnswer.trim() !== "" && leaksAnswer(heard, key);
			const seen = { ...input, ...(nodeTags.get(id) ? { nodeId: nodeTags.get(id) } : {}) };
			const order = group ? [...learners.keys()].slice(1).concat(0) : [0];
			let first: ReturnType<SimLearner["answer"]> | undefined;
			let from = events.length;
			for (const i of order) {
				const learner = learners[i] as SimLearner;
				const by = people[i] as Participant;
				const answer = learner.answer(seen, leaked);
				if (i === 0) first = answer;
				const event: LearnerEvent =
					persona.types && !group
						? { type: "message", text: answer.text || "I don't know", by }
						: answer.option !== undefined
							? { type: "answer", toolCallId: id, value: answer.option, by }
							: { type: "reply", toolCallId: id, text: answer.text, by };
				const at = await act(event);
				if (i === 0) from = at;
				learner.attempted(answer);
			}
			heard = "";
			if (!logged.has(id)) {
				const log: QuizLog = {
					toolCallId: id,
					phase: result.assessment ? "teach" : "probe",
					leaked,
					...(first?.node ? { node: first.node } : {}),
					...(first ? { intends: first.intends } : {}),
				};
				logged.set(id, log);
				result.quizzes.push(log);
			}
			if (group || !first) continue;
			const verdict = events
				.slice(from)
				.find((e) => (e.type === "answered" && !e.checking && e.toolCallId === id) || e.type === "attempt");
			const correct =
				verdict?.type === "attempt" ? false : verdict?.type === "answered" ? verdict.result.correct : undefined;
			if (persona.types) {
				result.typed.answers++;
				if (verdict) result.typed.judged++;
			}
			if (!verdict) continue;
			result.judged.graded++;
			if (correct === undefined) result.judged.unsure++;
			else if (correct === (first.intends === "right")) result.judged.agreed++;
		}
		await tutor.idle(sessionId);
		absorb();
	} finally {
		unsubscribe();
	}
	const record = await store.get(sessionId);
	result.messages = record?.messages ?? [];
	result.ended = record?.ended !== undefined;
	const summary = await tutor.getSession(sessionId);
	result.tokens = (summary?.usage.inputTokens ?? 0) + (summary?.usage.outputTokens ?? 0);
	return result;
}
