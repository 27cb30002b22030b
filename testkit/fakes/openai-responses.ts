/**
 * OpenAI's Responses API (`POST /v1/responses`) for the fake in openai.ts: what `openai(id)` of
 * `@ai-sdk/openai` calls (a bare model id with OPENAI_API_KEY). It streams the documented server-sent
 * events (response.created, output_item.added/done, output_text.delta, function_call_arguments.delta/done,
 * response.completed) and refuses what OpenAI refuses:
 *
 * - A function tool is strict unless it says `strict: false`: "In the Responses API, function tools
 *   are strict by default" (OpenAI, Function calling guide, "Strict mode"; the Responses API reference
 *   lists `strict` on function tools as defaulting to true). A strict schema must set
 *   `additionalProperties: false` on every object and list every property in `required`
 *   (Structured Outputs guide, "Supported schemas"), and may not use the keywords that guide leaves out
 *   (for strings `minLength` and `maxLength`); otherwise the request is answered 400 with
 *   `invalid_function_parameters` (or `invalid_json_schema` for `text.format`), as the API does.
 * - The same rules for a `text.format` of type `json_schema` with `strict: true` (the SDK's
 *   `Output.object`, strict unless `strictJsonSchema: false`).
 *
 * A reply may fail inside its stream, on request (`streamError`), with the two events OpenAI's API reference
 * lists for it: `error` ("Emitted when an error occurs": code, message, param) before any output, or, after
 * some text, `response.failed` ("An event that is emitted when a response fails", its `response.error`
 * holding the code and message).
 */

import type { ServerResponse } from "node:http";

/** The reply parts this module needs from the fake's script (a subset of FakeReply). */
export interface ResponsesReply {
	text?: string;
	toolCalls?: Array<{ id?: string; name: string; arguments: string | Record<string, unknown> }>;
	json?: unknown;
	usage?: { promptTokens?: number; completionTokens?: number; cachedTokens?: number };
	chunkSize?: number;
	/** Fail inside the stream: an `error` event before any output, or `response.failed` after the first text delta. */
	streamError?: ResponsesStreamError;
}

/** A failure inside a Responses stream (OpenAI's error codes, e.g. `server_error`, `insufficient_quota`). */
export interface ResponsesStreamError {
	code: string;
	message: string;
	/** Send the first text delta before failing (then `response.failed`; else an `error` event first thing). */
	afterText?: boolean;
}

/** Keywords the Structured Outputs guide does not list as supported in strict mode. */
const UNSUPPORTED_IN_STRICT = ["minLength", "maxLength", "patternProperties", "unevaluatedProperties", "propertyNames"];

/** Why a schema cannot be strict (OpenAI's wording), or undefined when it can. */
export function strictSchemaProblem(schema: unknown, path = "()"): string | undefined {
	if (typeof schema !== "object" || schema === null) return undefined;
	const s = schema as Record<string, unknown>;
	for (const keyword of UNSUPPORTED_IN_STRICT)
		if (keyword in s) return `In context=${path}, '${keyword}' is not permitted.`;
	const types = Array.isArray(s.type) ? s.type : [s.type];
	if (types.includes("object") || s.properties !== undefined) {
		const properties = (s.properties ?? {}) as Record<string, unknown>;
		if (s.additionalProperties !== false)
			return `In context=${path}, 'additionalProperties' is required to be supplied and to be false.`;
		const required = Array.isArray(s.required) ? s.required : [];
		const missing = Object.keys(properties).filter((k) => !required.includes(k));
		if (missing.length > 0)
			return `In context=${path}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing[0]}'.`;
		for (const [key, value] of Object.entries(properties)) {
			const problem = strictSchemaProblem(value, `('properties', '${key}')`);
			if (problem) return problem;
		}
	}
	for (const key of ["items", "anyOf", "allOf", "oneOf", "$defs", "definitions"]) {
		const value = s[key];
		const inner = Array.isArray(value) ? value : key === "items" ? [value] : Object.values(value ?? {});
		for (const item of inner) {
			const problem = strictSchemaProblem(item, `${path}, '${key}'`);
			if (problem) return problem;
		}
	}
	return undefined;
}

/** A 400 body for the first tool or output format the API would refuse, or undefined. */
export function responsesRequestProblem(body: Record<string, unknown>): Record<string, unknown> | undefined {
	for (const tool of Array.isArray(body.tools) ? body.tools : []) {
		const t = tool as { type?: unknown; name?: unknown; strict?: unknown; parameters?: unknown };
		if (t.type !== "function" || t.strict === false) continue;
		const problem = strictSchemaProblem(t.parameters);
		if (problem)
			return {
				error: {
					message: `Invalid schema for function '${String(t.name)}': ${problem}`,
					type: "invalid_request_error",
					param: "tools",
					code: "invalid_function_parameters",
				},
			};
	}
	const format = (body.text as { format?: { type?: unknown; strict?: unknown; name?: unknown; schema?: unknown } })
		?.format;
	if (format?.type === "json_schema" && format.strict === true) {
		const problem = strictSchemaProblem(format.schema);
		if (problem)
			return {
				error: {
					message: `Invalid schema for response_format '${String(format.name)}': ${problem}`,
					type: "invalid_request_error",
					param: "text.format.schema",
					code: "invalid_json_schema",
				},
			};
	}
	return undefined;
}

/** True when a Responses request asks for structured output. */
export const wantsResponsesSchema = (body: Record<string, unknown>): boolean =>
	(body.text as { format?: { type?: unknown } } | undefined)?.format?.type === "json_schema";

function chunks(text: string, size: number): string[] {
	const out: string[] = [];
	for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
	return out;
}

/** The usage object of a reply, as the Responses API reports it. */
function usageOf(reply: ResponsesReply) {
	const input = reply.usage?.promptTokens ?? 100;
	const output = reply.usage?.completionTokens ?? 20;
	return {
		input_tokens: input,
		input_tokens_details: { cached_tokens: reply.usage?.cachedTokens ?? 0 },
		output_tokens: output,
		output_tokens_details: { reasoning_tokens: 0 },
		total_tokens: input + output,
	};
}

const textOf = (reply: ResponsesReply): string | undefined =>
	reply.json === undefined ? reply.text : typeof reply.json === "string" ? reply.json : JSON.stringify(reply.json);

/** Answer one reply as a whole response object (a request without `stream: true`). */
export function jsonResponsesReply(res: ServerResponse, reply: ResponsesReply, model: string, n: number): void {
	const output: Record<string, unknown>[] = [];
	const text = textOf(reply);
	if (text !== undefined && text !== "")
		output.push({
			id: `msg_${n}`,
			type: "message",
			status: "completed",
			role: "assistant",
			content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
		});
	(reply.toolCalls ?? []).forEach((call, i) => {
		const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
		output.push({
			id: `fc_${n}_${i}`,
			type: "function_call",
			status: "completed",
			arguments: args,
			call_id: call.id ?? `call_${n}_${i}`,
			name: call.name,
		});
	});
	res.writeHead(200, { "content-type": "application/json" });
	res.end(
		JSON.stringify({
			id: `resp_${n}`,
			object: "response",
			created_at: 1_700_000_000,
			model,
			status: "completed",
			error: null,
			incomplete_details: null,
			output,
			usage: usageOf(reply),
		}),
	);
}

/** Stream one reply as the Responses API's server-sent events. */
export function streamResponsesReply(res: ServerResponse, reply: ResponsesReply, model: string, n: number): void {
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
	let seq = 0;
	const send = (type: string, payload: Record<string, unknown>) =>
		res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...payload })}\n\n`);
	const size = reply.chunkSize ?? 7;
	const id = `resp_${n}`;
	const response = { id, object: "response", created_at: 1_700_000_000, model, status: "in_progress", output: [] };
	send("response.created", { response });
	if (reply.streamError) {
		failStream(res, send, reply.streamError, response, textOf(reply)?.slice(0, size));
		return;
	}
	const output: Record<string, unknown>[] = [];
	const text = textOf(reply);
	if (text !== undefined && text !== "") {
		const itemId = `msg_${n}`;
		const index = output.length;
		send("response.output_item.added", {
			output_index: index,
			item: { id: itemId, type: "message", status: "in_progress", role: "assistant", content: [] },
		});
		send("response.content_part.added", {
			item_id: itemId,
			output_index: index,
			content_index: 0,
			part: { type: "output_text", text: "", annotations: [] },
		});
		for (const delta of chunks(text, size))
			send("response.output_text.delta", {
				item_id: itemId,
				output_index: index,
				content_index: 0,
				delta,
				logprobs: [],
			});
		send("response.output_text.done", { item_id: itemId, output_index: index, content_index: 0, text, logprobs: [] });
		const item = {
			id: itemId,
			type: "message",
			status: "completed",
			role: "assistant",
			content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
		};
		send("response.output_item.done", { output_index: index, item });
		output.push(item);
	}
	(reply.toolCalls ?? []).forEach((call, i) => {
		const index = output.length;
		const itemId = `fc_${n}_${i}`;
		const callId = call.id ?? `call_${n}_${i}`;
		const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
		send("response.output_item.added", {
			output_index: index,
			item: {
				id: itemId,
				type: "function_call",
				status: "in_progress",
				arguments: "",
				call_id: callId,
				name: call.name,
			},
		});
		for (const delta of chunks(args, size))
			send("response.function_call_arguments.delta", { item_id: itemId, output_index: index, delta });
		send("response.function_call_arguments.done", { item_id: itemId, output_index: index, arguments: args });
		const item = {
			id: itemId,
			type: "function_call",
			status: "completed",
			arguments: args,
			call_id: callId,
			name: call.name,
		};
		send("response.output_item.done", { output_index: index, item });
		output.push(item);
	});
	send("response.completed", {
		response: {
			...response,
			status: "completed",
			output,
			usage: usageOf(reply),
		},
	});
	res.end();
}

/** End a stream with a failure: `error` before output, or a text delta and then `response.failed`. */
function failStream(
	res: ServerResponse,
	send: (type: string, payload: Record<string, unknown>) => void,
	failure: ResponsesStreamError,
	response: Record<string, unknown>,
	firstDelta: string | undefined,
): void {
	const error = { code: failure.code, message: failure.message };
	if (!failure.afterText || !firstDelta) {
		send("error", { ...error, param: null });
		res.end();
		return;
	}
	const itemId = `msg_${String(response.id).slice("resp_".length)}`;
	send("response.output_item.added", {
		output_index: 0,
		item: { id: itemId, type: "message", status: "in_progress", role: "assistant", content: [] },
	});
	send("response.output_text.delta", {
		item_id: itemId,
		output_index: 0,
		content_index: 0,
		delta: firstDelta,
		logprobs: [],
	});
	send("response.failed", { response: { ...response, status: "failed", error, output: [] } });
	res.end();
}
