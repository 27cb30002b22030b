/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1: what
 * Ollama, vLLM, llama.cpp and LM Studio serve; and OpenAI's Responses API (streamed, with OpenAI's
 * strict-schema rules: openai-responses.ts). It streams SSE text and
 * tool-call deltas (or answers JSON when `stream` is false), records every
 * request body, and answers from a script the test writes. Structured-output
 * requests (`response_format: { type: "json_schema" }`, what the AI SDK sends
 * for `Output.object`) take their replies from a script of their own, so a
 * test can interleave them with a lesson's steps. Options for benchmarks: a delay
 * before each answer (a slow model), a reply made per request once the script is
 * empty (an endless lesson), and no recording (bounded memory).
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
	jsonResponsesReply,
	type ResponsesStreamError,
	responsesRequestProblem,
	streamResponsesReply,
	wantsResponsesSchema,
} from "./openai-responses.ts";

/** One scripted tool call; `arguments` is sent as is when a string (so tests can send broken JSON). */
export interface FakeToolCall {
	id?: string;
	name: string;
	arguments: string | Record<string, unknown>;
}

/** One scripted reply: text and/or tool calls, or an HTTP error. */
export interface FakeReply {
	text?: string;
	toolCalls?: FakeToolCall[];
	/** Answer with this HTTP status and an OpenAI-style error body instead. */
	status?: number;
	/** With `status`: a `retry-after-ms` header (the AI SDK waits this long instead of its backoff). */
	retryAfterMs?: number;
	/**
	 * With `status`: the error's `type` and `code`. `insufficient_quota` (with 429) is what OpenAI answers when the
	 * account's credit or budget is used up (OpenAI, Error codes: "429 - You exceeded your current quota, please check
	 * your plan and billing details").
	 */
	errorCode?: string;
	usage?: { promptTokens?: number; completionTokens?: number; cachedTokens?: number };
	/** A structured-output reply: sent as the message content, JSON-encoded (a string is sent as is, to send broken JSON). */
	json?: unknown;
	/** Characters per SSE delta (default 7): small deltas exercise the client's reassembly. */
	chunkSize?: number;
	/** Responses API only: fail inside the stream (openai-responses.ts). */
	streamError?: ResponsesStreamError;
	/**
	 * Never finish: `before-headers` accepts the request and sends nothing; `mid-stream` sends the
	 * headers and the first chunk, then nothing. The connection stays open until the client gives
	 * up (or close()).
	 */
	hang?: "before-headers" | "mid-stream";
}

/** A request the server received. */
export interface RecordedRequest {
	path: string;
	headers: IncomingMessage["headers"];
	body: Record<string, unknown>;
	raw: string;
}

/** The running fake. */
export interface FakeOpenAI {
	/** Base URL with `/v1`, for `createOpenAI({ baseURL })`. */
	baseURL: string;
	requests: RecordedRequest[];
	/** Append replies to the script (consumed one per request, in order). */
	reply(...replies: FakeReply[]): void;
	/** Append replies for structured-output requests (`response_format` json_schema), consumed in order. */
	replyStructured(...replies: FakeReply[]): void;
	/** The structured-output requests received (a subset of `requests`). */
	structuredRequests(): RecordedRequest[];
	/** Replies not yet consumed. */
	remaining(): number;
	close(): Promise<void>;
}

/** Options of startFakeOpenAI (benchmarks: a slow, endless model). */
export interface FakeOpenAIOptions {
	/** Milliseconds to wait before answering each request (a function: drawn per request). */
	delayMs?: number | (() => number);
	/** The reply to a request when the script has none left (`n` counts requests from 1). */
	replyFor?: (body: Record<string, unknown>, n: number) => FakeReply;
	/** Keep each request in `requests` (default true; a long benchmark turns it off). */
	record?: boolean;
}

/** True when a request asks for structured output (a JSON schema response format; `text.format` on Responses). */
const wantsSchema = (body: Record<string, unknown>): boolean =>
	(body.response_format as { type?: unknown } | undefined)?.type === "json_schema" || wantsResponsesSchema(body);

/** The message content of a reply: its text, or its structured JSON. */
const contentOf = (reply: FakeReply): string | undefined =>
	reply.json === undefined ? reply.text : typeof reply.json === "string" ? reply.json : JSON.stringify(reply.json);

const argumentsText = (call: FakeToolCall): string =>
	typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);

function chunks(text: string, size: number): string[] {
	const out: string[] = [];
	for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
	return out;
}

function usageOf(reply: FakeReply) {
	const prompt = reply.usage?.promptTokens ?? 100;
	const completion = reply.usage?.completionTokens ?? 20;
	return {
		prompt_tokens: prompt,
		completion_tokens: completion,
		total_tokens: prompt + completion,
		prompt_tokens_details: { cached_tokens: reply.usage?.cachedTokens ?? 0 },
	};
}

function streamReply(res: ServerResponse, reply: FakeReply, model: string, n: number): void {
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
	const base = { id: `chatcmpl-${n}`, object: "chat.completion.chunk", created: 1_700_000_000, model };
	const send = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
	const size = reply.chunkSize ?? 7;
	send({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
	if (reply.hang === "mid-stream") return;
	for (const piece of chunks(contentOf(reply) ?? "", size))
		send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
	(reply.toolCalls ?? []).forEach((call, index) => {
		const id = call.id ?? `call_${n}_${index}`;
		send({
			...base,
			choices: [
				{
					index: 0,
					delta: { tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] },
					finish_reason: null,
				},
			],
		});
		for (const piece of chunks(argumentsText(call), size))
			send({
				...base,
				choices: [
					{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null },
				],
			});
	});
	const finish = (reply.toolCalls ?? []).length > 0 ? "tool_calls" : "stop";
	send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
	send({ ...base, choices: [], usage: usageOf(reply) });
	res.end("data: [DONE]\n\n");
}

function jsonReply(res: ServerResponse, reply: FakeReply, model: string, n: number): void {
	const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
		id: call.id ?? `call_${n}_${index}`,
		type: "function",
		function: { name: call.name, arguments: argumentsText(call) },
	}));
	res.writeHead(200, { "content-type": "application/json" });
	res.end(
		JSON.stringify({
			id: `chatcmpl-${n}`,
			object: "chat.completion",
			created: 1_700_000_000,
			model,
			choices: [
				{
					index: 0,
					message: {
						role: "assistant",
						content: contentOf(reply) ?? null,
						...(toolCalls.length ? { tool_calls: toolCalls } : {}),
					},
					finish_reason: toolCalls.length ? "tool_calls" : "stop",
				},
			],
			usage: usageOf(reply),
		}),
	);
}

/** Start the fake on an ephemeral loopback port. Close it in afterAll. */
export async function startFakeOpenAI(initial: FakeReply[] = [], options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
	const script: FakeReply[] = [...initial];
	const structured: FakeReply[] = [];
	const requests: RecordedRequest[] = [];
	let received = 0;
	const server: Server = createServer((req, res) => {
		const parts: Buffer[] = [];
		req.on("data", (c: Buffer) => parts.push(c));
		req.on("end", () => {
			const raw = Buffer.concat(parts).toString("utf8");
			let body: Record<string, unknown> = {};
			try {
				body = JSON.parse(raw) as Record<string, unknown>;
			} catch {
				// recorded as {}; the reply below still follows the script
			}
			received++;
			if (options.record !== false) requests.push({ path: req.url ?? "", headers: req.headers, body, raw });
			const responses = req.url?.endsWith("/responses") === true;
			if (req.method !== "POST" || !(req.url?.endsWith("/chat/completions") || responses)) {
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: "not_found" } }));
				return;
			}
			const refused = responses ? responsesRequestProblem(body) : undefined;
			if (refused) {
				res.writeHead(400, { "content-type": "application/json" });
				res.end(JSON.stringify(refused));
				return;
			}
			const n = received;
			const reply =
				(wantsSchema(body) && structured.length > 0 ? structured.shift() : script.shift()) ??
				options.replyFor?.(body, n);
			const delay = typeof options.delayMs === "function" ? options.delayMs() : (options.delayMs ?? 0);
			if (delay > 0) setTimeout(() => answer(res, body, reply, n, responses), delay);
			else answer(res, body, reply, n, responses);
		});
	});
	const answer = (
		res: ServerResponse,
		body: Record<string, unknown>,
		reply: FakeReply | undefined,
		n: number,
		responses: boolean,
	) => {
		if (res.destroyed) return;
		if (!reply || reply.status !== undefined) {
			const status = reply?.status ?? 500;
			const retry = reply?.retryAfterMs !== undefined ? { "retry-after-ms": String(reply.retryAfterMs) } : {};
			res.writeHead(status, { "content-type": "application/json", ...retry });
			const code = reply?.errorCode;
			const message =
				code === "insufficient_quota"
					? "You exceeded your current quota, please check your plan and billing details."
					: reply
						? `scripted error ${status}`
						: "no scripted reply left";
			res.end(JSON.stringify({ error: { message, type: code ?? "server_error", param: null, code: code ?? null } }));
			return;
		}
		if (reply.hang === "before-headers") return;
		const model = typeof body.model === "string" ? body.model : "fake-model";
		if (responses) (body.stream === true ? streamResponsesReply : jsonResponsesReply)(res, reply, model, n);
		else if (body.stream === true) streamReply(res, reply, model, n);
		else jsonReply(res, reply, model, n);
	};
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	const { port } = server.address() as AddressInfo;
	return {
		baseURL: `http://127.0.0.1:${port}/v1`,
		requests,
		reply: (...replies) => {
			script.push(...replies);
		},
		replyStructured: (...replies) => {
			structured.push(...replies);
		},
		structuredRequests: () => requests.filter((r) => wantsSchema(r.body)),
		remaining: () => script.length + structured.length,
		close: () =>
			new Promise<void>((done) => {
				server.closeAllConnections();
				server.close(() => done());
			}),
	};
}
