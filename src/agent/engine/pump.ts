/**
 * The per-session pump: delivers admitted events in order (record the answer,
 * append the message, end the lesson), then runs a turn when the tutor has
 * something to answer and no question is pending. One pump per session at a
 * time: that is what serializes a session's turns.
 */

import type { HandleResult, TutorEvent } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";

import { learnerMessageText } from "../prompts/context.ts";
import { isStoreConflict } from "../store/errors.ts";
import type { SessionLease } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import { gradePending, queueGrading } from "./grade-pending.ts";
import { answerHeld, holdOpen, unheldPending } from "./held-open.ts";
import { dropApplied, inboxSeen, pullInbox, pushInbox, rewindInbox } from "./inbox.ts";
import { refresh, takeLease, tryLease, underLease } from "./lease.ts";
import { endLesson } from "./lesson-end.ts";
import { notSavedMessage, restoreRecord, saveDelayedMessage, saveRetrying, snapshotRecord } from "./persist.ts";
import { storePictures } from "./pictures.ts";
import { dropQueued, readmitQueued } from "./queued.ts";
import { hasWorkLeft, recoverUnderLease } from "./recovery.ts";
import type { Job, SessionState } from "./session-state.ts";
import { type Applied, applyAnswer, applyHelp } from "./struggle.ts";
import { runTurn } from "./turn.ts";
import { applyVote, armVoteTimers, closeVote } from "./votes.ts";

/** The text of a message that is only pictures (a user message needs words for models that read text first). */
const PICTURE_ONLY = "(sent a picture)";
/** The words with the pictures sent with a typed answer (the answer itself is the question's result). */
const WORKING = "(my working for the answer above)";
const DELIVERED: HandleResult = { ok: true };
/** The store refused a batch: not saved (or busy in another instance), in the lesson's language (a message: send it again). */
const notSaved = (state: SessionState) => (job: Job) =>
	({
		ok: false,
		code: "store-unavailable",
		message: notSavedMessage(state.record.language, job.type === "message" ? "message" : "answer"),
	}) as const;

/** Apply one job to the record (no save); its events, whether it changed the record, whether a turn should run. */
async function applyJob(
	ctx: EngineContext,
	state: SessionState,
	job: Exclude<Job, { type: "end" }>,
): Promise<{ events: TutorEvent[]; changed: boolean; turn: boolean }> {
	const record = state.record;
	switch (job.type) {
		case "kick":
			return { events: [], changed: false, turn: true };
		case "answer": {
			// Pictures of the learner's working first (stored and charged as a message's; may reject).
			const pictures = job.images ? await storePictures(ctx, record, job) : undefined;
			// A first miss on a check quiz stays open (an attempt); everything else resolves the question.
			const applied = answered(ctx, state, applyAnswer(state, job.toolCallId, job.result));
			if (!pictures) return applied;
			// The answer is the call's result (judged as typed); the pictures follow it as the learner's message,
			// so the model sees them the way it sees a photo sent in the thread.
			const by = job.result.by;
			record.messages.push({
				id: ctx.newId(),
				role: "user",
				metadata: { kind: "learner", by, at: ctx.now().toISOString() },
				parts: [{ type: "text", text: learnerMessageText(WORKING, by, record.mode) }, ...pictures.parts],
			});
			return { events: [...applied.events, ...pictures.events], changed: true, turn: applied.turn };
		}
		case "help":
			return answered(ctx, state, await applyHelp(ctx, state, job));
		case "message": {
			// Pictures first (stored apart, charged to the budget; may reject): nothing is changed before.
			const pictures = await storePictures(ctx, record, job);
			// Not an answer: the questions open when it came stay open over the turn it runs (held-open.ts).
			holdOpen(record, job.holds);
			record.messages.push({
				id: ctx.newId(),
				role: "user",
				metadata: { kind: "learner", by: job.by, at: ctx.now().toISOString() },
				parts: [
					{ type: "text", text: learnerMessageText(job.text || PICTURE_ONLY, job.by, record.mode) },
					...pictures.parts,
				],
			});
			return { events: pictures.events, changed: true, turn: true };
		}
		case "vote":
			return applyVote(ctx, state, job.toolCallId, job.ballot);
		case "tally":
			return closeVote(ctx, state, job.toolCallId, true);
	}
}

/**
 * After an answer or a help job: a typed answer the judge could not decide goes to the grader before the
 * turn (same save); an answer to a question kept open over a turn reaches the model in a later message.
 */
function answered(ctx: EngineContext, state: SessionState, applied: Applied): Applied {
	let changed = applied.changed;
	for (const event of applied.events) {
		if (event.type !== "answered") continue;
		queueGrading(state, event);
		if (answerHeld(ctx, state, event)) changed = true;
	}
	return { ...applied, changed };
}

/** Arm the timers of the session's open votes (group lessons): a vote that comes due queues its tally. */
export function armVotes(ctx: EngineContext, state: SessionState): void {
	armVoteTimers(ctx, state, (toolCallId) => {
		if (ctx.signal.aborted) return;
		// Queued here; a pump that cannot take the lease hands it to the holder's inbox (a closed vote ignores a second one).
		state.queue.push({ type: "tally", toolCallId });
		kick(ctx, state);
	});
}

/**
 * How long a batch's save may be retried: bounded when someone waits for the verdict
 * (handle() on an idle session: refuse rather than keep the learner waiting), until the
 * store is back when the events were already accepted (queued during a turn).
 */
const retryWindow = (ctx: EngineContext, jobs: Job[]): number =>
	jobs.some((j) => j.delivered !== undefined) ? ctx.saveRetryMs : Number.POSITIVE_INFINITY;

/**
 * Deliver a batch of jobs: one save, then their events (persist, then publish); an end is
 * delivered on its own. A batch the store refuses is rolled back and its jobs refused
 * (the learner is told; nothing was recorded). Returns whether a turn should run.
 */
async function deliver(ctx: EngineContext, state: SessionState, jobs: Job[]): Promise<boolean> {
	const record = state.record;
	let batch = await applyBatch(ctx, state, jobs);
	// A lost race (another process saved this session first) is retried from a fresh read, never written over.
	for (let attempt = 0; ; attempt++) {
		if (!batch.changed && !batch.turn) break;
		try {
			await saveRetrying(ctx, state, retryWindow(ctx, jobs), async () => {
				if (retryWindow(ctx, jobs) === Number.POSITIVE_INFINITY)
					await storeNotice(ctx, state, saveDelayedMessage(record.language));
			});
			break;
		} catch (error) {
			restoreRecord(record, batch.before);
			if (isStoreConflict(error) && (error as { code?: unknown }).code === "store-fenced") {
				// Another process (or a later pump here) holds the session now: this lease was lost. It applies
				// these events from the inbox and the record; nothing is refused and nothing is said here.
				ctx.logger.warn(
					{ err: error, sessionId: record.sessionId },
					"the lease was lost; the new holder applies the events",
				);
				rewindInbox(state);
				state.stale = true;
				return false;
			}
			const again =
				attempt < 2 &&
				(error as { code?: unknown }).code === "store-conflict" &&
				(await refresh(ctx, state).catch(() => false));
			if (!again) {
				await refuseBatch(ctx, state, jobs);
				return false;
			}
			batch = await applyBatch(ctx, state, jobs);
		}
	}
	const { events, end: ending, turn } = batch;
	tellWaiters(
		jobs.filter((j) => j !== ending),
		DELIVERED,
	);
	for (const event of events) await ctx.hub.emit(event);
	if (state.record.votes) armVotes(ctx, state);
	if (ending) {
		const ended = await endLesson(ctx, state, ending.reason, {
			...(ending.by ? { by: ending.by } : {}),
			withinMs: retryWindow(ctx, [ending]),
			saved: () => {
				tellWaiters([ending], DELIVERED);
				// The end is on disk: its queued entry goes with the next save (an ended lesson admits nothing).
				if (dropQueued(state.record, [ending])) state.dirty = true;
			},
		});
		if (!ended) await refuseBatch(ctx, state, [ending]);
	}
	return turn;
}

/** Apply a batch of jobs to the record (no save), remembering the record as it was before. */
async function applyBatch(ctx: EngineContext, state: SessionState, jobs: Job[]) {
	const record = state.record;
	const before = snapshotRecord(record);
	const events: TutorEvent[] = [];
	let turn = false;
	let changed = false;
	let end: Extract<Job, { type: "end" }> | undefined;
	try {
		for (const job of jobs) {
			if (record.ended) break;
			if (job.type === "end") {
				end = job;
				break; // nothing is admitted after an end
			}
			const applied = await applyJob(ctx, state, job);
			// In the same run of microtasks as the job's effect (no save can start between): both, or neither, on disk.
			if (dropQueued(record, [job])) changed = true;
			events.push(...applied.events);
			if (applied.turn) turn = true;
			if (applied.changed) changed = true;
		}
	} catch (error) {
		// A job that could not be applied (a picture the store would not take): the batch is not half-applied.
		restoreRecord(record, before);
		throw error;
	}
	// Queued jobs not applied (the lesson ended before them) are dropped with this save.
	if (dropQueued(record, end ? jobs.filter((j) => j !== end) : jobs)) changed = true;
	// Inbox entries taken into this batch are marked applied in the same save.
	const seen = inboxSeen(state);
	if (seen > (record.inbox ?? 0)) {
		record.inbox = seen;
		changed = true;
	}
	// Questions kept open (the learner asked something first) do not hold the turn back; others do.
	turn = turn && !end && !ctx.signal.aborted && unheldPending(record).length === 0;
	// The turn about to run is marked in the same write (one save per delivery, not two).
	if (turn) record.turnOpen = true;
	return { before, events, turn, changed, end };
}

/** Tell the jobs' waiters the store refused them; jobs nobody waits for get a notice in the thread. */
async function refuseBatch(ctx: EngineContext, state: SessionState, jobs: Job[]): Promise<void> {
	const outcome = notSaved(state);
	// A queued job is in the stored record (engine/queued.ts): refused here only as the tutor closes, the next start applies it.
	const unheard = jobs.find((j) => j.delivered === undefined && j.type !== "kick" && j.queued === undefined);
	tellWaiters(jobs, outcome);
	if (unheard) await storeNotice(ctx, state, outcome(unheard).message);
}

/** An `error` event about the store (not saved, or saved late). */
function storeNotice(ctx: EngineContext, state: SessionState, message: string): Promise<void> {
	return ctx.hub.emit({
		type: "error",
		sessionId: state.record.sessionId,
		code: "store-unavailable",
		message,
		retryable: true,
	});
}

/** Tell the jobs' waiters how delivery ended (once each). */
function tellWaiters(jobs: Job[], outcome: HandleResult | ((job: Job) => HandleResult)): void {
	for (const job of jobs) {
		job.delivered?.(typeof outcome === "function" ? outcome(job) : outcome);
		job.delivered = undefined;
	}
}

/**
 * Run the session's work once the turn gate lets it in (turn-gate.ts: a saturated process holds it
 * back; what the learner sent is recorded already, in the inbox or the queue).
 */
async function gated<T>(ctx: EngineContext, work: () => Promise<T>): Promise<T> {
	const release = await ctx.turnGate?.enter(ctx.signal);
	try {
		return await work();
	} finally {
		release?.();
	}
}

async function pump(ctx: EngineContext, state: SessionState, taken?: SessionLease): Promise<void> {
	const sessionId = state.record.sessionId;
	// Each round takes the lease, applies the queue and the inbox, gives it back, and looks again: an entry
	// appended while this process held the lease (its sender could not take it) is run here, not stranded.
	for (let round = 0; round < 100 && !ctx.signal.aborted; round++) {
		// The round's first batch is what was queued when it began (events that come while it takes the lease are
		// the next batch, as if it had taken it at once).
		const first = state.queue.length;
		try {
			// Taken by handle() or by one try here: the record was re-read under it already.
			const handed = round === 0 ? taken : undefined;
			const fresh = handed ? undefined : await enter(ctx, state);
			const lease = handed ?? fresh ?? (await takeLease(ctx, state));
			if (!lease) return await handOver(ctx, state); // another process holds it and applies the inbox
			// Deliveries are not held back by the turn gate (their senders wait for the verdict): turns and gradings are.
			await underLease(
				ctx,
				state,
				lease,
				async () => {
					readmitQueued(ctx, state);
					// What a last run left behind (rare) waits for the gate; a delivery does not.
					if (hasWorkLeft(state.record)) await gated(ctx, () => recoverUnderLease(ctx, state));
					await drain(ctx, state, first);
					// Applied entries go before the lease does (a crashed holder may have left some applied, not dropped).
					await dropApplied(ctx, state);
				},
				fresh !== undefined,
			);
			if (state.queue.length > 0 && !state.stale) continue;
			const waiting = await ctx.store.inbox.count(sessionId, inboxSeen(state) + 1);
			if (!waiting) return;
		} catch (error) {
			// The store failed: the entries stay in the inbox; the session is due for whoever can take it.
			ctx.logger.warn({ err: error, sessionId }, "running the session's inbox failed");
			rewindInbox(state);
			return;
		}
	}
}

/**
 * One try at the session's lease, during which handle() waits (engine/receive.ts): an event that comes
 * while this pump takes the lease is admitted under it, after what the pump has queued.
 */
async function enter(ctx: EngineContext, state: SessionState): Promise<SessionLease | undefined> {
	// handle() is taking it: the lease it takes is this round's.
	for (let i = 0; i < 100 && state.entering; i++) await state.entering;
	if (state.held) {
		const held = state.held;
		state.held = undefined;
		return held;
	}
	let entered!: () => void;
	state.entering = new Promise<void>((done) => (entered = done));
	try {
		// The fence now, and the stored record: an event admitted from here on is checked against it and rides this lease's saves.
		const lease = await tryLease(ctx, state);
		if (!lease) return undefined;
		try {
			await refresh(ctx, state, undefined, lease);
		} catch (error) {
			state.fence = undefined;
			await lease.release(true);
			throw error;
		}
		return lease;
	} finally {
		state.entering = undefined;
		entered();
	}
}

/**
 * The lease is another process's: jobs queued here that nobody waits for (a vote's tally, a first turn)
 * go to its inbox; events queued in the record are there for it already (it admits them again).
 */
async function handOver(ctx: EngineContext, state: SessionState): Promise<void> {
	for (const job of state.queue.splice(0)) {
		if (job.queued !== undefined) continue;
		if (job.type === "kick" || job.type === "tally") {
			const body =
				job.type === "kick" ? { kind: "kick" as const } : { kind: "tally" as const, toolCallId: job.toolCallId };
			await pushInbox(ctx, state, body).catch((error: unknown) =>
				ctx.logger.warn(
					{ err: error, sessionId: state.record.sessionId },
					"handing a job to the session's holder failed",
				),
			);
		} else job.delivered?.(notSaved(state)(job));
	}
	state.claims.clear();
	state.ending = false;
}

/** Deliver the queue (and the inbox) in batches, each followed by its turn; each turn and grading passes the gate. */
async function drain(ctx: EngineContext, state: SessionState, first = 0): Promise<void> {
	const turnGate = <T>(work: () => Promise<T>): Promise<T> => gated(ctx, work);
	const sessionId = state.record.sessionId;
	for (let round = 0; round < 100_000; round++) {
		// What other processes appended to the inbox, in order (after this process's own queue).
		if (!ctx.signal.aborted && !state.stale) await pullInbox(ctx, state);
		if (state.queue.length === 0 || state.stale) break;
		const jobs = round === 0 && first > 0 ? state.queue.splice(0, first) : state.queue.splice(0);
		let turn = false;
		try {
			// A save was refused as stale meanwhile: what follows is applied to the stored record.
			if (state.stale) await refresh(ctx, state);
			turn = await deliver(ctx, state, jobs);
		} catch (error) {
			ctx.logger.error({ err: error, sessionId }, "delivering learner events failed");
		} finally {
			tellWaiters(jobs, notSaved(state));
		}
		// Pending gradings first (also after a restart: resume re-runs the open turn), so the turn sees verdicts.
		// They run even when no turn follows (another question is still open): the card should not wait on it.
		if (state.record.grading && !ctx.signal.aborted)
			await turnGate(async () => {
				try {
					// A check's first miss found by the grader waits for the second try: no turn.
					if (!(await gradePending(ctx, state))) turn = false;
				} catch (error) {
					ctx.logger.error({ err: error, sessionId }, "grading failed");
				}
			});
		if (!turn || ctx.signal.aborted) continue;
		const lost = await turnGate(async () => {
			try {
				await runTurn(ctx, state);
				return false;
			} catch (error) {
				if (isStoreConflict(error)) {
					// The lease was lost mid-turn (paused, partitioned): the new holder runs the turn again.
					ctx.logger.warn({ err: error, sessionId }, "the turn's save was refused: another process holds the session");
					return true;
				}
				ctx.logger.error({ err: error, sessionId }, "turn failed");
				await ctx.hub.emit({
					type: "error",
					sessionId,
					code: "internal-error",
					message: t(state.record.language ?? DEFAULT_LOCALE, "engine.internal"),
					retryable: true,
				});
				return false;
			}
		});
		if (lost) break;
	}
}

/** Start the session's pump unless it is running; `held`: a lease of the session already taken (its first round uses it). */
export function kick(ctx: EngineContext, state: SessionState, held?: SessionLease): void {
	if (state.pump) {
		// The running pump takes the lease itself; this one goes back, the session still due for whoever can run it.
		void held?.release(true);
		return;
	}
	state.pump = pump(ctx, state, held).finally(() => {
		state.pump = undefined;
		// Jobs queued as the last round ended (a vote's timer): another round takes them.
		if (state.queue.length > 0 && !ctx.signal.aborted && !state.stale) kick(ctx, state);
	});
}
