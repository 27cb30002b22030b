/**
 * Cost caps as the engine sees them: before a turn's first model step it asks
 * whether the member whose event triggered the turn may spend more, and after
 * each model step it reports what was spent. The engine knows only the
 * session id and the Participant; communities, members' budgets and counters
 * belong to whoever implements this (the lesson controller).
 */

import type { Participant } from "./events.ts";

/** The tokens of one model step, charged to the member whose event triggered the turn. */
export interface TurnUsage {
	sessionId: string;
	/** Who is charged: the learner or group member who answered or typed; the starter for the first turn. */
	by: Participant;
	/** The agent whose step it was, or the grading call of a typed answer. */
	agent: "prober" | "teacher" | "grader";
	/** The model's id as its provider reports it (e.g. `gpt-4.1-mini`, `demo`). */
	model: string;
	inputTokens: number;
	outputTokens: number;
	/** Of inputTokens, read from the provider's prompt cache. */
	cachedInputTokens: number;
}

/** beforeTurn's verdict: run the turn, or skip it and show `message`. */
export type BudgetVerdict = { ok: true } | { ok: false; message: string; resetsAt: string };

/** The engine's budget hook (TutorOptions.budget). Its methods must not throw; a throw is logged and the turn runs. */
export interface TurnBudget {
	/** May `who` start a turn in this session now? Called before the turn's first model step. */
	beforeTurn(sessionId: string, who: Participant): BudgetVerdict | Promise<BudgetVerdict>;
	/** A model step's usage (called once per step, after the step; the turn does not wait on it being stored). */
	spent(usage: TurnUsage): void | Promise<void>;
}
