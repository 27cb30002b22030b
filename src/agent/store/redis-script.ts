/**
 * Lua scripts on Redis by their SHA-1 (`EVALSHA`): the script's text is not resent with every
 * call; a server that lacks it (restarted, flushed) gets it once through `EVAL`, which also
 * caches it there.
 */

import { createHash } from "node:crypto";

/** The client calls a script needs (node-redis's, structurally). */
export interface ScriptClient {
	evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
	eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

const shas = new Map<string, string>();

/** A script's SHA-1 (what EVALSHA names it by), computed once per text. */
export function scriptSha(text: string): string {
	let sha = shas.get(text);
	if (!sha) {
		sha = createHash("sha1").update(text).digest("hex");
		if (shas.size < 1_000) shas.set(text, sha); // our scripts are constants: a handful
	}
	return sha;
}

/** Run `text` with `options` by its SHA, loading it when the server does not have it. */
export async function runScript(
	client: ScriptClient,
	text: string,
	options: { keys: string[]; arguments: string[] },
): Promise<unknown> {
	try {
		return await client.evalSha(scriptSha(text), options);
	} catch (error) {
		if (!String((error as Error)?.message).startsWith("NOSCRIPT")) throw error;
		return client.eval(text, options);
	}
}
