/**
 * Wires the pieces a command needs from the configuration: the session store,
 * the model, the tutor (with interrupted sessions repaired) and the plan
 * renderer, each registered for a graceful close.
 */

import type { LanguageModel } from "ai";
import { createLanguageModel, createSessionStore, createTutor } from "../agent/index.ts";
import { type Config, redactUrl } from "../config.ts";
import type { Logger } from "../core/contracts/logger.ts";
import type { Tutor } from "../core/contracts/tutor.ts";
import { createPlanRenderer, type PlanRenderer } from "../render/index.ts";
import type { ShutdownRegistry } from "./process.ts";
import { prepareStoreFolder } from "./store-folder.ts";

/** What adapters and the playground run on (not the engine's per-turn Runtime: see agent/engine/runtime.ts). */
export interface Services {
	tutor: Tutor;
	renderer: PlanRenderer;
	/** Sessions repaired at start (cut off by a crash or restart). */
	repaired: number;
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
	// Below the shutdown registry's per-item limit, so the tutor still closes its store after aborting turns.
	const tutor = createTutor({
		model,
		store,
		logger,
		closeTimeoutMs: options.closeTimeoutMs ?? 8_000,
		...(config.modelTimeoutMs !== undefined ? { totalTimeoutMs: config.modelTimeoutMs } : {}),
		telemetry: config.telemetry === true,
	});
	// Registered after the renderer, so it closes first (it waits for running turns, then closes the store).
	registry.add({ name: "tutor", close: () => tutor.close() });
	const repaired = await tutor.resume();
	if (repaired > 0) logger.info({ repaired }, "repaired interrupted sessions");
	return { tutor, renderer, repaired };
}

/** The configured model (the demo, an OpenAI-compatible server, or OpenAI). */
export function modelOf(config: Config): LanguageModel {
	return createLanguageModel({
		model: config.model.id,
		...(config.model.apiKey ? { apiKey: config.model.apiKey } : {}),
		...(config.model.baseUrl ? { baseUrl: config.model.baseUrl } : {}),
	});
}

/** A one-line description of the model for banners and doctor. */
export function describeModel(config: Config): string {
	if (config.model.demo) return "demo (the built-in scripted lesson; set OPENAI_API_KEY for a real model)";
	return config.model.baseUrl
		? `${config.model.id} at ${redactUrl(config.model.baseUrl)}`
		: `${config.model.id} (OpenAI)`;
}
