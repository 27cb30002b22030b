/**
 * ModelMessage[] → LanguageModelV3Prompt, and an agent's tools → LanguageModelV3FunctionTool[]:
 * what `streamText` hands a provider, rebuilt on public, versioned APIs only (the types of
 * `@ai-sdk/provider`, `asSchema` and `MissingToolResultsError` from `ai`), so `ai` can move
 * within its major version. `test/agent/engine/model-step.test.ts` compares the result with
 * what `streamText` sends, at the provider interface and byte for byte on the wire.
 *
 * Same rules as the SDK's conversion: the system prompt first; a string content becomes one
 * text part; empty text parts are dropped (user), or dropped unless they carry provider
 * options (assistant); consecutive tool messages merge into one; approval parts are dropped
 * (the engine uses none); a call without a result before the next user message is refused.
 * One difference, on purpose: nothing is downloaded. A file or image given by URL goes to the
 * provider as that URL (a learner's pictures are stored inline as data: URLs, downloaded by the
 * adapter from the platform's own hosts; a URL the provider cannot fetch fails as that provider's
 * error, never as a download from the tutor's host).
 */

import type {
	JSONValue,
	LanguageModelV3FilePart,
	LanguageModelV3FunctionTool,
	LanguageModelV3Message,
	LanguageModelV3Prompt,
	LanguageModelV3ToolResultOutput,
	LanguageModelV3ToolResultPart,
	SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import {
	type AssistantModelMessage,
	asSchema,
	type FilePart,
	type ImagePart,
	MissingToolResultsError,
	type ModelMessage,
	type ToolResultPart,
	type ToolSet,
} from "ai";

/** Spread `{ providerOptions }` only when set (the SDK's undefined key serializes to nothing). */
const opts = (providerOptions: SharedV3ProviderOptions | undefined) => (providerOptions ? { providerOptions } : {});

type DataInput = FilePart["data"] | ImagePart["image"];

/** File data as the provider spec takes it: bytes, base64 text, or a URL (a data: URL split into both). */
function dataContent(content: DataInput): {
	data: Uint8Array | string | URL;
	mediaType?: string;
	originalUrl?: string;
} {
	if (content instanceof Uint8Array) return { data: content };
	if (content instanceof ArrayBuffer) return { data: new Uint8Array(content) };
	let url: URL | undefined = content instanceof URL ? content : undefined;
	let originalUrl: string | undefined;
	if (typeof content === "string") {
		// URL.canParse, not a try/catch: base64 text is the common case and must stay cheap.
		if (URL.canParse(content)) {
			url = new URL(content);
			if (url.toString() !== content) originalUrl = content;
		} else return { data: content };
	}
	if (!url) return { data: String(content) };
	if (url.protocol === "data:") {
		const [header = "", base64 = ""] = url.toString().split(",");
		const mediaType = header.split(";")[0]?.split(":")[1];
		if (!mediaType || !base64)
			throw new TypeError(`Invalid data URL in a message part: ${url.toString().slice(0, 60)}`);
		return { data: base64, mediaType };
	}
	return { data: url, ...(originalUrl ? { originalUrl } : {}) };
}

/** A user or assistant file/image part as a provider file part. */
function filePart(part: FilePart | ImagePart): LanguageModelV3FilePart {
	const converted = dataContent(part.type === "image" ? part.image : part.data);
	const mediaType = converted.mediaType ?? part.mediaType ?? (part.type === "image" ? "image/*" : undefined);
	if (!mediaType) throw new TypeError("A file part has no media type.");
	return {
		type: "file",
		mediaType,
		...(part.type === "file" && part.filename !== undefined ? { filename: part.filename } : {}),
		data: converted.data,
		...(converted.data instanceof URL && converted.originalUrl ? { originalUrl: converted.originalUrl } : {}),
		...opts(part.providerOptions),
	};
}

/** A tool result's output as the spec types it (the deprecated `media` item becomes image/file data). */
function resultOutput(output: ToolResultPart["output"]): LanguageModelV3ToolResultOutput {
	if (output.type !== "content") return output as LanguageModelV3ToolResultOutput;
	return {
		type: "content",
		value: output.value.map((item) => {
			if (item.type !== "media") return item;
			return item.mediaType.startsWith("image/")
				? { type: "image-data" as const, data: item.data, mediaType: item.mediaType }
				: { type: "file-data" as const, data: item.data, mediaType: item.mediaType };
		}),
	} as LanguageModelV3ToolResultOutput;
}

function resultPart(part: ToolResultPart): LanguageModelV3ToolResultPart {
	return {
		type: "tool-result",
		toolCallId: part.toolCallId,
		toolName: part.toolName,
		output: resultOutput(part.output),
		...opts(part.providerOptions),
	};
}

type ToolOut = Extract<LanguageModelV3Message, { role: "tool" }>["content"][number];
type AssistantOut = Extract<LanguageModelV3Message, { role: "assistant" }>["content"][number];

function assistantPart(
	part: Exclude<Exclude<AssistantModelMessage["content"], string>[number], { type: "tool-approval-request" }>,
): AssistantOut {
	switch (part.type) {
		case "text":
			return { type: "text", text: part.text, ...opts(part.providerOptions) };
		case "reasoning":
			return { type: "reasoning", text: part.text, ...opts(part.providerOptions) };
		case "file":
			return filePart(part);
		case "tool-call":
			return {
				type: "tool-call",
				toolCallId: part.toolCallId,
				toolName: part.toolName,
				input: part.input,
				...(part.providerExecuted !== undefined ? { providerExecuted: part.providerExecuted } : {}),
				...opts(part.providerOptions),
			};
		case "tool-result":
			return resultPart(part);
	}
}

/** One model message as a provider message (before tool messages merge). */
function toProviderMessage(message: ModelMessage): LanguageModelV3Message {
	switch (message.role) {
		case "system":
			return { role: "system", content: message.content, ...opts(message.providerOptions) };
		case "user":
			return {
				role: "user",
				content:
					typeof message.content === "string"
						? [{ type: "text", text: message.content }]
						: message.content
								.map((p) =>
									p.type === "text" ? { type: "text" as const, text: p.text, ...opts(p.providerOptions) } : filePart(p),
								)
								.filter((p) => p.type !== "text" || p.text !== ""),
				...opts(message.providerOptions),
			};
		case "assistant":
			return {
				role: "assistant",
				content:
					typeof message.content === "string"
						? [{ type: "text", text: message.content }]
						: message.content
								.filter((p) => p.type !== "text" || p.text !== "" || p.providerOptions != null)
								.filter((p) => p.type !== "tool-approval-request")
								.map(assistantPart),
				...opts(message.providerOptions),
			};
		case "tool":
			return {
				role: "tool",
				// Approval responses go to the provider only for provider-executed tools (none here).
				content: message.content.flatMap((p): ToolOut[] => {
					if (p.type === "tool-result") return [resultPart(p)];
					if (!p.providerExecuted) return [];
					const reason = p.reason !== undefined ? { reason: p.reason } : {};
					return [{ type: "tool-approval-response", approvalId: p.approvalId, approved: p.approved, ...reason }];
				}),
				...opts(message.providerOptions),
			};
	}
}

/** Merge provider options the way the SDK does when tool messages merge (the part's own win). */
function mergeOptions(
	base: SharedV3ProviderOptions,
	own: SharedV3ProviderOptions | undefined,
): SharedV3ProviderOptions {
	const out: SharedV3ProviderOptions = { ...base };
	for (const [provider, values] of Object.entries(own ?? {}))
		out[provider] = { ...(out[provider] ?? {}), ...values } as Record<string, JSONValue>;
	return out;
}

/**
 * The provider prompt for `system` + `messages`. Throws MissingToolResultsError when a tool
 * call has no result before the next user message or at the end (the provider would refuse it).
 */
export function toLanguageModelPrompt(system: string, messages: readonly ModelMessage[]): LanguageModelV3Prompt {
	const out: LanguageModelV3Prompt = [{ role: "system", content: system }];
	for (const message of messages) {
		const converted = toProviderMessage(message);
		const last = out.at(-1);
		if (converted.role !== "tool" || last?.role !== "tool") {
			out.push(converted);
			continue;
		}
		// Consecutive tool messages become one; the earlier message's options move onto its last part.
		const tail = last.content.at(-1);
		if (tail && last.providerOptions) tail.providerOptions = mergeOptions(last.providerOptions, tail.providerOptions);
		last.content.push(...converted.content);
		if (converted.providerOptions) last.providerOptions = converted.providerOptions;
		else delete last.providerOptions;
	}
	const open = new Set<string>();
	for (const message of out) {
		if (message.role === "assistant") {
			for (const part of message.content)
				if (part.type === "tool-call" && !part.providerExecuted) open.add(part.toolCallId);
		} else if (message.role === "tool") {
			for (const part of message.content) if (part.type === "tool-result") open.delete(part.toolCallId);
		} else if (open.size > 0) throw new MissingToolResultsError({ toolCallIds: [...open] });
	}
	if (open.size > 0) throw new MissingToolResultsError({ toolCallIds: [...open] });
	return out.filter((m) => m.role !== "tool" || m.content.length > 0);
}

/**
 * The provider tool definitions of a tool set, in its key order (what the SDK sends, JSON Schema included);
 * `strict`: the value for tools that do not set their own.
 */
export async function toFunctionTools(
	tools: ToolSet,
	defaults: { strict?: boolean } = {},
): Promise<LanguageModelV3FunctionTool[]> {
	const out: LanguageModelV3FunctionTool[] = [];
	for (const [name, tool] of Object.entries(tools)) {
		if (tool.type === "provider") throw new TypeError(`Provider tools are not supported (${name}).`);
		out.push({
			type: "function",
			name,
			...(tool.description !== undefined ? { description: tool.description } : {}),
			inputSchema: await asSchema(tool.inputSchema).jsonSchema,
			...(tool.inputExamples != null ? { inputExamples: tool.inputExamples } : {}),
			...opts(tool.providerOptions),
			...((tool.strict ?? defaults.strict) != null ? { strict: tool.strict ?? defaults.strict } : {}),
		});
	}
	return out;
}
