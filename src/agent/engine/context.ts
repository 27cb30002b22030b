/**
 * What the pump and the turns share, one per tutor: the model, the store, the
 * event hub, the agents and the limits. (The CLI's `Runtime` is the process's
 * composition; this is the engine's.)
 */

import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { TurnBudget } from "../../core/contracts/budget.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { MaterialLimits } from "../../material/index.ts";
import type { MaterialStore } from "../store/material-store.ts";
import type { PictureStore } from "../store/picture-store.ts";
import type { SessionStore } from "../store/types.ts";
import type { LessonAgent } from "./agents.ts";
import type { EventHub } from "./event-hub.ts";
import type { TurnGate } from "./turn-gate.ts";
import type { VoteTimers } from "./vote-timers.ts";

/** The engine's shared dependencies and settings. */
export interface EngineContext {
	/** The default model (TutorOptions.model). */
	model: LanguageModelV3;
	/** The model each agent's steps (and the grading calls) run on (the default model unless TutorOptions.models names another). */
	models: Record<LessonAgent["name"] | "grader", LanguageModelV3>;
	/** A grading call not finished by this many milliseconds is abandoned: the teacher judges the answer. */
	gradingTimeoutMs: number;
	store: SessionStore;
	/** Learners' picture bytes and their byte budget (store/picture-store.ts). */
	pictures: PictureStore;
	/** Lessons' material indexes (store/material-store.ts). */
	material: MaterialStore;
	/** The bounds a learner's document is read within (material/limits.ts; defaults for what is unset). */
	materialLimits?: Partial<MaterialLimits>;
	logger: Logger;
	hub: EventHub;
	agents: { prober: LessonAgent; teacher: LessonAgent };
	maxStepsPerTurn: number;
	/** The most tokens a turn step's reply may hold; also what each step reserves against cost caps beyond its input. */
	maxOutputTokens: number;
	maxRetries: number;
	/** First retry backoff (doubles per retry). */
	retryDelayMs: number;
	/** A model request that makes no progress for this long is abandoned (and retried). */
	requestTimeoutMs: number;
	/** A model request not finished this long after it started is abandoned (and retried). */
	totalTimeoutMs: number;
	/** An OpenTelemetry span per model step. */
	telemetry: boolean;
	/** How long a save the learner waits on (an answer, a start) is retried before it is refused. */
	saveRetryMs: number;
	/** The store's health as the last save saw it: false after a failed save, true after a good one. */
	storeHealthy: boolean;
	/** Lease time to live on a shared store (default LEASE_TTL_MS, 10 s); renewed every third of it. */
	leaseTtlMs?: number;
	/** Longest a pump waits for another process to apply (or give up the lease over) the events this one queued (default LEASE_WAIT_MS). */
	leaseWaitMs?: number;
	/** Turns (and gradings) start through it: held back while the process's event loop lags (turn-gate.ts). */
	turnGate?: TurnGate;
	/** Cost caps: reserves before each model request (turn step, hint, grading), told its usage after (TutorOptions.budget). */
	budget?: TurnBudget;
	now: () => Date;
	/** Group lessons: the timers that close votes (engine/votes.ts). */
	voteTimers: VoteTimers;
	newId: () => string;
	/** Aborted when the tutor closes: running model requests and save retries stop. */
	signal: AbortSignal;
}
