/**
 * Cost caps as the engine sees them: before every model request (each step of
 * a turn, each hint, each grading) it reserves what the request may cost, and
 * after it reports what it cost, handing the reservation back so the hook
 * trues up the difference. A refused reservation means the request is not sent.
 * The engine knows only the session id and the Participant; communities,
 * members' budgets and counters belong to whoever implements this (the lesson
 * controller).
 */

import type { Participant } from "./events.ts";

/** Who made a model request: a turn's agent, the grading call of a typed answer, or a hint. */
export type UsageAgent = "prober" | "teacher" | "grader" | "hint";

/** The tokens of one model request, charged to the member whose event caused it. */
export interface TurnUsage {
	sessionId: string;
	/** Who is charged: the learner or group member who answered, typed or asked for a hint; the starter for the first turn. */
	by: Participant;
	/** The agent whose step it was, the grading call of a typed answer, or a hint. */
	agent: UsageAgent;
	/** The model's id as its provider reports it (e.g. `gpt-4.1-mini`, `demo`). */
	model: string;
	inputTokens: number;
	outputTokens: number;
	/** Of inputTokens, read from the provider's prompt cache. */
	cachedInputTokens: number;
}

/** What one model request may cost, asked for before it is sent (for whom and what: as in TurnUsage). */
export interface UsageEstimate extends Pick<TurnUsage, "sessionId" | "by" | "agent" | "model"> {
	/** The request's input, estimated from its size (characters / 4, a fixed amount per image or file). */
	inputTokens: number;
	/** The most the reply may hold: the request's maximum output tokens. */
	outputTokens: number;
}

/**
 * A granted reservation. The engine hands it back unchanged with the request's usage (`spent`),
 * so the hook can replace the reserved tokens with the spent ones. Plain data.
 */
export interface Reservation {
	/** Tokens reserved (the estimate's input + output). */
	readonly tokens: number;
	/** The hook's own note of where it reserved them (the lesson controller: the UTC day). */
	readonly where?: string;
}

/** A verdict: go ahead, or not now and show `message` (when the cap resets: `resetsAt`). */
export type BudgetVerdict = { ok: true } | { ok: false; message: string; resetsAt: string };

/** reserve's verdict: send the request (with the reservation to hand back, if one was made), or do not send it. */
export type ReserveVerdict = { ok: true; reservation?: Reservation } | { ok: false; message: string; resetsAt: string };

/**
 * The engine's budget hook (TutorOptions.budget). Its methods must not throw; a throw is logged and the
 * request is sent (a failed reserve) or its usage goes uncounted (a failed spent).
 */
export interface TurnBudget {
	/**
	 * May this request be sent? Reserve its estimate against the caps, atomically against
	 * concurrent requests. Called before every model request; a refusal ends the turn (or gives a
	 * generic hint, or leaves a typed answer to the teacher) and `message` is shown.
	 */
	reserve(estimate: UsageEstimate): ReserveVerdict | Promise<ReserveVerdict>;
	/**
	 * A request's usage, after it. `reservation` is what reserve granted for it (true up the difference,
	 * which may be negative); a request that failed reports zero usage, giving its reservation back.
	 */
	spent(usage: TurnUsage, reservation?: Reservation): void | Promise<void>;
}
