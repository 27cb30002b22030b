/**
 * A scripted Google Generative Language API on 127.0.0.1:
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` streams SSE
 * GenerateContentResponse chunks (text parts in pieces, then one chunk with
 * the functionCall parts, the finish reason and the usage), and
 * `:generateContent` answers one JSON response. Every request is recorded;
 * replies use the OpenAI fake's script shape (the tool-call id is unused:
 * Gemini's calls carry none). A request the API would refuse is answered 400
 * INVALID_ARGUMENT as the API does (google-rules.ts, each rule with its source)
 * and takes no scripted reply.
 */

import type { ServerResponse } from "node:http";
import { googleRequestProblem } from "./google-rules.ts";
import type { FakeReply } from "./openai.ts";
import { pieces, type ScriptedServer, startScriptedServer } from "./scripted-server.ts";

/** The running fake; `baseURL` (with /v1beta) goes to `createGoogleGenerativeAI({ baseURL })`. */
export interface FakeGoogle extends Omit<ScriptedServer, "origin"> {
	baseURL: string;
}

/** A recorded request's model and method, from its path (`/v1beta/models/<model>:<method>`). */
export function googleRoute(path: string): { model: string; method: string } | undefined {
	const match = /^\/v1beta\/models\/([^/:?]+):(streamGenerateContent|generateContent)(\?|$)/.exec(path);
	return match ? { model: decodeURIComponent(match[1] ?? ""), method: match[2] ?? "" } : undefined;
}

const usageOf = (reply: FakeReply) => {
	const prompt = reply.usage?.promptTokens ?? 100;
	const candidates = reply.usage?.completionTokens ?? 20;
	return {
		promptTokenCount: prompt,
		candidatesTokenCount: candidates,
		totalTokenCount: prompt + candidates,
		cachedContentTokenCount: reply.usage?.cachedTokens ?? 0,
	};
};

const callParts = (reply: FakeReply) =>
	(reply.toolCalls ?? []).map((call) => ({
		functionCall: {
			name: call.name,
			args: typeof call.arguments === "string" ? JSON.parse(call.arguments) : call.arguments,
		},
	}));

function stream(res: ServerResponse, reply: FakeReply, model: string): void {
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	const send = (parts: unknown[], last: boolean) =>
		res.write(
			`data: ${JSON.stringify({
				candidates: [{ content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
				...(last ? { usageMetadata: usageOf(reply) } : {}),
				modelVersion: model,
			})}\r\n\r\n`,
		);
	for (const text of pieces(reply.text ?? "", reply.chunkSize ?? 7)) send([{ text }], false);
	send(callParts(reply), true);
	res.end();
}

function json(res: ServerResponse, reply: FakeReply, model: string): void {
	res.writeHead(200, { "content-type": "application/json" });
	res.end(
		JSON.stringify({
			candidates: [
				{
					content: { role: "model", parts: [...(reply.text ? [{ text: reply.text }] : []), ...callParts(reply)] },
					finishReason: "STOP",
					index: 0,
				},
			],
			usageMetadata: usageOf(reply),
			modelVersion: model,
		}),
	);
}

/** Start the fake on an ephemeral loopback port. Close it in afterAll. */
export async function startFakeGoogle(initial: FakeReply[] = []): Promise<FakeGoogle> {
	const consumes = (method: string, path: string, body: Record<string, unknown>) =>
		method === "POST" && googleRoute(path) !== undefined && googleRequestProblem(body) === undefined;
	const server = await startScriptedServer(
		(request, reply, res) => {
			const route = googleRoute(request.path);
			const refused = request.method === "POST" && route ? googleRequestProblem(request.body) : undefined;
			if (refused) {
				res.writeHead(400, { "content-type": "application/json" });
				res.end(JSON.stringify(refused));
				return;
			}
			if (request.method !== "POST" || !route) {
				res.writeHead(404, { "content-type": "application/json" });
				res.end(
					JSON.stringify({
						error: { code: 404, message: `no route ${request.method} ${request.path}`, status: "NOT_FOUND" },
					}),
				);
				return;
			}
			if (!reply || reply.status !== undefined) {
				const status = reply?.status ?? 500;
				res.writeHead(status, { "content-type": "application/json" });
				res.end(
					JSON.stringify({
						error: {
							code: status,
							message: reply ? `scripted error ${status}` : "no scripted reply left",
							status: "INTERNAL",
						},
					}),
				);
				return;
			}
			// A structured-output reply is the response's text (responseMimeType application/json).
			const answer =
				reply.json === undefined
					? reply
					: { ...reply, text: typeof reply.json === "string" ? reply.json : JSON.stringify(reply.json) };
			if (route.method === "streamGenerateContent") stream(res, answer, route.model);
			else json(res, answer, route.model);
		},
		consumes,
		initial,
	);
	const { origin: _origin, ...rest } = server;
	return { ...rest, baseURL: `${server.origin}/v1beta` };
}
