/**
 * A turn: model steps until the tutor waits on the learner (a quiz or ask),
 * ends its turn with text, or hits the step limit. When the prober concludes
 * (probe_done), the teacher's turn follows at once (auto-wake). After a recap
 * with no further question, the lesson ends ("completed").
 */

import type { Reservation } from "../../core/contracts/budget.ts";
import { pendingLearnerCalls, probeConcluded } from "../../core/transcript.ts";
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import { isStoreConflict } from "../store/errors.ts";
import type { SessionRecord } from "../store/types.ts";
import { agentFor } from "./agents.ts";
import { reportUsage, reserveUsage, turnPayer } from "./budget.ts";
import type { EngineContext } from "./context.ts";
import { refuseWhileHeld, reofferEvents } from "./held-open.ts";
import { endLesson } from "./lesson-end.ts";
import { materialFor, withMaterial } from "./material.ts";
import { isPictureRefusal } from "./model-retry.ts";
import type { StepContent, StepUsage } from "./model-step.ts";
import { runModelStep } from "./model-step.ts";
import { save, saveUntilStored } from "./persist.ts";
import { markRefused, refusedNotice, requestMessages } from "./pictures.ts";
import { addMessageUsage } from "./record-edit.ts";
import { holdForRevote, openRevoteIfDue, revotePending } from "./revote.ts";
import type { SessionState } from "./session-state.ts";
import { settleStep } from "./settle-step.ts";

const NO_USAGE: StepUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };

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
export async function runTurn(rt: EngineContext, state: SessionState): Promise<void> {
	const record = state.record;
	const sessionId = record.sessionId;
	const payer = turnPayer(record);
	record.turnOpen = true;
	// Counted before the first request: a learner's picture goes to the model for PICTURE_TURNS turns.
	record.turns = (record.turns ?? 0) + 1;
	// With cost caps, typing starts once the first request's reservation is granted (a refused turn shows none).
	let typing = false;
	const typingOn = async () => {
		if (typing) return;
		typing = true;
		await rt.hub.emit({ type: "typing", sessionId, active: true });
	};
	if (!rt.budget) await typingOn();
	let agentName: string | undefined;
	let draftId: string | undefined;
	let steps = 0;
	let empty = 0;
	let recapped = false;
	/** A request refused for its pictures is retried without them once a turn. */
	let withoutPictures = false;
	// A lesson with material: its index, once per turn (the search and citation checks read it in memory).
	const material = await materialFor(rt.material, record, rt.logger);
	try {
		while (!record.ended && !rt.signal.aborted) {
			const base = probeConcluded(record.messages) ? rt.agents.teacher : rt.agents.prober;
			const agent = agentFor(record.material ? withMaterial(base) : base, record.language);
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
						message: t(record.language ?? DEFAULT_LOCALE, "tutor.stepLimit", { steps }),
						retryable: true,
					});
				break;
			}
			steps++;
			const request = await requestMessages(rt, record);
			const model = rt.models[agent.name];
			// Cost caps: each step reserves its estimate before it is sent, and hands it back with its usage.
			let reservation: Reservation | undefined;
			const reserve = async (estimate: { inputTokens: number; outputTokens: number }) => {
				const reserved = await reserveUsage(rt, sessionId, payer, agent.name, model, estimate);
				if (!reserved.ok) return reserved.message;
				reservation = reserved.reservation;
				await typingOn();
				return undefined;
			};
			const outcome = await runModelStep({
				model,
				agent,
				messages: request.messages,
				maxRetries: rt.maxRetries,
				retryDelayMs: rt.retryDelayMs,
				timeoutMs: rt.requestTimeoutMs,
				...(record.language ? { locale: record.language } : {}),
				totalTimeoutMs: rt.totalTimeoutMs,
				telemetry: rt.telemetry,
				abortSignal: rt.signal,
				maxOutputTokens: rt.maxOutputTokens,
				...(rt.budget ? { reserve } : {}),
			});
			if (!outcome.ok) {
				// A failed request's usage is unknown: its reservation is given back.
				if (reservation) await reportUsage(rt, sessionId, payer, agent.name, model, NO_USAGE, reservation);
				if (outcome.code === "budget") {
					// Refused before it was sent: the turn ends here, every earlier step saved with its results, and
					// what triggered it stays recorded (a message continues it later).
					await rt.hub.emit({ type: "error", sessionId, code: "budget", message: outcome.message, retryable: false });
					break;
				}
				if (rt.signal.aborted) break;
				if (!withoutPictures && isPictureRefusal(outcome.error, request.carried.length > 0)) {
					// The provider refused a request carrying pictures: they are marked (the model sees their
					// placeholder from now on, saved with the step), the thread is told, and the step runs again.
					withoutPictures = true;
					const marked = markRefused(record, request.carried);
					rt.logger.warn(
						{ sessionId, code: outcome.code, pictures: marked },
						"the model refused pictures; retrying without",
					);
					await rt.hub.emit(refusedNotice(record, marked));
					steps--;
					continue;
				}
				rt.logger.warn({ sessionId, code: outcome.code, message: outcome.message }, "model step failed");
				await rt.hub.emit({ type: "error", sessionId, code: outcome.code, message: outcome.message, retryable: true });
				break;
			}
			addUsage(record, outcome.usage);
			await reportUsage(rt, sessionId, payer, agent.name, model, outcome.usage, reservation);
			if (!outcome.content.some(says)) {
				// An empty reply (some local models send one now and then): ask again once, then report it.
				if (++empty < 2) continue;
				rt.logger.warn({ sessionId, agent: agent.name }, "the model sent empty replies; the turn ends");
				await rt.hub.emit({
					type: "error",
					sessionId,
					code: "empty-reply",
					message: t(record.language ?? DEFAULT_LOCALE, "tutor.emptyReply"),
					retryable: true,
				});
				break;
			}
			const at = rt.now().toISOString();
			// Group lessons: while a revote is due this turn is the discussion, nothing else (revote.ts).
			const discussing = revotePending(record.messages) !== undefined;
			const settled = settleStep({
				record,
				agent,
				// Group lessons: a due revote's discussion comes first (engine/revote.ts); a question kept open (the
				// learner asked something first) is answered before anything new is asked (held-open.ts).
				content: refuseWhileHeld(
					record,
					(name) => agent.tools.get(name)?.learner === true,
					holdForRevote(record.messages, outcome.content),
				),
				draftId,
				...(material ? { material } : {}),
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
			// The discussion ends with its first words: the revote opens, and no step runs past it.
			const discussed = discussing && outcome.content.some((c) => c.type === "text" && c.text.trim() !== "");
			const more = !discussed && settled.learnerPending === 0 && (settled.probeDone || settled.toolCalls > 0);
			// The last step's save also closes the turn (one write per step).
			if (!more) closeTurn(record);
			// Questions saved by this step but not yet posted: a crash before they are posted re-posts them on restart.
			const asked = settled.events.filter((e) => e.type === "quiz" || e.type === "ask").map((e) => e.toolCallId);
			if (asked.length > 0) record.unpublished = asked;
			// Persist, then publish: a posted quiz must survive a crash to stay answerable. A store that
			// fails is retried until it is back (the learner is told once); nothing is posted meanwhile.
			try {
				await saveUntilStored(rt, state);
			} catch (error) {
				// A closing tutor stops the retries: the step stays unsaved and the turn open on disk (resume re-runs it).
				// A refused copy (shared stores: the lease was lost, another process holds the session) is dropped
				// unposted: the new holder runs the turn again.
				if (isStoreConflict(error))
					rt.logger.warn({ err: error, sessionId }, "the step's save was refused: another process holds the session");
				else rt.logger.warn({ err: error, sessionId }, "the tutor closed before the step could be saved");
				break;
			}
			for (const event of settled.events) await rt.hub.emit(event);
			// Posted: the mark goes to disk with the next save (a crash before it only re-offers a posted card).
			if (record.unpublished) {
				delete record.unpublished;
				state.dirty = true;
			}
			if (!more) break;
		}
	} finally {
		// A turn stopped by close() stays open on disk: the next start re-runs it (tutor.resume()).
		if (record.turnOpen && !rt.signal.aborted && !state.stale) {
			closeTurn(record);
			// Best effort: a turnOpen left on disk only makes a restart re-run the turn (bounded).
			save(rt, state).catch((error: unknown) =>
				rt.logger.warn({ err: error, sessionId }, "closing the turn could not be saved"),
			);
		}
		if (typing) await rt.hub.emit({ type: "typing", sessionId, active: false });
	}
	// A lost lease: this copy is not the session any more (the new holder goes on from the stored one).
	if (state.stale) return;
	// The questions kept open over this turn are offered again under the tutor's reply.
	if (steps > 0 && !record.ended && !rt.signal.aborted)
		for (const event of reofferEvents(record)) await rt.hub.emit(event);
	if (!record.ended && !rt.signal.aborted && pendingLearnerCalls(record.messages).length === 0)
		await openRevoteIfDue(rt, state);
	if (recapped && !record.ended && pendingLearnerCalls(record.messages).length === 0)
		await endLesson(rt, state, "completed", { withinMs: Number.POSITIVE_INFINITY });
}
