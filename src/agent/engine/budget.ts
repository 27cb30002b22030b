/**
 * The engine's side of cost caps (TutorOptions.budget): who a request is
 * charged to (for a turn, derived from the transcript: the latest learner
 * message or recorded answer, else the lesson's starter), the reservation
 * (of what token-estimate.ts says a request may cost) before every model request (each turn
 * step, hint and grading) and the report after it, which hands the
 * reservation back so the hook trues up the difference. The hook decides; the
 * engine only skips the request and says why.
 */

import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { Reservation, UsageAgent, UsageEstimate } from "../../core/contracts/budget.ts";
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

/** A reservation's outcome for the engine: send (handing `reservation` back after), or the refusal's message. */
export type Reserved = { ok: true; reservation?: Reservation } | { ok: false; message: string };

/** Reserve what a request may cost before it is sent; ok without a hook, or when the hook throws (logged). */
export async function reserveUsage(
	rt: EngineContext,
	sessionId: string,
	who: Participant,
	agent: UsageAgent,
	model: LanguageModelV3,
	tokens: { inputTokens: number; outputTokens: number },
): Promise<Reserved> {
	if (!rt.budget) return { ok: true };
	const estimate: UsageEstimate = { sessionId, by: who, agent, model: model.modelId, ...tokens };
	try {
		const verdict = await rt.budget.reserve(estimate);
		if (!verdict.ok) return { ok: false, message: verdict.message };
		return verdict.reservation ? { ok: true, reservation: verdict.reservation } : { ok: true };
	} catch (error) {
		rt.logger.warn({ err: error, sessionId }, "the budget reservation failed; the request is sent");
		return { ok: true };
	}
}

/**
 * Report a request's usage to the budget hook with its reservation (zero usage gives a failed request's
 * reservation back). Awaited, so counters are current when the turn ends; a failure is logged.
 */
export async function reportUsage(
	rt: EngineContext,
	sessionId: string,
	who: Participant,
	agent: UsageAgent,
	model: LanguageModelV3,
	usage: StepUsage,
	reservation?: Reservation,
): Promise<void> {
	if (!rt.budget) return;
	try {
		await rt.budget.spent({ sessionId, by: who, agent, model: model.modelId, ...usage }, reservation);
	} catch (error) {
		rt.logger.warn({ err: error, sessionId }, "recording a request's usage failed");
	}
}
