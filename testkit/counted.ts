/**
 * An object whose method calls are listed, in order (tests and bench:click count store calls with it).
 * Methods keep their `this`; other properties pass through. `skip`: calls not to list (still made).
 */
export function counted<T extends object>(
	target: T,
	skip: (method: string, args: unknown[]) => boolean = () => false,
): { proxy: T; calls: string[] } {
	const calls: string[] = [];
	const proxy = new Proxy(target, {
		get(obj, key, receiver) {
			const value: unknown = Reflect.get(obj, key, receiver);
			if (typeof value !== "function") return value;
			return (...args: unknown[]) => {
				if (!skip(String(key), args)) calls.push(String(key));
				return (value as (...a: unknown[]) => unknown).apply(obj, args);
			};
		},
	});
	return { proxy, calls };
}
