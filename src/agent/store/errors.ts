/**
 * Store failures as one error type with a string code, so the engine can tell
 * "the store did not save this" from a bug, and say so to the learner.
 */

/**
 * Why a store operation failed: unreachable or refused (`unavailable`), too slow (`timeout`),
 * or a SQLite file another process holds (`locked`).
 */
export type StoreErrorCode = "store-unavailable" | "store-timeout" | "store-locked";

/** A store operation that did not happen. What it was to save is not on disk. */
export class StoreError extends Error {
	readonly code: StoreErrorCode;
	constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
		super(message, options);
		this.name = "StoreError";
		this.code = code;
	}
}

/** Why a save was refused although the store works: a newer version is stored, or a later lease was granted. */
export type StoreConflictCode = "store-conflict" | "store-fenced";

/**
 * A save refused because the writer's copy is stale: another writer saved first (`store-conflict`)
 * or took the session's lease meanwhile (`store-fenced`). Nothing was written; retrying the same
 * copy cannot succeed: read the record again.
 */
export class StoreConflictError extends Error {
	readonly code: StoreConflictCode;
	constructor(code: StoreConflictCode, message: string) {
		super(message);
		this.name = "StoreConflictError";
		this.code = code;
	}
}

/** True for a StoreConflictError (a stale copy, not a failing store). */
export function isStoreConflict(error: unknown): error is StoreConflictError {
	const code = (error as { code?: unknown } | null)?.code;
	return error instanceof StoreConflictError || code === "store-conflict" || code === "store-fenced";
}

/** True for a StoreError (or anything carrying its codes). */
export function isStoreError(error: unknown): error is StoreError {
	const code = (error as { code?: unknown } | null)?.code;
	return (
		error instanceof StoreError || code === "store-unavailable" || code === "store-timeout" || code === "store-locked"
	);
}

/** A deadline timer this much late (or more) fired after a pause of this process (SIGSTOP, a long GC), not the store's delay. */
const PAUSED_LAG_MS = 250;

/**
 * Run a store operation with a deadline: a hung connection becomes a StoreError instead of a wait forever.
 * A deadline that comes due while this process was paused (its timer fires late) gives the store a second
 * chance of up to 2 s: the answer may be waiting unread on the socket (timers run before I/O on waking), and
 * failing every call in flight at once would turn one pause into a burst of "could not be loaded".
 */
export async function withDeadline<T>(what: string, ms: number, work: () => Promise<T>): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<never>((_, reject) => {
		const fail = () => reject(new StoreError("store-timeout", `the store did not answer within ${ms} ms (${what})`));
		const due = performance.now() + ms;
		timer = setTimeout(() => {
			if (performance.now() - due < PAUSED_LAG_MS) return fail();
			timer = setTimeout(fail, Math.min(ms, 2_000));
		}, ms);
	});
	try {
		return await Promise.race([
			work().catch((error: unknown) => {
				throw isStoreError(error) || isStoreConflict(error)
					? error
					: new StoreError("store-unavailable", `${what} failed: ${reason(error)}`, { cause: error });
			}),
			late,
		]);
	} finally {
		clearTimeout(timer);
	}
}

/**
 * The telling part of an error and its causes, each message once ("a: b" rather than
 * "a: b: b" when a wrapper repeats its cause), first lines only.
 */
export function reason(error: unknown): string {
	const lines: string[] = [];
	for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
		const line = (e instanceof Error ? e.message : String(e)).split("\n")[0]?.trim() ?? "";
		if (line !== "" && !lines.some((kept) => kept.includes(line))) lines.push(line);
		e = e instanceof Error ? (e as { cause?: unknown }).cause : undefined;
	}
	return lines.join(": ") || "unknown error";
}
