/**
 * The math sandbox's worker thread (sandbox.ts starts it): loads MathJax and resvg once, says
 * `ready`, then typesets one formula per message, in order. A formula that runs too long or too
 * big is the parent's to stop (it terminates this thread); here every error becomes a reply.
 * `npm run build` emits this file as an entry of its own (dist/typeset-worker.js).
 */

import { parentPort } from "node:worker_threads";
import { loadMathEngine, TexError, texToPng } from "./typeset.ts";

/** A formula to typeset (from the parent). */
export interface TypesetRequest {
	id: number;
	tex: string;
	display: boolean;
}

/** What the worker says: loaded (or not), or one formula's outcome. */
export type TypesetReply =
	| { type: "ready" }
	| { type: "failed"; error: string }
	| { type: "done"; id: number; png: Uint8Array; width: number; height: number }
	| { type: "error"; id: number; code: TexError["code"]; error: string };

const port = parentPort;

/** One request in, one reply out; never throws. */
async function typeset(request: TypesetRequest): Promise<TypesetReply> {
	try {
		const { png, width, height } = await texToPng(request.tex, request.display);
		return { type: "done", id: request.id, png, width, height };
	} catch (error) {
		const code = error instanceof TexError ? error.code : "tex";
		return { type: "error", id: request.id, code, error: error instanceof Error ? error.message : String(error) };
	}
}

/** A request as the parent sends it, or undefined (parse, don't cast: it is our own, but a message all the same). */
function parseRequest(message: unknown): TypesetRequest | undefined {
	if (typeof message !== "object" || message === null) return undefined;
	const { id, tex, display } = message as Record<string, unknown>;
	if (typeof id !== "number" || typeof tex !== "string" || typeof display !== "boolean") return undefined;
	return { id, tex, display };
}

if (port) {
	// Copied, not transferred: a small Buffer shares Node's pool, which a transfer would take away (PNGs are a few KB).
	const reply = (message: TypesetReply) => port.postMessage(message);
	// Requests that come before the engine loaded wait for it, in order. One formula drawn first warms the
	// code paths up, so the first real one is not charged for it (it has a time budget; loading has not).
	let chain: Promise<unknown> = loadMathEngine()
		.then(() => texToPng(String.raw`\frac{a^2}{\sqrt{b}}`, true))
		.then(
			() => reply({ type: "ready" }),
			(error: unknown) => reply({ type: "failed", error: error instanceof Error ? error.message : String(error) }),
		);
	port.on("message", (message: unknown) => {
		const request = parseRequest(message);
		if (!request) return;
		chain = chain.then(() => typeset(request).then(reply));
	});
}
