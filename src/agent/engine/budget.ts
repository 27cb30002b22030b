/**
 * The engine's side of cost caps (TutorOptions.budget): who a turn is charged
 * to, derived from the transcript (the latest learner message or recorded
 * answer, else the lesson's starter), the check before a turn's first model
 * step, and the report after each step. The hook decides; the engine only
 * skips the turn and says why.
 */

import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { Participant } from "../../core/contracts/events.ts";
import type { SessionRecord } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import type { StepUsage } from "./model-step.ts";

const isParticipant = (v: unknown): v is Participant =>
	typeof v === "object" && v !== null && typeof (v as { id?: unknown }).id === "string";

/** The member whose event triggered the next turn: the latest learner message or answer; the starter before any. */
export function turnPayer(record: SessionRecord): Participant {
	for (let i = record.messages.length - 1; i >= 0; i--) {
		const message = record.messages[i];
		if (!message) continue;
		if (message.role === "user" && message.metadata?.kind === "learner" && message.metadata.by)
			return message.metadata.by;
		if (message.role !== "assistant") continue;
		// An answer (or a skip) is the call's output, inside the assistant message that asked it.
		for (let j = message.parts.length - 1; j >= 0; j--) {
			const part = message.parts[j] as { state?: string; output?: { by?: unknown } };
			if (part.state === "output-available" && isParticipant(part.output?.by)) return part.output.by;
		}
	}
	return record.startedBy;
}

/** The budget's refusal message when `who` may not start a turn now; undefined to go ahead (also without a hook, or when it throws). */
export async function budgetRefusal(
	rt: EngineContext,
	record: SessionRecord,
	who: Participant,
): Promise<string | undefined> {
	if (!rt.budget) return undefined;
	try {
		const verdict = await rt.budget.beforeTurn(record.sessionId, who);
		return verdict.ok ? undefined : verdict.message;
	} catch (error) {
		rt.logger.warn({ err: error, sessionId: record.sessionId }, "the budget check failed; the turn runs");
		return undefined;
	}
}

/** Report a model step's usage to the budget hook (awaited, so counters are current when the turn ends; a failure is logged). */
export async function reportUsage(
	rt: EngineContext,
	record: SessionRecord,
	who: Participant,
	agent: "prober" | "teacher" | "grader",
	model: LanguageModelV3,
	usage: StepUsage,
): Promise<void> {
	if (!rt.budget) return;
	try {
		await rt.budget.spent({ sessionId: record.sessionId, by: who, agent, model: model.modelId, ...usage });
	} catch (error) {
		rt.logger.warn({ err: error, sessionId: record.sessionId }, "recording a step's usage failed");
	}
}
