/**
 * A loopback server that answers every request with one recorded reply, byte for byte as the service sent it:
 * a stream of server-sent events (`data: <event>` blocks, in the recorded order) or an error body with its
 * status. It records the request bodies, so a test can check what the provider asked.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A recorded reply: a stream of events, or an error body with its HTTP status. */
export type RecordedReply = { events: Array<Record<string, unknown> | "[DONE]"> } | { status: number; body: unknown };

/** A started server; `serve` sets the reply to every later request. */
export interface RecordedServer {
	/** For createOpenAI's `baseURL` (ends with /v1). */
	baseURL: string;
	serve(reply: RecordedReply): void;
	/** Request paths and parsed bodies, in order. */
	requests: Array<{ path: string; body: Record<string, unknown> }>;
	close(): Promise<void>;
}

/** Start the server on a free loopback port. */
export async function startRecordedServer(): Promise<RecordedServer> {
	let reply: RecordedReply | undefined;
	const requests: RecordedServer["requests"] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (c: Buffer) => chunks.push(c));
		req.on("end", () => {
			const text = Buffer.concat(chunks).toString("utf8");
			requests.push({ path: req.url ?? "", body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
			if (!reply) {
				res.writeHead(500, { "content-type": "application/json" });
				return void res.end(JSON.stringify({ error: { message: "no recorded reply set" } }));
			}
			if ("status" in reply) {
				res.writeHead(reply.status, { "content-type": "application/json" });
				return void res.end(JSON.stringify(reply.body));
			}
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			for (const event of reply.events) res.write(`data: ${event === "[DONE]" ? event : JSON.stringify(event)}\n\n`);
			res.end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseURL: `http://127.0.0.1:${port}/v1`,
		serve: (next) => {
			reply = next;
		},
		requests,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
