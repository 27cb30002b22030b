/**
 * createTutor: the engine behind the Tutor interface adapters use. Sessions
 * live in the store; a loaded session has one pump that delivers learner
 * events in order and runs its turns, so a session's turns never overlap.
 * handle() answers before any model work.
 */

import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { LanguageModel } from "ai";
import type { TurnBudget } from "../core/contracts/budget.ts";
import type { HandleResult, LearnerEvent } from "../core/contracts/events.ts";
import { type Logger, silentLogger } from "../core/contracts/logger.ts";
import type { StartLessonOptions, StartLessonResult, Tutor } from "../core/contracts/tutor.ts";
import { DEFAULT_LOCALE, isLocale, t } from "../i18n/index.ts";
import type { MaterialLimits } from "../material/index.ts";
import { createAgents } from "./engine/agents.ts";
import { anonymiseParticipant } from "./engine/anonymise.ts";
import type { EngineContext } from "./engine/context.ts";
import { createEventHub } from "./engine/event-hub.ts";
import { forgetSession } from "./engine/forget.ts";
import { LEASE_WAIT_MS, refreshUnlessLive, withLease } from "./engine/lease.ts";
import { lessonTopic, MAX_TOPIC_CHARS, newLessonRecord, recallWithin } from "./engine/lesson-start.ts";
import { materialMeta, materialNote, readMaterial } from "./engine/material.ts";
import { asLanguageModelV3 } from "./engine/model-step.ts";
import { createOutbox } from "./engine/outbox.ts";
import { save, saveRetrying } from "./engine/persist.ts";
import { armVotes, kick } from "./engine/pump.ts";
import { receive } from "./engine/receive.ts";
import { createTakeovers, hasWorkLeft } from "./engine/recovery.ts";
import { evictable, isIdle, newSessionState, type SessionState } from "./engine/session-state.ts";
import { summarize } from "./engine/summary.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "./engine/token-estimate.ts";
import { createTurnGate, type TurnGate } from "./engine/turn-gate.ts";
import { createVoteTimers, type TimerFunctions } from "./engine/vote-timers.ts";
import { isStoreConflict } from "./store/errors.ts";
import { createMaterialStore, type MaterialStore } from "./store/material-store.ts";
import { createPictureStore, type PictureStore } from "./store/picture-store.ts";
import { createMemoryStateStore } from "./store/state-store.ts";
import type { SessionStore } from "./store/types.ts";

/** Options of createTutor. */
export interface TutorOptions {
	/** The model of every agent without one of its own in `models`. */
	model: LanguageModel;
	/** A model per job (a small fast one probing and grading, a stronger one teaching); unset ones use `model`. */
	models?: Partial<Record<"prober" | "teacher" | "grader", LanguageModel>>;
	/** A grading call of a typed answer not finished by then is abandoned, and the teacher judges the answer (default 20 s). */
	gradingTimeoutMs?: number;
	store: SessionStore;
	/** Learners' picture bytes and byte budget; give one on the sessions' backend when processes share it (default: in memory). */
	pictures?: PictureStore;
	/** Lessons' material indexes; give one on the sessions' backend when processes share it (default: in memory). */
	material?: MaterialStore;
	/** The bounds a learner's document is read within (bytes, pages, characters, inflated bytes, time; docs/material.md). */
	materialLimits?: Partial<MaterialLimits>;
	logger?: Logger;
	/** Model steps per agent per turn (default 8). */
	maxStepsPerTurn?: number;
	/** The most tokens a turn step's reply may hold (default 8,192); cost caps reserve it per step (docs/configuration.md). */
	maxOutputTokens?: number;
	/** Retries of a failed model request (429, 5xx, no connection, timeout), with exponential backoff (default 2). */
	maxRetries?: number;
	/** The first retry's delay; it doubles per retry, and a `retry-after` under a minute wins (default 2 s). */
	retryDelayMs?: number;
	/** A model request that sends nothing for this long (before or during its stream) is abandoned and retried (default 120 s). */
	requestTimeoutMs?: number;
	/** A model request not finished this long after it started is abandoned and retried, progress or not (default 180 s). */
	totalTimeoutMs?: number;
	/** An OpenTelemetry span per model step, to the process's registered tracer provider (default off). */
	telemetry?: boolean;
	now?: () => Date;
	/** Timers that close group votes (default: the process's setTimeout; tests inject their own with `now`). */
	timers?: TimerFunctions;
	/** How long close() waits for running turns before aborting them (default 10 s). */
	closeTimeoutMs?: number;
	/** Sessions kept in memory; idle, fully saved ones beyond this reload from the store on demand (default 1000). */
	maxSessionsInMemory?: number;
	/**
	 * How long a save that someone waits on (an answer on an idle session, a new lesson) is retried
	 * before it is refused with `store-unavailable` (default 3 s). Saves of a running turn retry until
	 * the store is back.
	 */
	saveRetryMs?: number;
	/**
	 * What the learner's profile says they know of a related topic (the prober's start note carries it).
	 * Bounded to RECALL_MS; a failure or a late answer starts the lesson without it. Must not throw.
	 */
	recall?: (sessionId: string, learner: StartLessonOptions["learner"], topic: string) => Promise<string | undefined>;
	/** A session lease's time to live, renewed every third of it while turns run (default 10 s). */
	leaseTtlMs?: number;
	/** How long a process waits for another one to apply (or give up the lease over) the events it queued (default 20 s); they stay queued after that. */
	leaseWaitMs?: number;
	/** Cost caps: every model request (turn step, hint, grading) is sent only when `reserve` grants it; its usage goes to `spent` (default: no caps). */
	budget?: TurnBudget;
	/**
	 * Holds turns back while the process's event loop lags, so acknowledgements keep their deadlines
	 * (engine/turn-gate.ts; default: a gate with its defaults; false: none).
	 */
	turnGate?: TurnGate | false;
	/** How long forget-me waits for a lesson's running turn (and, on a shared store, its lease) before deleting it anyway (default 20 s). */
	forgetWaitMs?: number;
}

export { MAX_TOPIC_CHARS };

/** The tutor engine (see core/contracts/tutor.ts for the contract). */
export function createTutor(options: TutorOptions): Tutor {
	const logger = options.logger ?? silentLogger;
	const abort = new AbortController();
	// Every running model request listens on this one signal (removed when it ends): many lessons at
	// once are normal, not a leak.
	setMaxListeners(0, abort.signal);
	const model = asLanguageModelV3(options.model);
	const modelOf = (agent: "prober" | "teacher" | "grader") => {
		const own = options.models?.[agent];
		return own === undefined ? model : asLanguageModelV3(own);
	};
	const rt: EngineContext = {
		model,
		models: { prober: modelOf("prober"), teacher: modelOf("teacher"), grader: modelOf("grader") },
		gradingTimeoutMs: options.gradingTimeoutMs ?? 20_000,
		store: options.store,
		pictures: options.pictures ?? createPictureStore(createMemoryStateStore()),
		material: options.material ?? createMaterialStore(createMemoryStateStore()),
		...(options.materialLimits ? { materialLimits: options.materialLimits } : {}),
		logger,
		hub: createEventHub(logger),
		agents: createAgents(),
		maxStepsPerTurn: options.maxStepsPerTurn ?? 8,
		maxOutputTokens: options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
		maxRetries: options.maxRetries ?? 2,
		retryDelayMs: options.retryDelayMs ?? 2_000,
		requestTimeoutMs: options.requestTimeoutMs ?? 120_000,
		saveRetryMs: options.saveRetryMs ?? 3_000,
		storeHealthy: true,
		totalTimeoutMs: options.totalTimeoutMs ?? 180_000,
		telemetry: options.telemetry ?? false,
		...(options.budget ? { budget: options.budget } : {}),
		...(options.turnGate === false ? {} : { turnGate: options.turnGate ?? createTurnGate() }),
		...(options.leaseTtlMs !== undefined ? { leaseTtlMs: options.leaseTtlMs } : {}),
		...(options.leaseWaitMs !== undefined ? { leaseWaitMs: options.leaseWaitMs } : {}),
		now: options.now ?? (() => new Date()),
		voteTimers: createVoteTimers(options.timers),
		newId: () => randomUUID(),
		signal: abort.signal,
	};
	const states = new Map<string, SessionState>();
	const loading = new Map<string, Promise<SessionState | undefined>>();
	let closed = false;

	const maxInMemory = options.maxSessionsInMemory ?? 1000;
	const evictIdle = (keep: SessionState) => {
		if (states.size <= maxInMemory) return;
		for (const [id, state] of states) {
			if (states.size <= maxInMemory) break;
			if (state !== keep && evictable(state)) states.delete(id);
		}
	};

	const takeovers = createTakeovers(rt, {
		load: (sessionId) => load(sessionId),
		kick: (state, lease) => kick(rt, state, lease),
		running: (sessionId) => states.get(sessionId)?.pump !== undefined,
	});
	/** Recovery runs once someone listens: what it re-posts must reach a platform. */
	const startReruns = () => {
		if (closed || rt.hub.size() === 0) return;
		takeovers.start();
	};

	/**
	 * The live state of a session, loaded from the store once (a thread with no lesson asks the store every
	 * time: the embedded store answers that from its index). What a last run left behind is put right by the
	 * pump, under the lease (engine/recovery.ts).
	 */
	const load = (sessionId: string): Promise<SessionState | undefined> => {
		const live = states.get(sessionId);
		if (live) return Promise.resolve(live);
		let pending = loading.get(sessionId);
		if (!pending) {
			pending = (async () => {
				const record = await rt.store.get(sessionId);
				const raced = states.get(sessionId);
				if (raced) return raced;
				if (!record) return undefined;
				const state = newSessionState(record);
				states.set(sessionId, state);
				armVotes(rt, state); // a vote open before a restart closes on its saved deadline
				evictIdle(state);
				return state;
			})().finally(() => loading.delete(sessionId));
			loading.set(sessionId, pending);
		}
		return pending;
	};

	const waitIdle = async (state: SessionState): Promise<void> => {
		// A pump restarts itself while events remain, and saves chain: loop until nothing runs or waits.
		for (let i = 0; i < 10_000; i++) {
			const saving = state.saving;
			if (isIdle(state)) await saving;
			else await state.pump;
			if (isIdle(state) && saving === state.saving) return;
		}
	};

	return {
		async startLesson(opts: StartLessonOptions): Promise<StartLessonResult> {
			// Refusals in the lesson's language (what the starter reads).
			const lang = isLocale(opts.language) ? opts.language : DEFAULT_LOCALE;
			if (closed) return { ok: false, code: "closing", message: t(lang, "engine.closingStart") };
			const topic = lessonTopic(opts.topic);
			if (!topic.ok) return { ok: false, code: "invalid-topic", message: t(lang, topic.key, topic.vars) };
			// The material is read first (bounded: material/limits.ts); a refused one refuses the start, saying why.
			const read = opts.material ? await readMaterial(opts.material, rt.materialLimits) : undefined;
			if (read && !read.ok) return { ok: false, code: "material", message: read.message };
			const index = read?.ok ? read.index : undefined;
			// Before the existence check: no await may come between that check and claiming the thread.
			const recalled = await recallWithin(options.recall, opts, topic.text, logger);
			const prior = index ? [recalled, materialNote(index)].filter((s) => s !== undefined).join("\n") : recalled;
			// states.has: another startLesson for this thread got there while the store was read.
			if ((await load(opts.sessionId)) || states.has(opts.sessionId))
				return { ok: false, code: "exists", message: t(lang, "engine.exists") };
			const record = newLessonRecord(opts, topic.text, prior, rt.now().toISOString(), rt.newId());
			if (index) record.material = materialMeta(index);
			const state = newSessionState(record);
			states.set(opts.sessionId, state);
			evictIdle(state);
			try {
				// The index before the record: the first turn (and every process) finds it once the lesson exists.
				if (index) await rt.material.put(opts.sessionId, index);
				await saveRetrying(rt, state, rt.saveRetryMs);
			} catch (error) {
				states.delete(opts.sessionId);
				// Another process stored a lesson for this thread first (compare-and-set from "absent").
				if (isStoreConflict(error)) return { ok: false, code: "exists", message: t(lang, "engine.exists") };
				return { ok: false, code: "store-unavailable", message: t(lang, "engine.startNotSaved") };
			}
			// The first turn runs here (no other process knows the lesson yet; one that holds its lease gets it in its inbox).
			state.queue.push({ type: "kick" });
			kick(rt, state);
			if (!index) return { ok: true };
			const warnings = index.warnings.map((w) => w.message);
			const unit = index.unit ? { unit: index.unit } : {};
			return { ok: true, material: { name: index.name, pages: index.pageCount, warnings, ...unit } };
		},

		async handle(sessionId: string, event: LearnerEvent): Promise<HandleResult> {
			// Before the lesson is read its language is unknown: English (the adapters say these in the reader's language).
			if (closed) return { ok: false, code: "closing", message: t(DEFAULT_LOCALE, "engine.restartingTry") };
			let state: SessionState | undefined;
			try {
				state = await load(sessionId);
			} catch (error) {
				logger.error({ err: error, sessionId }, "loading the session failed");
				return { ok: false, code: "store-unavailable", message: t(DEFAULT_LOCALE, "engine.notLoaded") };
			}
			if (!state) return { ok: false, code: "unknown-session", message: t(DEFAULT_LOCALE, "engine.noLesson") };
			return receive(rt, state, event);
		},

		async getSession(sessionId) {
			const state = await load(sessionId);
			if (state) await refreshUnlessLive(rt, state);
			return state ? summarize(state) : undefined;
		},

		// Where question cards went, and whether this process may still post one (engine/outbox.ts).
		...createOutbox(rt, (sessionId) => states.get(sessionId)),

		subscribe(sink, subscribeOptions) {
			const unsubscribe = rt.hub.subscribe(sink, subscribeOptions?.drained);
			startReruns();
			return unsubscribe;
		},

		async idle(sessionId) {
			await takeovers.swept();
			if (sessionId !== undefined) {
				const state = states.get(sessionId);
				if (state) await waitIdle(state);
				return;
			}
			for (let i = 0; i < 100; i++) {
				const busy = [...states.values()].filter((s) => !isIdle(s));
				if (busy.length === 0) break;
				await Promise.all(busy.map(waitIdle));
			}
		},

		async forgetParticipant(who) {
			let changed = 0;
			for (const sessionId of await rt.store.list()) {
				const state = await load(sessionId);
				if (!state || state.record.learner.id === who.id) continue;
				// Under the session's lease (a turn running here or in another process finishes first).
				const rewrote = await withLease(rt, state, LEASE_WAIT_MS, async () => {
					if (!anonymiseParticipant(state.record, who)) return false;
					await save(rt, state);
					return true;
				});
				if (rewrote) changed++;
			}
			return changed;
		},

		async forgetLesson(sessionId) {
			const state = states.get(sessionId) ?? (await load(sessionId).catch(() => undefined));
			const deleted = await forgetSession(rt, sessionId, state, options.forgetWaitMs);
			if (state && states.get(sessionId) === state) states.delete(sessionId);
			// The lesson's material goes with it (the key is absent for a lesson without one).
			await rt.material.forgetLesson(sessionId);
			return deleted;
		},

		async resume() {
			// Every open session is offered to the watcher, which takes the ones whose lease is free and
			// recovers them under it (recovery.ts) once someone listens; the ones another process holds are
			// theirs. The count: sessions whose last run left work behind.
			const open = await rt.store.listOpen();
			let left = 0;
			for (const sessionId of open) {
				const record = (await load(sessionId))?.record;
				if (record && (hasWorkLeft(record) || (record.queued?.length ?? 0) > 0)) left++;
			}
			takeovers.schedule(open);
			startReruns();
			if (!closed && rt.hub.size() > 0) await takeovers.swept();
			return left;
		},

		async close() {
			if (closed) return;
			closed = true;
			takeovers.stop();
			rt.voteTimers.clearAll();
			const all = Promise.all([takeovers.swept(), ...[...states.values()].map(waitIdle)]);
			const bounded = async (ms: number) => {
				let timer: NodeJS.Timeout | undefined;
				await Promise.race([all, new Promise<void>((done) => (timer = setTimeout(done, ms)))]);
				clearTimeout(timer);
			};
			const ms = options.closeTimeoutMs ?? 10_000;
			await bounded(ms);
			// Marks that no save carried yet (questions posted at the end of a turn): written now, so a clean
			// restart does not offer those questions again.
			await Promise.all([...states.values()].filter((s) => s.dirty).map((s) => save(rt, s).catch(() => undefined)));
			// Still running: abort the model requests, give them a moment to unwind, then close anyway.
			abort.abort();
			rt.turnGate?.close();
			await bounded(Math.min(ms, 2_000));
			await rt.store.close();
		},
	};
}
