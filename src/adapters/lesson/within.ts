/**
 * within(): the value of `work`, or undefined once `ms` passed (or it rejected). For
 * waits that must not hold anything up: a store read before a modal, a shutdown that
 * waits for running turns, a click's record before its acknowledgement.
 */

/** `work`'s value, or undefined when `ms` passes first or `work` rejects. The timer never outlives the call. */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<undefined>((resolve) => {
		timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
	});
	try {
		return await Promise.race([work.catch(() => undefined), timeout]);
	} finally {
		clearTimeout(timer);
	}
}
