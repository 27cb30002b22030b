/**
 * A store URL's text: the default store, a URL with its secrets hidden, and a SQLite URL's file. No driver is
 * loaded here (keyv.ts opens the stores), so the configuration and `--version` read these at start-up cheaply.
 */

/** The default store: an embedded SQLite file, created on first use. */
export const DEFAULT_STORE_URL = "sqlite://./data/learnharness.sqlite";

/** Query parameters whose value is a secret (`?password=`, `sslpassword`, `token`, `secret`, `key`, `pwd`). */
const SECRET_PARAM = /pass|pwd|secret|token|key/i;

/**
 * A URL with its password replaced by `***` (store and server URLs are printed in tables, logs and errors).
 * Parsed by position, not by a pattern: a password may hold `/`, `#`, `?` or `@` unencoded (people paste them so),
 * so everything between `://` and the LAST `@` is the user part, and only the name before its first `:` is kept.
 * A `@` later in the URL (a query value) makes this hide more than the password, never less. Query parameters
 * that name a secret (`?password=…`) are hidden too.
 */
export function redactUrl(url: string): string {
	const sep = url.indexOf("://");
	if (sep <= 0) return url;
	const scheme = url.slice(0, sep + 3);
	let rest = url.slice(sep + 3);
	const at = rest.lastIndexOf("@");
	if (at >= 0) {
		const user = rest.slice(0, at);
		const colon = user.indexOf(":");
		if (colon >= 0) rest = `${user.slice(0, colon)}:***${rest.slice(at)}`;
	}
	const query = rest.indexOf("?");
	if (query < 0) return scheme + rest;
	const hash = rest.indexOf("#", query);
	const end = hash < 0 ? rest.length : hash;
	const params = rest
		.slice(query + 1, end)
		.split("&")
		.map((pair) => {
			const eq = pair.indexOf("=");
			return eq > 0 && SECRET_PARAM.test(pair.slice(0, eq)) ? `${pair.slice(0, eq)}=***` : pair;
		});
	return `${scheme}${rest.slice(0, query + 1)}${params.join("&")}${rest.slice(end)}`;
}

/** Raised for a store URL we cannot open (unknown scheme, missing path). */
export class StoreUrlError extends Error {
	readonly code = "store-url";
}

/** The SQLite file path of a `sqlite://` URL (`sqlite://./x.db`, `sqlite:///abs/x.db`, `sqlite://:memory:`). */
export function sqlitePathOf(url: string): string {
	const path = url.replace(/^sqlite:\/\//, "");
	if (path === "")
		throw new StoreUrlError(`The store URL ${JSON.stringify(url)} names no file: use sqlite://./data/x.sqlite`);
	return path;
}
