/**
 * A turn: model steps until the tutor waits on the learner (a quiz or ask),
 * ends its turn with text, or hits the step limit. When the prober concludes
 * (probe_done), the teacher's turn follows at once (auto-wake). After a recap
 * with no further question, the lesson ends ("completed").
 */

import type { SessionRecord } from "../store/types.ts";
import { toModelMessages } from "./model-messages.ts";
import type { StepContent, StepUsage } from "./model-step.ts";
import { runModelStep } from "./model-step.ts";
import { addMessageUsage } from "./record-edit.ts";
import { endLesson, type Runtime, save } from "./runtime.ts";
import type { SessionState } from "./session-state.ts";
import { settleStep } from "./settle-step.ts";
import { pendingLearnerCalls, probeConcluded } from "./transcript.ts";

/** Content the learner or the transcript gains from (reasoning alone is not a reply). */
const says = (c: StepContent): boolean => c.type === "tool-call" || (c.type === "text" && c.text.trim() !== "");

function addUsage(record: SessionRecord, usage: StepUsage): void {
	record.usage.inputTokens += usage.inputTokens;
	record.usage.outputTokens += usage.outputTokens;
	record.usage.cachedInputTokens += usage.cachedInputTokens;
}

/** The turn is over: not open any more, and its re-run budget (after restarts) is restored. */
function closeTurn(record: SessionRecord): void {
	record.turnOpen = false;
	delete record.reruns;
}

/** Run one turn (the prober's, then the teacher's when the probe concludes in it). The caller saved turnOpen. */
export async function runTurn(rt: Runtime, state: SessionState): Promise<void> {
	const record = state.record;
	const sessionId = record.sessionId;
	record.turnOpen = true;
	await rt.hub.emit({ type: "typing", sessionId, active: true });
	let agentName: string | undefined;
	let draftId: string | undefined;
	let steps = 0;
	let empty = 0;
	let recapped = false;
	try {
		while (!record.ended && !rt.signal.aborted) {
			const agent = probeConcluded(record.messages) ? rt.agents.teacher : rt.agents.prober;
			if (agent.name !== agentName) {
				// A new agent speaks in its own assistant message with its own step budget (auto-wake).
				agentName = agent.name;
				draftId = undefined;
				steps = 0;
			}
			if (steps >= rt.maxStepsPerTurn) {
				rt.logger.warn({ sessionId, agent: agent.name, steps }, "step limit reached; the turn ends");
				// Without a question pending the learner would wait for nothing: say so.
				if (pendingLearnerCalls(record.messages).length === 0)
					await rt.hub.emit({
						type: "error",
						sessionId,
						code: "step-limit",
						message: `The tutor went ${steps} steps without asking you anything and stopped there. Send a message to continue.`,
						retryable: true,
					});
				break;
			}
			steps++;
			const outcome = await runModelStep({
				model: rt.model,
				agent,
				messages: await toModelMessages(record.messages),
				maxRetries: rt.maxRetries,
				retryDelayMs: rt.retryDelayMs,
				timeoutMs: rt.requestTimeoutMs,
				totalTimeoutMs: rt.totalTimeoutMs,
				telemetry: rt.telemetry,
				abortSignal: rt.signal,
			});
			if (!outcome.ok) {
				if (rt.signal.aborted) break;
				rt.logger.warn({ sessionId, code: outcome.code, message: outcome.message }, "model step failed");
				await rt.hub.emit({ type: "error", sessionId, code: outcome.code, message: outcome.message, retryable: true });
				break;
			}
			addUsage(record, outcome.usage);
			if (!outcome.content.some(says)) {
				// An empty reply (some local models send one now and then): ask again once, then report it.
				if (++empty < 2) continue;
				rt.logger.warn({ sessionId, agent: agent.name }, "the model sent empty replies; the turn ends");
				await rt.hub.emit({
					type: "error",
					sessionId,
					code: "empty-reply",
					message: "The tutor's AI model sent an empty reply. Send a message to try again.",
					retryable: true,
				});
				break;
			}
			const at = rt.now().toISOString();
			const settled = settleStep({
				record,
				agent,
				content: outcome.content,
				draftId,
				freshMessage: () => ({
					id: rt.newId(),
					role: "assistant",
					metadata: { kind: "tutor", agent: agent.name, at },
					parts: [],
				}),
			});
			draftId = settled.draftId;
			if (draftId !== undefined) addMessageUsage(record, draftId, outcome.usage);
			if (settled.recap) recapped = true;
			const more = settled.learnerPending === 0 && (settled.probeDone || settled.toolCalls > 0);
			// The last step's save also closes the turn (one write per step).
			if (!more) closeTurn(record);
			// Persist, then publish: a posted quiz must survive a crash to stay answerable.
			await save(rt, state);
			for (const event of settled.events) await rt.hub.emit(event);
			if (!more) break;
		}
	} finally {
		// A turn stopped by close() stays open on disk: the next start re-runs it (tutor.resume()).
		if (record.turnOpen && !rt.signal.aborted) {
			closeTurn(record);
			void save(rt, state);
		}
		await rt.hub.emit({ type: "typing", sessionId, active: false });
	}
	if (recapped && !record.ended && pendingLearnerCalls(record.messages).length === 0)
		await endLesson(rt, state, "completed");
}
