/**
 * Work serialized per key inside one process: a chain of promises per key, dropped once idle. A failed
 * task rejects to its own caller only; the next task of the key runs after it all the same.
 */

/** A fresh set of per-key chains: `run(key, work)` starts `work` once the key's earlier work has finished. */
export function perKey(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
	const chains = new Map<string, Promise<unknown>>();
	return (key, work) => {
		const next = (chains.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
		chains.set(key, next);
		const forget = () => {
			if (chains.get(key) === next) chains.delete(key);
		};
		next.then(forget, forget);
		return next;
	};
}
