/**
 * What both chat drivers share: a folder of SQLite files, the engine side on it and the adapters' state store
 * (both reopened by restart()), the bot processes a driver starts on them (two with `twin`), and the `Chat`
 * members about these.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import { type Learning, type LibraryStore, openStateStore, type StateStore } from "../../../src/agent/index.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import type { PlanRenderer } from "../../../src/render/index.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { type LearnerBackend, openLearnerBackend, type TestClock } from "../../fixtures/profile-stack.ts";
import { type RecordingLogger, recordingLogger } from "../discord/helpers.ts";
import { type Chat, type ChatOptions, PNG } from "./types.ts";

/** What every bot process gets, whatever its platform. */
export interface ProcessDeps {
	tutor: Tutor;
	renderer: PlanRenderer;
	logger: RecordingLogger;
	state: StateStore;
	learning: { learning: Learning; library?: LibraryStore };
	budgets?: BudgetRouter;
}

type Shared = "backend" | "state" | "events" | "logger" | "dir" | "restart" | "close";
/** The members a driver writes itself. */
export type PlatformChat = Omit<Chat, Shared>;

/** How a driver starts (the `index`th process of one or two) and stops one bot process, and closes its fake. */
export interface Processes<P> {
	start(deps: ProcessDeps, index: number): Promise<P>;
	stop(process: P): Promise<void>;
	closeFake(): Promise<void>;
}

/** Open the engine side and start the processes; `processes()` while running, `chat()` completes the driver's members. */
export async function openSide<P>(
	name: Chat["name"],
	options: ChatOptions,
	clock: TestClock,
	budgets: BudgetRouter | undefined,
	run: Processes<P>,
) {
	const dir = mkdtempSync(join(tmpdir(), `lh-contract-${name}-`));
	const logger = recordingLogger();
	const events: TutorEvent[] = [];
	let parts: { backend: LearnerBackend; state: StateStore; processes: P[] } | undefined;
	const open = async () => {
		const backend = await openLearnerBackend(dir, options.model, clock, budgets?.budget, options);
		backend.tutor.subscribe((e) => void events.push(e));
		const state = options.state?.() ?? openStateStore(`sqlite://${join(dir, `${name}.sqlite`)}`, name);
		const deps: ProcessDeps = {
			tutor: options.tutor ?? backend.tutor,
			renderer: stubRenderer(options.png ?? PNG),
			logger,
			state,
			learning: { learning: backend.learning, library: backend.library },
			...(budgets ? { budgets } : {}),
		};
		const processes: P[] = [];
		for (let i = 0; i < (options.twin ? 2 : 1); i++) processes.push(await run.start(deps, i));
		parts = { backend, state, processes };
	};
	const shut = async () => {
		for (const process of parts?.processes ?? []) await run.stop(process);
		await parts?.backend.close();
		await parts?.state.close();
	};
	await open();
	const live = () => {
		if (!parts) throw new Error("not started");
		return parts;
	};
	return {
		logger,
		processes: () => live().processes,
		chat: (platform: PlatformChat): Chat => ({
			...platform,
			get backend() {
				return live().backend;
			},
			get state() {
				return live().state;
			},
			events,
			logger,
			dir,
			async restart(between) {
				await shut();
				await between?.();
				await open();
			},
			async close() {
				await shut();
				await run.closeFake();
				rmSync(dir, { recursive: true, force: true });
			},
		}),
	};
}
