/**
 * The loopback HTTP server under the provider fakes (Anthropic, Google):
 * reads and records each request (body capped), hands it with the next
 * scripted reply to the fake's route, and closes every connection on close().
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeReply, RecordedRequest } from "./openai.ts";

/** Request bodies beyond this are refused with 413 (a lesson request is a few hundred kB at most). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Answers one request; `reply` is the next scripted one (undefined: the script ran out). */
export type ScriptedRoute = (
	request: RecordedRequest & { method: string },
	reply: FakeReply | undefined,
	res: ServerResponse,
) => void;

/** A running scripted server. */
export interface ScriptedServer {
	/** http://127.0.0.1:<port> (no path). */
	origin: string;
	requests: RecordedRequest[];
	reply(...replies: FakeReply[]): void;
	remaining(): number;
	close(): Promise<void>;
}

/**
 * Starts a server on an ephemeral 127.0.0.1 port; `consumes` says which requests take a scripted reply (a request
 * the fake refuses takes none, so the script stays in step with the requests the service would answer).
 */
export async function startScriptedServer(
	route: ScriptedRoute,
	consumes: (method: string, path: string, body: Record<string, unknown>) => boolean,
	initial: FakeReply[] = [],
): Promise<ScriptedServer> {
	const script: FakeReply[] = [...initial];
	const requests: RecordedRequest[] = [];
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const parts: Buffer[] = [];
		let size = 0;
		req.on("data", (c: Buffer) => {
			size += c.length;
			if (size <= MAX_BODY_BYTES) parts.push(c);
		});
		req.on("end", () => {
			if (size > MAX_BODY_BYTES) {
				res.writeHead(413, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: "request body too large" } }));
				return;
			}
			const raw = Buffer.concat(parts).toString("utf8");
			let body: Record<string, unknown> = {};
			try {
				body = JSON.parse(raw) as Record<string, unknown>;
			} catch {
				// recorded as {}; the route still answers from the script
			}
			const recorded: RecordedRequest = { path: req.url ?? "", headers: req.headers, body, raw };
			requests.push(recorded);
			const method = req.method ?? "GET";
			route({ ...recorded, method }, consumes(method, recorded.path, body) ? script.shift() : undefined, res);
		});
	});
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	const { port } = server.address() as AddressInfo;
	return {
		origin: `http://127.0.0.1:${port}`,
		requests,
		reply: (...replies) => {
			script.push(...replies);
		},
		remaining: () => script.length,
		close: () =>
			new Promise<void>((done) => {
				server.closeAllConnections();
				server.close(() => done());
			}),
	};
}

/** Splits text into pieces of `size` characters (small deltas exercise the client's reassembly). */
export function pieces(text: string, size: number): string[] {
	const out: string[] = [];
	for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
	return out;
}
