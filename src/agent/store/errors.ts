/**
 * Store failures as one error type with a string code, so the engine can tell
 * "the store did not save this" from a bug, and say so to the learner.
 */

/** Why a store operation failed: unreachable or refused (`unavailable`), or too slow (`timeout`). */
export type StoreErrorCode = "store-unavailable" | "store-timeout";

/** A store operation that did not happen. What it was to save is not on disk. */
export class StoreError extends Error {
	readonly code: StoreErrorCode;
	constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
		super(message, options);
		this.name = "StoreError";
		this.code = code;
	}
}

/** True for a StoreError (or anything carrying its codes). */
export function isStoreError(error: unknown): error is StoreError {
	const code = (error as { code?: unknown } | null)?.code;
	return error instanceof StoreError || code === "store-unavailable" || code === "store-timeout";
}

/** Run a store operation with a deadline: a hung connection becomes a StoreError instead of a wait forever. */
export async function withDeadline<T>(what: string, ms: number, work: () => Promise<T>): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() => reject(new StoreError("store-timeout", `the store did not answer within ${ms} ms (${what})`)),
			ms,
		);
	});
	try {
		return await Promise.race([
			work().catch((error: unknown) => {
				throw isStoreError(error)
					? error
					: new StoreError("store-unavailable", `${what} failed: ${reason(error)}`, { cause: error });
			}),
			late,
		]);
	} finally {
		clearTimeout(timer);
	}
}

/** The most telling line of a driver error (Redis's generic "not connected" hides its cause in `cause`). */
export function reason(error: unknown): string {
	if (error instanceof Error) {
		const cause = (error as { cause?: unknown }).cause;
		const own = error.message.split("\n")[0] ?? String(error);
		return cause instanceof Error && cause.message !== own ? `${own} (${reason(cause)})` : own;
	}
	return String(error);
}
