/**
 * A scripted Anthropic Messages API on 127.0.0.1 (POST /v1/messages): it
 * streams SSE (message_start, content blocks of text and tool_use with
 * input_json_delta pieces, message_delta with the stop reason, message_stop)
 * or answers one JSON message when `stream` is not true, and records every
 * request. Replies use the OpenAI fake's script shape. A request the Messages API
 * would refuse is answered 400 as the API does (anthropic-rules.ts, each rule with
 * its source) and takes no scripted reply.
 */

import type { ServerResponse } from "node:http";
import { anthropicRequestProblem } from "./anthropic-rules.ts";
import type { FakeReply, FakeToolCall } from "./openai.ts";
import { pieces, type ScriptedServer, startScriptedServer } from "./scripted-server.ts";

/** The running fake; `baseURL` (with /v1) goes to `createAnthropic({ baseURL })`. */
export interface FakeAnthropic extends Omit<ScriptedServer, "origin"> {
	baseURL: string;
}

const inputText = (call: FakeToolCall): string =>
	typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);

const usageOf = (reply: FakeReply) => ({
	input_tokens: reply.usage?.promptTokens ?? 100,
	output_tokens: reply.usage?.completionTokens ?? 20,
	cache_read_input_tokens: reply.usage?.cachedTokens ?? 0,
});

function stream(res: ServerResponse, reply: FakeReply, model: string, n: number): void {
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	const send = (payload: { type: string } & Record<string, unknown>) =>
		res.write(`event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`);
	const size = reply.chunkSize ?? 7;
	const usage = usageOf(reply);
	send({
		type: "message_start",
		message: {
			id: `msg_${n}`,
			type: "message",
			role: "assistant",
			model,
			content: [],
			stop_reason: null,
			stop_sequence: null,
			usage: { ...usage, output_tokens: 1 },
		},
	});
	let index = 0;
	if (reply.text) {
		send({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
		for (const text of pieces(reply.text, size))
			send({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
		send({ type: "content_block_stop", index });
		index++;
	}
	for (const call of reply.toolCalls ?? []) {
		const id = call.id ?? `toolu_${n}_${index}`;
		send({ type: "content_block_start", index, content_block: { type: "tool_use", id, name: call.name, input: {} } });
		for (const partial_json of pieces(inputText(call), size))
			send({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
		send({ type: "content_block_stop", index });
		index++;
	}
	const stop = (reply.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn";
	send({
		type: "message_delta",
		delta: { stop_reason: stop, stop_sequence: null },
		usage: { output_tokens: usage.output_tokens },
	});
	send({ type: "message_stop" });
	res.end();
}

function json(res: ServerResponse, reply: FakeReply, model: string, n: number): void {
	const content = [
		...(reply.text ? [{ type: "text", text: reply.text }] : []),
		...(reply.toolCalls ?? []).map((call, i) => ({
			type: "tool_use",
			id: call.id ?? `toolu_${n}_${i}`,
			name: call.name,
			input: typeof call.arguments === "string" ? JSON.parse(call.arguments) : call.arguments,
		})),
	];
	res.writeHead(200, { "content-type": "application/json" });
	res.end(
		JSON.stringify({
			id: `msg_${n}`,
			type: "message",
			role: "assistant",
			model,
			content,
			stop_reason: (reply.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn",
			stop_sequence: null,
			usage: usageOf(reply),
		}),
	);
}

/**
 * A structured-output reply (`json`): as the text when the request asked for `output_config.format` (structured
 * outputs), else as a call of the `json` tool the AI SDK forces for models without them.
 */
function structured(reply: FakeReply, body: Record<string, unknown>): FakeReply {
	if (reply.json === undefined) return reply;
	const text = typeof reply.json === "string" ? reply.json : JSON.stringify(reply.json);
	const format = (body.output_config as { format?: unknown } | undefined)?.format;
	return format !== undefined ? { ...reply, text } : { ...reply, toolCalls: [{ name: "json", arguments: text }] };
}

/** Start the fake on an ephemeral loopback port. Close it in afterAll. */
export async function startFakeAnthropic(initial: FakeReply[] = []): Promise<FakeAnthropic> {
	const isMessages = (method: string, path: string) => method === "POST" && path === "/v1/messages";
	const server = await startScriptedServer(
		(request, reply, res) => {
			const refused = isMessages(request.method, request.path) ? anthropicRequestProblem(request.body) : undefined;
			if (refused) {
				res.writeHead(400, { "content-type": "application/json" });
				res.end(JSON.stringify(refused));
				return;
			}
			if (!isMessages(request.method, request.path)) {
				res.writeHead(404, { "content-type": "application/json" });
				res.end(
					JSON.stringify({
						type: "error",
						error: { type: "not_found_error", message: `no route ${request.method} ${request.path}` },
					}),
				);
				return;
			}
			if (!reply || reply.status !== undefined) {
				const status = reply?.status ?? 500;
				res.writeHead(status, { "content-type": "application/json" });
				res.end(
					JSON.stringify({
						type: "error",
						error: { type: "api_error", message: reply ? `scripted error ${status}` : "no scripted reply left" },
					}),
				);
				return;
			}
			const model = typeof request.body.model === "string" ? request.body.model : "fake-claude";
			const n = server.requests.length;
			const answer = structured(reply, request.body);
			if (request.body.stream === true) stream(res, answer, model, n);
			else json(res, answer, model, n);
		},
		(method, path, body) => isMessages(method, path) && anthropicRequestProblem(body) === undefined,
		initial,
	);
	const { origin: _origin, ...rest } = server;
	return { ...rest, baseURL: `${server.origin}/v1` };
}
