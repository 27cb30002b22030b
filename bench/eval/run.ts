/**
 * The whole pedagogy eval, as one function (the command line is bench/eval-pedagogy.ts): the
 * personas against the model under test, the same personas against a tutor that only explains
 * (the reference), optionally against a plain no-tools chat on the same model (`baseline`), the
 * guardrail runs (bad tutors against the demo's good run, every machine, no real model), and the
 * rubric grader with its agreement on the hand-labelled turns.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModel } from "ai";
import { createDemoModel } from "../../src/agent/models/demo-model.ts";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import type { SessionStore } from "../../src/agent/store/types.ts";
import { createTutor } from "../../src/agent/tutor.ts";
import { jobModelsOf, modelOf } from "../../src/cli/services.ts";
import { loadConfig } from "../../src/config.ts";
import type { Tutor } from "../../src/core/contracts/tutor.ts";
import { runBaseline } from "./baseline.ts";
import { drivePersona, MAX_ACTIONS } from "./drive.ts";
import { GUARDRAILS, type GuardrailStatus, verdictOf } from "./guardrails.ts";
import { measureRun, overall, type PersonaMeasures, tutorTurns } from "./measures.ts";
import { PERSONAS, type Persona, personaOf } from "./personas.ts";
import { agreement, labelledTurns, modelGrader, type RubricGrader, rubricOf, SCRIPTED_GRADER } from "./rubric.ts";
import { BAD_TUTORS, explainOnlyTutor } from "./tutors.ts";

/** What to run. */
export interface EvalOptions {
	/** `provider:model` (or `demo`) under test; undefined: the configured LEARNHARNESS_MODEL. */
	model?: string;
	/** Also run the plain no-tools chat on the same model. */
	baseline?: boolean;
	/** The rubric grader's model; undefined: the model under test when it is a real one, else the scripted grader. */
	grader?: string;
	seed?: string;
	/** Persona names (default: all). */
	personas?: readonly string[];
	/** Learner actions per lesson at most. */
	maxActions?: number;
	env?: NodeJS.ProcessEnv;
	/** Progress lines (one per run). */
	log?: (line: string) => void;
}

/** One guardrail's outcome. */
export interface GuardrailRun {
	about: string;
	status: GuardrailStatus;
	attempts: number;
	reached: number;
	good: number;
	separated: boolean;
}

/** Everything the eval measured. */
export interface EvalReport {
	model: string;
	seed: string;
	measures: Array<PersonaMeasures & { rubric: Awaited<ReturnType<typeof rubricOf>> }>;
	explainOnly: PersonaMeasures[];
	baseline?: PersonaMeasures[];
	guardrails: Record<string, GuardrailRun>;
	grader: { name: string; scripted: boolean; agreement: Awaited<ReturnType<typeof agreement>> };
}

/** A model setting resolved through the project's configuration (a missing key or URL throws ConfigError). */
function resolveModel(setting: string | undefined, env: NodeJS.ProcessEnv) {
	const { config } = loadConfig({ env: setting ? { ...env, LEARNHARNESS_MODEL: setting } : env });
	const jobs = setting ? undefined : jobModelsOf(config);
	return { id: config.model.id, demo: config.model.demo, model: modelOf(config), jobs };
}

/** A fresh tutor on a private SQLite file for `fn`, closed and removed after. */
async function withTutor<T>(
	model: LanguageModel,
	fn: (tutor: Tutor, store: SessionStore) => Promise<T>,
	jobs?: ReturnType<typeof jobModelsOf>,
): Promise<T> {
	const dir = mkdtempSync(join(tmpdir(), "lh-eval-"));
	const store = await createSessionStore(`sqlite://${join(dir, "eval.sqlite")}`);
	const tutor = createTutor({ model, ...(jobs ? { models: jobs } : {}), store, maxRetries: 2 });
	try {
		return await fn(tutor, store);
	} finally {
		await tutor.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

/** Run the eval. Throws ConfigError (with a fix per variable) when a model setting cannot be used. */
export async function runEval(options: EvalOptions = {}): Promise<EvalReport> {
	const env = options.env ?? process.env;
	const seed = options.seed ?? "1";
	const log = options.log ?? (() => undefined);
	const maxActions = options.maxActions ?? MAX_ACTIONS;
	const personas: Persona[] = (options.personas ?? PERSONAS.map((p) => p.name)).map(personaOf);
	const under = resolveModel(options.model, env);
	const graderSetting = options.grader ?? (under.demo ? undefined : under.id);
	const grader: RubricGrader = graderSetting
		? modelGrader(resolveModel(graderSetting, env).model, `${graderSetting} (model)`)
		: SCRIPTED_GRADER;

	const onEngine = (model: LanguageModel, persona: Persona, tag: string, jobs?: ReturnType<typeof jobModelsOf>) =>
		withTutor(
			model,
			(tutor, store) => drivePersona(tutor, store, persona, seed, `terminal:eval-${tag}-${persona.name}`, maxActions),
			jobs,
		);

	const measures: EvalReport["measures"] = [];
	for (const persona of personas) {
		const run = await onEngine(under.model, persona, "model", under.jobs);
		const turns = tutorTurns(run.messages);
		measures.push({ ...measureRun(run, turns), rubric: await rubricOf(grader, turns) });
		log(`${under.id}: ${persona.name} done (${run.actions} learner actions)`);
	}
	const explainOnly: PersonaMeasures[] = [];
	for (const persona of personas) {
		explainOnly.push(measureRun(await onEngine(explainOnlyTutor().model, persona, "explain-only")));
		log(`explain-only: ${persona.name} done`);
	}
	let baseline: PersonaMeasures[] | undefined;
	if (options.baseline) {
		baseline = [];
		for (const persona of personas) {
			const { run, turns } = await runBaseline(under.model, persona, seed);
			baseline.push(measureRun(run, turns));
			log(`baseline (${under.id}, no tools): ${persona.name} done`);
		}
	}

	// Guardrails: each bad tutor against the demo's good run of the same persona (and help), no real model.
	const goodRuns = new Map<string, Awaited<ReturnType<typeof drivePersona>>>();
	const guardrails: Record<string, GuardrailRun> = {};
	for (const g of GUARDRAILS) {
		const persona: Persona = { ...personaOf(g.persona), ...(g.help ? { help: g.help } : {}) };
		const key = `${persona.name}/${g.help ?? ""}`;
		let good = goodRuns.get(key);
		if (!good) {
			good = await onEngine(createDemoModel(), persona, `good-${g.help ?? "plain"}`);
			goodRuns.set(key, good);
		}
		const bad = BAD_TUTORS[g.name]?.();
		if (!bad) throw new Error(`no bad tutor for ${g.name}`);
		const badRun = await onEngine(bad.model, persona, `bad-${g.name}`);
		const reached = g.reached(badRun);
		const goodReached = g.reached(good);
		const verdict = verdictOf(g, bad.attempts(), reached, goodReached);
		guardrails[g.name] = { about: g.about, attempts: bad.attempts(), reached, good: goodReached, ...verdict };
		log(`guardrail ${g.name}: ${verdict.status}`);
	}

	return {
		model: under.id,
		seed,
		measures,
		explainOnly,
		...(baseline ? { baseline } : {}),
		guardrails,
		grader: { name: grader.name, scripted: grader.scripted, agreement: await agreement(grader, labelledTurns()) },
	};
}

/** The eval's JSON line (the shape, plus the reference, baseline and grader). */
export function reportJson(report: EvalReport) {
	const all = overall(report.measures);
	const share = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 1000) / 1000);
	const typedAnswers = report.measures.filter((m) => m.typed_judged_share !== null);
	return {
		bench: "pedagogy",
		model: report.model,
		seed: report.seed,
		personas: Object.fromEntries(report.measures.map(({ persona, ...m }) => [persona, m])),
		diagnosis_accuracy: all.diagnosis_accuracy,
		learning_gain: all.learning_gain,
		misconceptions_repaired: all.misconceptions_repaired,
		misconceptions_held: all.misconceptions_held,
		revealed_before_attempt: all.revealed_before_attempt,
		scaffolding_share: all.scaffolding_share,
		recall_at_end: all.recall_at_end,
		turns_per_node_learned: all.turns_per_node_learned,
		tokens_per_node_learned: all.tokens_per_node_learned,
		typed_judged_share: share(
			typedAnswers.reduce((s, m) => s + (m.typed_judged_share ?? 0), 0),
			typedAnswers.length,
		),
		explain_only: { learning_gain: overall(report.explainOnly).learning_gain },
		baseline: report.baseline ? overall(report.baseline) : null,
		guardrails: Object.fromEntries(Object.entries(report.guardrails).map(([k, v]) => [k, v.status])),
		guardrails_separated: Object.values(report.guardrails).every((g) => g.separated),
		grader: { name: report.grader.name, scripted: report.grader.scripted, agreement: report.grader.agreement.overall },
	};
}
