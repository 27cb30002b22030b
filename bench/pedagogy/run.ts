/**
 * One persona through one lesson on a tutor, and what the run shows about the teaching:
 * probe questions before the assessment, plan nodes never taught, the share of teacher
 * turns that end in a question, answers given away before the learner tried, and how often
 * the tutor's verdict on a quiz agreed with what the learner meant.
 */

import type { SessionStore } from "../../src/agent/store/types.ts";
import type { TutorEvent } from "../../src/core/contracts/events.ts";
import type { Tutor } from "../../src/core/contracts/tutor.ts";
import type { Persona, Question } from "./personas.ts";

/** What one persona's lesson showed. */
export interface PersonaResult {
	persona: string;
	ended: boolean;
	probeQuestions: number;
	planNodes: number;
	nodesSkipped: number;
	teacherTurns: number;
	/** Share of the teacher's turns whose last call is a quiz or an ask (it handed the learner a question). */
	questionTurnShare: number;
	/** Quizzes whose correct answer stood in the tutor's words of the same turn, before the learner answered. */
	revealedBeforeAttempt: number;
	gradedAnswers: number;
	/** Share of graded quiz answers whose verdict matches the persona's intent ("unsure" counts as a miss). */
	judgedAgreement: number;
	unsure: number;
	learnerActions: number;
	/** Messages typed in the thread as answers, and how many were judged as the open question's answer. */
	typedAnswers: number;
	typedJudged: number;
	/** Questions typed mid-quiz, and how many left the quiz open (no result, offered again). */
	midQuizQuestions: number;
	keptOpen: number;
}

/** Most learner actions a run takes (a lesson that never ends still stops). */
const MAX_ACTIONS = 60;

/** Lower-case words of a text, for "does it contain this answer" checks. */
const words = (text: string): string => ` ${text.toLowerCase().replace(/[^a-z0-9/.]+/g, " ")} `;

/** Run `persona` through a new lesson on `topic`; the store is read at the end for the transcript. */
export async function runPersona(
	tutor: Tutor,
	store: SessionStore,
	persona: Persona,
	topic: string,
	sessionId: string,
): Promise<PersonaResult> {
	const events: TutorEvent[] = [];
	const unsubscribe = tutor.subscribe((e) => {
		if (e.sessionId === sessionId) events.push(e);
	});
	const by = { id: `persona-${persona.name}`, name: persona.name };
	const intents = new Map<string, boolean>();
	let actions = 0;
	let seen = 0;
	const typed = { answers: 0, judged: 0, questions: 0, keptOpen: 0 };
	try {
		const started = await tutor.startLesson({ sessionId, topic, learner: by, mode: "solo" });
		if (!started.ok) throw new Error(`the lesson did not start: ${started.message}`);
		for (; actions < MAX_ACTIONS; actions++) {
			await tutor.idle(sessionId);
			const summary = await tutor.getSession(sessionId);
			if (!summary || summary.phase === "ended") break;
			const pending = summary.pending[0];
			if (!pending?.input) {
				await tutor.handle(sessionId, { type: "message", text: "go on", by });
				continue;
			}
			const question = {
				type: pending.kind,
				sessionId,
				toolCallId: pending.toolCallId,
				input: pending.input,
			} as Question;
			const move = persona.move(question, seen++, by);
			if (move.intendsCorrect !== undefined) intents.set(question.toolCallId, move.intendsCorrect);
			const before = events.length;
			const verdict = await tutor.handle(sessionId, move.event);
			if (!verdict.ok) await tutor.handle(sessionId, { type: "message", text: "next question please", by });
			if (move.typed === undefined) continue;
			await tutor.idle(sessionId);
			const after = events.slice(before);
			const id = question.toolCallId;
			const resolvedOrTried = after.some((e) => (e.type === "answered" || e.type === "attempt") && e.toolCallId === id);
			if (move.typed === "answer") {
				typed.answers++;
				if (resolvedOrTried) typed.judged++;
			} else {
				typed.questions++;
				const still = (await tutor.getSession(sessionId))?.pending.some((p) => p.toolCallId === id) === true;
				const offered = after.some((e) => (e.type === "quiz" || e.type === "ask") && e.toolCallId === id && e.again);
				if (!resolvedOrTried && still && offered) typed.keptOpen++;
			}
		}
		await tutor.idle(sessionId);
	} finally {
		unsubscribe();
	}
	return {
		...measure(persona.name, events, intents, await store.get(sessionId), actions),
		typedAnswers: typed.answers,
		typedJudged: typed.judged,
		midQuizQuestions: typed.questions,
		keptOpen: typed.keptOpen,
	};
}

function measure(
	persona: string,
	events: TutorEvent[],
	intents: Map<string, boolean>,
	record: Awaited<ReturnType<SessionStore["get"]>>,
	actions: number,
): Omit<PersonaResult, "typedAnswers" | "typedJudged" | "midQuizQuestions" | "keptOpen"> {
	const assessedAt = events.findIndex((e) => e.type === "assessment");
	const probeQuestions = events
		.slice(0, assessedAt < 0 ? events.length : assessedAt)
		.filter((e) => (e.type === "quiz" || e.type === "ask") && e.again !== true).length;

	let planNodes = 0;
	const everCurrent = new Set<string>();
	let saidThisTurn = "";
	let revealed = 0;
	let graded = 0;
	let agreed = 0;
	let unsure = 0;
	for (const e of events) {
		if (e.type === "plan") {
			planNodes = e.tree.nodes.length;
			if (e.statuses.current) everCurrent.add(e.statuses.current);
		} else if (e.type === "typing" && e.active) saidThisTurn = "";
		else if (e.type === "text") saidThisTurn += ` ${e.text}`;
		else if (e.type === "explain") saidThisTurn += ` ${e.input.body}`;
		else if (e.type === "quiz") {
			if (e.nodeId) everCurrent.add(e.nodeId);
			const answer = e.input.correctAnswer.trim();
			if (answer.length >= 2 && words(saidThisTurn).includes(words(answer))) revealed++;
		} else if (e.type === "answered" && e.kind === "quiz" && e.result.skipped !== true && e.checking !== true) {
			// (A "checking" state is not a verdict: the grader's follows for the same question.)
			const intent = intents.get(e.toolCallId);
			if (intent === undefined) continue;
			graded++;
			if (e.result.correct === undefined) unsure++;
			else if (e.result.correct === intent) agreed++;
		}
	}

	let teacherTurns = 0;
	let questionTurns = 0;
	for (const m of record?.messages ?? []) {
		if (m.role !== "assistant" || m.metadata?.agent !== "teacher") continue;
		const calls = m.parts.filter((p) => p.type.startsWith("tool-"));
		if (calls.length === 0 && !m.parts.some((p) => p.type === "text")) continue;
		teacherTurns++;
		const last = calls.at(-1)?.type;
		if (last === "tool-quiz" || last === "tool-ask") questionTurns++;
	}

	return {
		persona,
		ended: record?.ended !== undefined,
		probeQuestions,
		planNodes,
		nodesSkipped: Math.max(0, planNodes - everCurrent.size),
		teacherTurns,
		questionTurnShare: teacherTurns === 0 ? 0 : questionTurns / teacherTurns,
		revealedBeforeAttempt: revealed,
		gradedAnswers: graded,
		judgedAgreement: graded === 0 ? 0 : agreed / graded,
		unsure,
		learnerActions: actions,
	};
}
