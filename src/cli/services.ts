/**
 * Wires the pieces a command needs from the configuration: the session store,
 * the model, the tutor (with interrupted sessions repaired) and the plan
 * renderer, each registered for a graceful close.
 */

import type { LanguageModel } from "ai";
import { type BudgetRouter, createBudgetRouter } from "../adapters/lesson/lesson-budget.ts";
import type { LearnerServices } from "../adapters/lesson/profile-flows.ts";
import {
	createAnswerGrader,
	createLanguageModel,
	createLearning,
	createLibraryStore,
	createMaterialStore,
	createPictureStore,
	createRephraser,
	createSessionStore,
	createTurnGate,
	createTutor,
	DEFAULT_RETENTION_DAYS,
	openStateStore,
	openStateWithItems,
	parseModelSpec,
	type SessionStore,
	type TurnGate,
} from "../agent/index.ts";
import { MODEL_JOBS, type ModelJob } from "../config/models.ts";
import { type Config, redactUrl } from "../config.ts";
import type { Logger } from "../core/contracts/logger.ts";
import type { Tutor } from "../core/contracts/tutor.ts";
import { createPlanRenderer, type PlanRenderer } from "../render/index.ts";
import type { ShutdownRegistry } from "./process.ts";
import { prepareStoreFolder } from "./store-folder.ts";
import { reportTurnGate } from "./turn-gate-report.ts";

/** What adapters and the playground run on (not the engine's per-turn Runtime: see agent/engine/runtime.ts). */
export interface Services {
	tutor: Tutor;
	renderer: PlanRenderer;
	/** The tutor's budget hook: each platform's controller attaches its token caps here. */
	budgets: BudgetRouter;
	/** Sessions repaired at start (cut off by a crash or restart). */
	repaired: number;
	/** Learner profiles and review, on the sessions' store (namespace `learnharness:profiles`). */
	learning: LearnerServices;
	/** The tutor's turn gate (undefined when LEARNHARNESS_TURN_LAG_MS=0 turned it off). */
	turnGate?: TurnGate;
	/** The session records, read-only (the dashboard's transcript page). */
	records: Pick<SessionStore, "get">;
}

/** Options of createServices. */
export interface ServicesOptions {
	/** How long closing waits for running turns before aborting them (default 8 s; the playground wants less). */
	closeTimeoutMs?: number;
}

/** Opens the store, builds the model and the tutor, repairs interrupted sessions. */
export async function createServices(
	config: Config,
	logger: Logger,
	registry: ShutdownRegistry,
	options: ServicesOptions = {},
): Promise<Services> {
	const renderer = createPlanRenderer({
		...(config.chromiumPath ? { executablePath: config.chromiumPath } : {}),
		...(config.renderPages !== undefined ? { poolSize: config.renderPages } : {}),
		logger,
	});
	registry.add({ name: "plan renderer", close: () => renderer.close() });
	try {
		await prepareStoreFolder(config.storeUrl);
	} catch (error) {
		throw new Error(
			`The store ${redactUrl(config.storeUrl)} cannot be opened: ${error instanceof Error ? error.message : String(error)}. ` +
				"Fix LEARNHARNESS_STORE_URL (run `learnharness doctor` for a full check).",
			{ cause: error },
		);
	}
	const store = await createSessionStore(config.storeUrl, logger);
	const model = modelOf(config);
	const models = jobModelsOf(config);
	const budgets = createBudgetRouter();
	// Profiles and the review items' index (a table, or a Redis hash and sorted set) on one connection.
	const { state: profiles, items: reviewItems } = openStateWithItems(config.storeUrl, "learnharness:profiles", logger);
	// Registered before the tutor, so it closes after it (a lesson ending while the tutor closes still updates its profile).
	registry.add({ name: "learner profiles", close: () => profiles.close() });
	// Learners' picture bytes and their byte budget, on the sessions' backend (shared by every process on it).
	const pictureState = openStateStore(config.storeUrl, "learnharness:pictures", logger);
	registry.add({ name: "learner pictures", close: () => pictureState.close() });
	const retentionMs = (config.retentionDays ?? DEFAULT_RETENTION_DAYS) * 86_400_000;
	const pictures = createPictureStore(pictureState, { ttlMs: retentionMs });
	// Lessons' material indexes (a learner's PDF), on the sessions' backend too.
	const materialState = openStateStore(config.storeUrl, "learnharness:material", logger);
	registry.add({ name: "lesson material", close: () => materialState.close() });
	const material = createMaterialStore(materialState, { ttlMs: retentionMs });
	// The communities' libraries (`/lesson material`), in the same namespace.
	const library = createLibraryStore(materialState);
	// Review answers the judge leaves open go to the lessons' grader model (the demo model grades by fixed rules).
	const learning = createLearning({
		state: profiles,
		items: reviewItems,
		sessions: store,
		pictures,
		material,
		library,
		logger,
		grade: createAnswerGrader(models?.grader ?? model),
		...(config.retentionDays !== undefined ? { defaultRetentionDays: config.retentionDays } : {}),
	});
	const turnGate =
		config.turnLagMs === 0
			? undefined
			: createTurnGate(config.turnLagMs === undefined ? {} : { targetLagMs: config.turnLagMs });
	// Below the shutdown registry's per-item limit, so the tutor still closes its store after aborting turns.
	const tutor = createTutor({
		model,
		...(models ? { models } : {}),
		store,
		pictures,
		material,
		logger,
		closeTimeoutMs: options.closeTimeoutMs ?? 8_000,
		...(config.modelTimeoutMs !== undefined ? { totalTimeoutMs: config.modelTimeoutMs } : {}),
		telemetry: config.telemetry === true,
		budget: budgets.budget,
		recall: (sessionId, learner, topic) => learning.priorNote(sessionId, learner, topic),
		turnGate: turnGate ?? false,
	});
	// Registered after the renderer, so it closes first (it waits for running turns, then closes the store).
	registry.add({ name: "tutor", close: () => tutor.close() });
	if (turnGate) {
		const stop = reportTurnGate(turnGate, logger);
		registry.add({ name: "turn gate report", close: async () => stop() });
	}
	const repaired = await tutor.resume();
	if (repaired > 0) logger.info({ repaired }, "repaired interrupted sessions");
	// The demo model is scripted: it cannot reword a question, so reviews ask the original wording.
	const rephrase = config.model.demo && !models ? undefined : createRephraser(models?.teacher ?? model);
	return {
		tutor,
		renderer,
		budgets,
		repaired,
		learning: { learning, library, ...(rephrase ? { rephrase } : {}) },
		records: { get: (sessionId) => store.get(sessionId) },
		...(turnGate ? { turnGate } : {}),
	};
}

/** A configured model (LEARNHARNESS_MODEL, or another setting in its syntax) through the provider registry. */
export function modelOf(config: Config, setting: string = config.model.id): LanguageModel {
	const { id: _id, demo: _demo, jobs: _jobs, ...providers } = config.model;
	return createLanguageModel({ ...providers, model: setting });
}

/** The jobs' own models (LEARNHARNESS_MODEL_PROBER/_TEACHER/_GRADER); undefined when none is set. */
export function jobModelsOf(config: Config): Partial<Record<ModelJob, LanguageModel>> | undefined {
	const jobs = config.model.jobs;
	if (!jobs) return undefined;
	const models: Partial<Record<ModelJob, LanguageModel>> = {};
	for (const job of MODEL_JOBS) {
		const setting = jobs[job];
		if (setting !== undefined) models[job] = modelOf(config, setting);
	}
	return models;
}

/** The distinct model settings in use, with the jobs each serves (one entry when every job uses LEARNHARNESS_MODEL). */
export function modelsInUse(config: Config): Array<{ setting: string; jobs: ModelJob[] }> {
	const out: Array<{ setting: string; jobs: ModelJob[] }> = [];
	for (const job of MODEL_JOBS) {
		const setting = config.model.jobs?.[job] ?? config.model.id;
		const seen = out.find((m) => m.setting === setting);
		if (seen) seen.jobs.push(job);
		else out.push({ setting, jobs: [job] });
	}
	return out;
}

/** Where a model setting's requests go: the provider, or the base URL it was pointed at (redacted). */
export function whereOf(config: Config, setting: string): string {
	const spec = parseModelSpec(setting, config.model.baseUrl !== undefined);
	if (!spec.ok || spec.demo) return "nowhere";
	const base = {
		openai: config.model.openai?.baseUrl,
		compatible: config.model.baseUrl,
		anthropic: config.model.anthropic?.baseUrl,
		google: config.model.google?.baseUrl,
	}[spec.provider];
	const name = { openai: "OpenAI", compatible: "the compatible server", anthropic: "Anthropic", google: "Google" }[
		spec.provider
	];
	return base ? redactUrl(base) : name;
}

/** A one-line description of the model(s) for banners and doctor. */
export function describeModel(config: Config): string {
	if (config.model.demo && !config.model.jobs)
		return "demo (the built-in scripted lesson; set OPENAI_API_KEY for a real model)";
	const inUse = modelsInUse(config);
	const one = (setting: string) => `${setting} at ${whereOf(config, setting)}`;
	if (inUse.length === 1) return one(inUse[0]?.setting ?? config.model.id);
	return inUse.map((m) => `${m.jobs.join(" and ")}: ${one(m.setting)}`).join("; ");
}
