/**
 * What Anthropic's Messages API refuses (400 invalid_request_error), for the fake in anthropic.ts. Each rule
 * names its source; the messages are the API's own wording where it is known.
 *
 * - `max_tokens` is required (Messages API reference, Create a Message: "max_tokens: integer, required").
 * - A message's role is `user` or `assistant`; a system prompt goes in the top-level `system` (same reference).
 * - Consecutive `user` or `assistant` turns are NOT refused: "Consecutive user or assistant turns in your request
 *   will be combined into a single turn" (same reference, `messages`); the turn rules below run on the combined turns.
 * - Text content blocks must hold text: the API answers "messages: text content blocks must be non-empty" (and
 *   "must contain non-whitespace text"), as reported in anthropics/claude-code#59812 and #23440.
 * - Every `tool_use` is answered by a `tool_result` in the next turn ("`tool_use` ids were found without
 *   `tool_result` blocks immediately after: … Each `tool_use` block must have a corresponding `tool_result` block
 *   in the next message", anthropics/claude-code#6575), and every `tool_result` answers a `tool_use` of the turn
 *   before ("unexpected `tool_use_id` found in `tool_result` blocks", tghamm/Anthropic.SDK#184). The tool-use guide
 *   ("Handling tool use and tool result content blocks") adds that tool results come first in their user message,
 *   any text after them.
 * - A tool's name matches `^[a-zA-Z0-9_-]{1,64}$`, names are unique, and its `input_schema` is a JSON Schema of
 *   type `object` (tool-use guide, "Specifying client tools"; the API reference's Tool object).
 * - A structured output's schema (`output_config.format`, type `json_schema`) keeps to the structured-outputs
 *   guide's "JSON Schema limitations": every object sets `additionalProperties: false`; no numerical constraints
 *   (`minimum`, `maximum`, `multipleOf`, …), no string length constraints, no `minItems` above 1. The wording of
 *   this refusal is ours (the guide gives none).
 */

/** The 400 body Anthropic answers, or undefined when the request is one it takes. */
export function anthropicRequestProblem(body: Record<string, unknown>): Record<string, unknown> | undefined {
	const message = problemOf(body);
	return message === undefined ? undefined : { type: "error", error: { type: "invalid_request_error", message } };
}

type Block = Record<string, unknown> & { type?: unknown };

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const blocksOf = (content: unknown): Block[] =>
	typeof content === "string"
		? [{ type: "text", text: content }]
		: Array.isArray(content)
			? content.filter((b): b is Block => typeof b === "object" && b !== null)
			: [];

function problemOf(body: Record<string, unknown>): string | undefined {
	if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 0)
		return "max_tokens: Field required";
	const tools = Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>) : [];
	const names = new Set<string>();
	for (const [i, tool] of tools.entries()) {
		if (tool.type !== undefined && tool.type !== "custom") continue; // server tools have their own shapes
		const name = tool.name;
		if (typeof name !== "string" || !TOOL_NAME.test(name))
			return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
		if (names.has(name)) return "tools: Tool names must be unique.";
		names.add(name);
		if ((tool.input_schema as { type?: unknown } | undefined)?.type !== "object")
			return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
	}
	const format = (body.output_config as { format?: { type?: unknown; schema?: unknown } } | undefined)?.format;
	if (format?.type === "json_schema") {
		const problem = structuredSchemaProblem(format.schema, "output_config.format.schema");
		if (problem) return problem;
	}
	if (!Array.isArray(body.messages)) return "messages: Field required";
	// Consecutive same-role messages are one turn.
	const turns: Array<{ role: unknown; blocks: Block[]; index: number }> = [];
	for (const [index, raw] of (body.messages as unknown[]).entries()) {
		const m = (typeof raw === "object" && raw !== null ? raw : {}) as { role?: unknown; content?: unknown };
		if (m.role !== "user" && m.role !== "assistant")
			return `messages.${index}.role: Input should be 'user' or 'assistant'`;
		const blocks = blocksOf(m.content);
		const last = turns.at(-1);
		if (last && last.role === m.role) last.blocks.push(...blocks);
		else turns.push({ role: m.role, blocks, index });
	}
	for (const turn of turns)
		for (const block of turn.blocks) {
			if (block.type !== "text") continue;
			if (typeof block.text !== "string" || block.text === "") return "messages: text content blocks must be non-empty";
			if (block.text.trim() === "") return "messages: text content blocks must contain non-whitespace text";
		}
	for (const [t, turn] of turns.entries()) {
		const next = turns[t + 1];
		const uses = turn.role === "assistant" ? turn.blocks.filter((b) => b.type === "tool_use").map((b) => b.id) : [];
		if (uses.length > 0 && next) {
			const answered = new Set(next.blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id));
			const missing = uses.filter((id) => !answered.has(id));
			const firstOther = next.blocks.findIndex((b) => b.type !== "tool_result");
			const resultAfterOther = firstOther >= 0 && next.blocks.slice(firstOther).some((b) => b.type === "tool_result");
			if (missing.length > 0 || resultAfterOther)
				return `messages.${turn.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${(missing.length > 0 ? missing : uses).join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
		}
		if (turn.role !== "user") continue;
		const previous = turns[t - 1];
		const asked = new Set(
			previous?.role === "assistant" ? previous.blocks.filter((b) => b.type === "tool_use").map((b) => b.id) : [],
		);
		for (const [b, block] of turn.blocks.entries())
			if (block.type === "tool_result" && !asked.has(block.tool_use_id))
				return `messages.${turn.index}.content.${b}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
	}
	return undefined;
}

const UNSUPPORTED_IN_STRUCTURED = [
	"minimum",
	"maximum",
	"exclusiveMinimum",
	"exclusiveMaximum",
	"multipleOf",
	"minLength",
	"maxLength",
];

function structuredSchemaProblem(schema: unknown, at: string): string | undefined {
	if (typeof schema !== "object" || schema === null) return undefined;
	const s = schema as Record<string, unknown>;
	for (const keyword of UNSUPPORTED_IN_STRUCTURED)
		if (keyword in s) return `${at}: '${keyword}' is not supported in structured outputs`;
	if (typeof s.minItems === "number" && s.minItems > 1) return `${at}: 'minItems' above 1 is not supported`;
	const types = Array.isArray(s.type) ? s.type : [s.type];
	if ((types.includes("object") || s.properties !== undefined) && s.additionalProperties !== false)
		return `${at}: 'additionalProperties' must be false for objects`;
	for (const [key, value] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
		const problem = structuredSchemaProblem(value, `${at}.properties.${key}`);
		if (problem) return problem;
	}
	for (const key of ["items", "anyOf", "allOf", "$defs", "definitions"]) {
		const value = s[key];
		const inner = Array.isArray(value) ? value : key === "items" ? [value] : Object.values(value ?? {});
		for (const item of inner) {
			const problem = structuredSchemaProblem(item, `${at}.${key}`);
			if (problem) return problem;
		}
	}
	return undefined;
}
