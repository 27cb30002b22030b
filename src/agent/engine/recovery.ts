/**
 * Recovery: what a session's last run left behind (a kill, a crash, a holder that paused past its
 * lease) is put right with one set of rules, on every store, by the process that takes the
 * session's lease next (`recoverUnderLease`, at the start of every lease round). At this process's
 * start resume() hands every open session to the watcher (`createTakeovers`), which also finds the
 * sessions other processes left behind. The rules:
 * - repair: calls that can never complete get an "interrupted" error result (the replay invariant:
 *   every call has a result); quizzes and asks stay pending and answerable; the open turn is closed;
 * - a turn cut off with no question open is re-run, at most MAX_RERUNS times in a row (a turn that
 *   kills the process must not loop), then the learner is told (`cutOffNotice`), never silence;
 * - questions saved but perhaps never posted are offered again, the count of offers saved before
 *   each (`record.reposted`): the second offer posts them as text, and there is no third (the notice);
 * - a grading cut off runs again (a kick with a question open runs no turn: the pump grades, then waits);
 * - events a record of an earlier version holds in `record.queued` are admitted again (queued.ts).
 * What recovery posts must reach a platform: it runs once someone listens.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import { LEARNER_TOOLS, pendingLearnerCalls, toolNameOf, toolParts } from "../../core/transcript.ts";
import { DEFAULT_LOCALE, t } from "../../i18n/index.ts";
import type { SessionLease, SessionRecord } from "../store/types.ts";
import type { EngineContext } from "./context.ts";
import { LEASE_TTL_MS, POSTED_WAIT_MS } from "./lease.ts";
import { save, saveUntilStored } from "./persist.ts";
import { type QuestionEvent, replayEvents } from "./question-events.ts";
import { erroredPart, replaceToolPart } from "./record-edit.ts";
import type { SessionState } from "./session-state.ts";

// ---- Repair ----

/** The error result of an interrupted call (the model sees it). */
export const INTERRUPTED_TEXT =
	"interrupted: the tutor restarted before this call completed. Call the tool again if it is still needed.";

/** What repairRecord found. */
export interface Repair {
	/** The record changed (the caller saves it). */
	changed: boolean;
	/** A turn was running when the process stopped (it never finished). */
	cutOff: boolean;
}

/** Repair the record in place (dangling calls get an error result; the turn is closed). */
export function repairRecord(record: SessionRecord): Repair {
	const dangling: string[] = [];
	for (const part of toolParts(record.messages)) {
		const name = toolNameOf(part.type) ?? "";
		const waitsForLearner = part.state === "input-available" && LEARNER_TOOLS.has(name);
		if ((part.state === "input-available" || part.state === "input-streaming") && !waitsForLearner)
			dangling.push(part.toolCallId);
	}
	for (const id of dangling) replaceToolPart(record, id, (part) => erroredPart(part, INTERRUPTED_TEXT));
	const cutOff = record.turnOpen === true;
	record.turnOpen = false;
	return { changed: dangling.length > 0 || cutOff, cutOff };
}

// ---- Cut-off turns ----

/** Re-runs of one cut-off turn in a row (restart or takeover), before it waits for the learner instead. */
export const MAX_RERUNS = 2;

/**
 * What follows a turn cut off with no question open (`cutOff`: the repair found it open): a re-run,
 * at most MAX_RERUNS in a row, then a notice to the learner; "none" when the turn was not cut off or
 * a question waits for the learner.
 */
export function afterCutOff(record: SessionRecord, cutOff: boolean): "rerun" | "notice" | "none" {
	if (!cutOff || pendingLearnerCalls(record.messages).length > 0) return "none";
	const reruns = typeof record.reruns === "number" ? record.reruns : 0;
	return reruns < MAX_RERUNS ? "rerun" : "notice";
}

/** The learner's notice that the tutor stopped (a turn cut off too often, questions that never got out). */
export function cutOffNotice(record: SessionRecord): TutorEvent {
	const message = t(record.language ?? DEFAULT_LOCALE, "engine.cutOff");
	return { type: "error", sessionId: record.sessionId, code: "cut-off", message, retryable: false };
}

// ---- Questions never posted ----

/** Offers of the same unposted questions posted as asked; the next offer posts them as text. */
export const REPOSTS_AS_ASKED = 1;
/** Offers of the same unposted questions at most; after them the learner is told instead. */
export const MAX_REPOSTS = 2;

/** What a recovery does with questions saved but perhaps never posted. */
export interface Reoffer {
	/** The events to post: as asked, as text (`plain`) after REPOSTS_AS_ASKED offers, none once given up. */
	events: QuestionEvent[];
	/** MAX_REPOSTS offers of these questions were made already, and each start died before they were out. */
	gaveUp: boolean;
	/** Marks of questions no longer open were dropped (the record changed). */
	cleared?: true;
}

/** How often these very questions were offered (a count read from disk: checked, not trusted). */
function timesOffered(record: SessionRecord, ids: readonly string[]): number {
	const seen = record.reposted;
	if (typeof seen !== "object" || seen === null || !Array.isArray(seen.ids)) return 0;
	if (seen.ids.length !== ids.length || seen.ids.some((id, i) => id !== ids[i])) return 0;
	return Number.isSafeInteger(seen.times) && seen.times > 0 ? seen.times : 0;
}

/**
 * The offer of the record's unposted questions (`replay`: their events), counted in `record.reposted`:
 * the caller saves the record before posting, so a process the post kills is seen by the next one. A
 * question whose posts died twice goes out as text (math as code); one that died every time is not
 * offered again (`gaveUp`: `unpublished` is dropped here, and the caller tells the learner).
 */
export function reofferQuestions(record: SessionRecord, replay: readonly QuestionEvent[]): Reoffer {
	if (replay.length === 0) {
		// Marked but no longer open (answered since, or the mark of a posted card no save carried): nothing to offer.
		const stale = record.unpublished !== undefined || record.reposted !== undefined;
		delete record.unpublished;
		delete record.reposted;
		return { events: [], gaveUp: false, ...(stale ? { cleared: true } : {}) };
	}
	const ids = record.unpublished ?? replay.map((e) => e.toolCallId);
	const before = timesOffered(record, ids);
	if (before >= MAX_REPOSTS) {
		delete record.reposted;
		delete record.unpublished;
		return { events: [], gaveUp: true };
	}
	record.reposted = { ids: [...ids], times: before + 1 };
	const plain = before >= REPOSTS_AS_ASKED;
	return { events: plain ? replay.map((e) => ({ ...e, plain: true })) : [...replay], gaveUp: false };
}

/** The questions offered are out: their marks go with the next save (no later start offers them again). */
function offered(state: SessionState): void {
	delete state.record.unpublished;
	delete state.record.reposted;
	state.dirty = true;
}

// ---- Under the lease (a restart or a takeover) ----

/** True when the record's last holder left work behind: a cut-off turn, questions perhaps never posted, a grading. */
export function hasWorkLeft(record: SessionRecord): boolean {
	if (record.ended) return false;
	return record.turnOpen === true || (record.unpublished?.length ?? 0) > 0 || (record.grading?.length ?? 0) > 0;
}

/**
 * Repair and save, re-post (bounded: reofferQuestions), and queue a kick that re-runs the turn
 * (bounded by MAX_RERUNS, then the learner is told) or the grading.
 */
export async function recoverUnderLease(ctx: EngineContext, state: SessionState): Promise<void> {
	const record = state.record;
	if (!hasWorkLeft(record)) return;
	const unpublished = record.unpublished ?? [];
	const repair = repairRecord(record);
	const offer = reofferQuestions(record, replayEvents(record, unpublished));
	const next = afterCutOff(record, repair.cutOff);
	const rerun = next === "rerun";
	if (rerun) record.reruns = (record.reruns ?? 0) + 1;
	// Persist, then publish: the repair and the count of offers first (a holder the posts kill leaves the
	// count for the next one), then the questions (adapters skip the ones already posted).
	if (repair.changed || offer.events.length > 0 || offer.gaveUp || offer.cleared) await saveUntilStored(ctx, state);
	for (const event of offer.events) await ctx.hub.emit(event);
	// Cleared on disk once the platforms have them (or POSTED_WAIT_MS passed), not while they post: a
	// process these posts kill leaves the count for the next one.
	if (offer.events.length > 0) {
		await ctx.hub.drained(record.sessionId, POSTED_WAIT_MS);
		offered(state);
		await save(ctx, state).catch((error: unknown) =>
			ctx.logger.warn({ err: error, sessionId: record.sessionId }, "saving the re-posted questions' marks failed"),
		);
	}
	if (next === "notice" || offer.gaveUp) await ctx.hub.emit(cutOffNotice(record));
	if (rerun || (record.grading?.length ?? 0) > 0) state.queue.push({ type: "kick" });
	ctx.logger.info(
		{
			sessionId: record.sessionId,
			rerun,
			replayed: offer.events.length,
			gaveUp: offer.gaveUp || next === "notice",
			fence: state.fence,
		},
		"session taken over: its last holder left work behind",
	);
}

// ---- Sessions nobody runs any more ----

/** How often a process looks for due sessions. */
export const WATCH_MS = 2_000;
/** Due sessions listed per page; a look reads pages while they come back full, at most `DUE_PAGES`. */
const DUE_PAGE = 100;
const DUE_PAGES = 20;
/** Sessions taken at once (a lease and a read each): a dead process may leave hundreds due together. */
const TAKE_AT_ONCE = 8;

/** What the watcher needs from the tutor. */
export interface TakeoverDeps {
	/** The live state of a session, loaded from the store when needed. */
	load(sessionId: string): Promise<SessionState | undefined>;
	/** Start the session's pump with the lease just taken (its first round uses it). */
	kick(state: SessionState, lease: SessionLease): void;
	/** True while a pump of this process runs the session. */
	running(sessionId: string): boolean;
}

/** The watcher of due sessions (every store lists them: the embedded one's inbox is in this process). */
export interface Takeovers {
	/** Take these sessions when possible (resume() at start hands over every open one). */
	schedule(sessionIds: Iterable<string>): void;
	/** Start polling (once someone listens: re-posted questions must reach a platform). */
	start(): void;
	stop(): void;
	/** Resolves once the look under way (if any) has handed what it took to their pumps. */
	swept(): Promise<void>;
}

/**
 * The watcher. A holder that dies (`kill -9`), pauses past its lease (`SIGSTOP`, a long GC pause) or is
 * cut off leaves the session "due" in the store (work left, or entries in its inbox, and no live lease).
 * Every process with a listener polls for due sessions (every `everyMs`, jittered) and takes each one it
 * can: its pump recovers it under the lease (recoverUnderLease) and applies the inbox. So a turn cut off
 * by a dead process runs again within about the lease's TTL plus one poll, not only at the next restart.
 */
export function createTakeovers(ctx: EngineContext, deps: TakeoverDeps, everyMs = WATCH_MS): Takeovers {
	const scheduled = new Set<string>();
	let timer: NodeJS.Timeout | undefined;

	const take = async (sessionId: string): Promise<void> => {
		// A pump of this process runs it (a turn past its lease: paused, cut off from the store): another process takes it.
		if (deps.running(sessionId)) return;
		// The lease first (cheap): a session another process holds is theirs, and is not even read here.
		const lease = await ctx.store.acquire(sessionId, ctx.leaseTtlMs ?? LEASE_TTL_MS);
		if (!lease) return;
		let state: SessionState | undefined;
		try {
			state = await deps.load(sessionId);
		} catch (error) {
			await lease.release(true);
			throw error;
		}
		if (state) return deps.kick(state, lease);
		// No such session any more (deleted, forgotten): clear what is left of it so it is not due forever.
		await ctx.store.inbox.drop(sessionId, Number.MAX_SAFE_INTEGER).catch(() => undefined);
		await lease.release(false);
	};

	/** Take `ids`, `TAKE_AT_ONCE` at a time. */
	const takeAll = async (ids: string[]): Promise<void> => {
		let next = 0;
		const worker = async () => {
			while (next < ids.length && !ctx.signal.aborted) {
				const sessionId = ids[next++] as string;
				await take(sessionId).catch((error: unknown) =>
					ctx.logger.warn({ err: error, sessionId }, "taking over a session failed"),
				);
			}
		};
		await Promise.all(Array.from({ length: Math.min(TAKE_AT_ONCE, ids.length) }, worker));
	};

	let sweeping: Promise<void> | undefined;
	/** Another look is wanted once this one ends (sessions scheduled while it ran). */
	let again = false;
	const look = async (): Promise<void> => {
		for (let page = 0; page < DUE_PAGES && !ctx.signal.aborted; page++) {
			const due = await ctx.store.inbox.due(DUE_PAGE);
			const ids = [...new Set([...scheduled, ...due])];
			scheduled.clear();
			await takeAll(ids);
			// A full page: more may be due (a process with hundreds of lessons died); the ones taken are not due now.
			if (due.length < DUE_PAGE) break;
		}
	};
	const sweep = (): Promise<void> => {
		if (ctx.signal.aborted) return Promise.resolve();
		if (sweeping) {
			again = true;
			return sweeping;
		}
		sweeping = (async () => {
			for (let i = 0; i < 10; i++) {
				again = false;
				try {
					await look();
				} catch (error) {
					ctx.logger.warn({ err: error }, "looking for sessions left behind failed");
				}
				if (!again || scheduled.size === 0) break;
			}
		})().finally(() => {
			sweeping = undefined;
		});
		return sweeping;
	};

	return {
		schedule(sessionIds) {
			for (const id of sessionIds) scheduled.add(id);
			if (timer) void sweep();
		},
		swept: () => sweeping ?? Promise.resolve(),
		start() {
			if (timer) return;
			// Jittered, so processes started together do not poll in step.
			timer = setInterval(() => void sweep(), everyMs + Math.floor(Math.random() * (everyMs / 4)));
			timer.unref();
			void sweep();
		},
		stop() {
			clearInterval(timer);
			timer = undefined;
		},
	};
}
