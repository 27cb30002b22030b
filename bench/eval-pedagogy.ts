/**
 * `npm run eval:pedagogy`: scripted learner personas (knows nothing, knows the basics, holds a
 * misconception, answers in sentences, types in the thread) through a lesson each, against the configured model (the
 * built-in demo by default; any OpenAI-compatible server with OPENAI_BASE_URL and
 * LEARNHARNESS_MODEL, or another provider: the same configuration as `learnharness start`).
 * Prints per persona: probe questions to the assessment, plan nodes skipped, the share of teacher
 * turns that end in a question, answers revealed before an attempt, and judged-answer agreement
 * with the persona's intent, the share of answers typed in the thread that were judged as answers, and
 * the share of questions asked mid-quiz that kept the quiz open. The last line is one JSON object. This is how an operator compares
 * models. Knob: EVAL_TOPIC (default "binary search").
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionStore } from "../src/agent/store/session-store.ts";
import { createTutor } from "../src/agent/tutor.ts";
import { jobModelsOf, modelOf } from "../src/cli/services.ts";
import { loadConfig } from "../src/config.ts";
import { PERSONAS } from "./pedagogy/personas.ts";
import { type PersonaResult, runPersona } from "./pedagogy/run.ts";

const { config } = loadConfig({ env: process.env });
const topic = process.env.EVAL_TOPIC ?? "binary search";
const dir = mkdtempSync(join(tmpdir(), "lh-eval-"));
const store = await createSessionStore(`sqlite://${join(dir, "eval.sqlite")}`);
const jobs = jobModelsOf(config);
const tutor = createTutor({ model: modelOf(config), ...(jobs ? { models: jobs } : {}), store, maxRetries: 2 });

const results: PersonaResult[] = [];
try {
	for (const [i, persona] of PERSONAS.entries()) {
		const started = performance.now();
		const result = await runPersona(tutor, store, persona, topic, `terminal:eval-${i}-${persona.name}`);
		results.push(result);
		const pct = (x: number) => `${Math.round(x * 100)}%`;
		const share = (n: number, of: number) => (of === 0 ? "-" : `${pct(n / of)} of ${of}`);
		console.log(
			`${persona.name.padEnd(14)} probe questions ${String(result.probeQuestions).padStart(2)} · nodes skipped ${result.nodesSkipped}/${result.planNodes} · teacher turns ending in a question ${pct(result.questionTurnShare)} (${result.teacherTurns}) · revealed before an attempt ${result.revealedBeforeAttempt} · judged agreement ${pct(result.judgedAgreement)} of ${result.gradedAnswers} (${result.unsure} unsure) · typed replies judged as answers ${share(result.typedJudged, result.typedAnswers)} · mid-quiz questions that kept the quiz open ${share(result.keptOpen, result.midQuizQuestions)} · ${result.ended ? "ended" : "not ended"} after ${result.learnerActions} actions, ${Math.round(performance.now() - started)} ms`,
		);
	}
} finally {
	await tutor.close();
	rmSync(dir, { recursive: true, force: true });
}

const mean = (f: (r: PersonaResult) => number) =>
	Math.round((results.reduce((s, r) => s + f(r), 0) / Math.max(1, results.length)) * 1000) / 1000;
const graded = results.reduce((s, r) => s + r.gradedAnswers, 0);
const agreed = results.reduce((s, r) => s + r.judgedAgreement * r.gradedAnswers, 0);
console.log(
	JSON.stringify({
		bench: "pedagogy",
		model: config.model.id,
		topic,
		personas: Object.fromEntries(
			results.map((r) => [
				r.persona,
				{
					probe_questions: r.probeQuestions,
					nodes_skipped: r.nodesSkipped,
					plan_nodes: r.planNodes,
					question_turn_share: Math.round(r.questionTurnShare * 1000) / 1000,
					answers_revealed_before_attempt: r.revealedBeforeAttempt,
					judged_agreement: Math.round(r.judgedAgreement * 1000) / 1000,
					unsure: r.unsure,
					typed_judged_share: r.typedAnswers === 0 ? null : Math.round((r.typedJudged / r.typedAnswers) * 1000) / 1000,
					mid_quiz_kept_open_share:
						r.midQuizQuestions === 0 ? null : Math.round((r.keptOpen / r.midQuizQuestions) * 1000) / 1000,
					ended: r.ended,
				},
			]),
		),
		question_turn_share: mean((r) => r.questionTurnShare),
		answers_revealed_before_attempt: results.reduce((s, r) => s + r.revealedBeforeAttempt, 0),
		judged_agreement: graded === 0 ? 0 : Math.round((agreed / graded) * 1000) / 1000,
	}),
);
