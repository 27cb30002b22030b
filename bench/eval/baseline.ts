/**
 * The baseline: the same learners against a plain "you are a helpful tutor" chat on the same model,
 * with no tools, no probe and no engine. The learners read each reply and answer its last question
 * in their own words from their hidden state (learner.ts); a reply with no question gets "ok, go on".
 * Bounded: MAX_BASELINE_TURNS replies, each with a timeout.
 */

import { generateText, type LanguageModel, type ModelMessage } from "ai";
import type { RunResult } from "./drive.ts";
import type { SimLearner } from "./learner.ts";
import type { TutorTurn } from "./measures.ts";
import { learnersOf, type Persona } from "./personas.ts";
import { nodeAbout, sentencesOf, topicOf } from "./topics.ts";

/** The baseline's whole system prompt. */
export const BASELINE_SYSTEM = "You are a helpful tutor.";

/** Replies the baseline asks for per learner. */
export const MAX_BASELINE_TURNS = 12;

/** Run `persona` against the plain chat; its turns are returned next to the run (there is no transcript record). */
export async function runBaseline(
	model: LanguageModel,
	persona: Persona,
	seed: string,
	maxTurns = MAX_BASELINE_TURNS,
): Promise<{ run: RunResult; turns: TutorTurn[] }> {
	const learners = learnersOf(persona, seed);
	const lead = learners[0] as SimLearner;
	const topic = topicOf(persona.topic);
	const messages: ModelMessage[] = [{ role: "user", content: `I'd like to learn ${topic.request}.` }];
	const turns: TutorTurn[] = [];
	let tokens = 0;
	let lastWrong = false;
	for (let i = 0; i < maxTurns; i++) {
		const reply = await generateText({
			model,
			system: BASELINE_SYSTEM,
			messages,
			maxOutputTokens: 800,
			maxRetries: 1,
			abortSignal: AbortSignal.timeout(120_000),
		});
		tokens += (reply.usage.inputTokens ?? 0) + (reply.usage.outputTokens ?? 0);
		const text = reply.text.trim();
		messages.push({ role: "assistant", content: text });
		const question = sentencesOf(text)
			.filter((s) => s.endsWith("?"))
			.at(-1);
		turns.push({ agent: "tutor", text, question: /\?\s*$/.test(text), afterWrong: lastWrong });
		for (const l of learners) l.hear(text);
		if (!question) {
			messages.push({ role: "user", content: "ok, go on" });
			continue;
		}
		const node = nodeAbout(topic, question);
		const answer = lead.reply(question);
		lastWrong = node !== undefined && lead.state.get(node.id) !== "known";
		// Answering a question about an explained idea is the same retrieval practice as a quiz.
		for (const l of learners) {
			const state = node ? l.state.get(node.id) : undefined;
			l.attempted({
				...(node ? { node: node.id } : {}),
				text: answer,
				intends: state === "known" ? "right" : state === "misconception" ? "wrong" : "unknown",
				copied: false,
			});
		}
		messages.push({ role: "user", content: answer });
	}
	const run: RunResult = {
		persona,
		learners,
		atAssessment: [],
		quizzes: [],
		probeQuestions: 0,
		messages: [],
		events: [],
		typed: { answers: 0, judged: 0, questions: 0, keptOpen: 0 },
		judged: { graded: 0, agreed: 0, unsure: 0 },
		tokens,
		actions: turns.length,
		ended: true,
	};
	return { run, turns };
}
