/**
 * Parsing and validating the tool calls of a step, as the SDK does (an empty input is `{}`,
 * JSON that carries prototype-poisoning keys is refused as its secure parse refuses it, then
 * the tool's schema `validate`, core's boundary chain). A refused call keeps its raw input
 * and says why in words the model can act on: it goes back to the model as a tool error,
 * which is this engine's tool-call repair (the SDK's `experimental_repairToolCall` is a hook
 * for the caller's own repair, not a repair of its own, so there is nothing to take from it).
 */

import type { LanguageModelV3StreamPart, LanguageModelV3ToolCall } from "@ai-sdk/provider";
import { asSchema } from "ai";
import { ARGUMENT_SHAPE_LIMITS } from "../../core/input-limits.ts";
import type { LessonAgent } from "./agents.ts";

/** A parsed tool call of a step (the engine settles it). */
export interface ParsedToolCall {
	type: "tool-call";
	toolCallId: string;
	toolName: string;
	/** The parsed (healed) input, or the raw text when it was not JSON. */
	input: unknown;
	/** Why the call was refused (unknown tool, bad JSON, boundary failure): the tool error the model sees. */
	refused?: string;
	providerMetadata?: Record<string, Record<string, unknown>>;
}

/** `{ providerMetadata }` when set, else nothing (keeps step content free of undefined keys). */
export const meta = (providerMetadata: Record<string, Record<string, unknown>> | undefined) =>
	providerMetadata ? { providerMetadata } : {};

/** True when a parsed value carries a `__proto__` key or a `constructor.prototype` (prototype poisoning). */
function poisoned(value: unknown): boolean {
	if (typeof value !== "object" || value === null) return false;
	if (Object.hasOwn(value, "__proto__")) return true;
	const ctor = (value as { constructor?: unknown }).constructor;
	if (
		Object.hasOwn(value, "constructor") &&
		typeof ctor === "object" &&
		ctor !== null &&
		Object.hasOwn(ctor, "prototype")
	)
		return true;
	return Object.values(value).some(poisoned);
}

/** Deepest nesting of tool arguments accepted: core's ceiling, checked here on the text before parsing. */
export const MAX_ARGUMENT_DEPTH = ARGUMENT_SHAPE_LIMITS.maxDepth;

/**
 * The deepest bracket nesting of JSON text, by a linear scan that skips strings. Checked
 * before parsing: recursive steps after JSON.parse (validation, cloning, saving) would
 * overflow the stack on input nested thousands deep.
 */
export function jsonDepth(text: string): number {
	let depth = 0;
	let max = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (inString) {
			if (c === 92)
				i++; // backslash: skip the escaped character
			else if (c === 34) inString = false;
		} else if (c === 34) inString = true;
		else if (c === 123 || c === 91) max = Math.max(max, ++depth);
		else if (c === 125 || c === 93) depth--;
	}
	return max;
}

/** JSON.parse, refusing prototype-poisoning keys as the SDK's secure parse does; the refusal text on failure. */
function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
	if (jsonDepth(text) > MAX_ARGUMENT_DEPTH)
		return {
			ok: false,
			error: `The arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels. Send one flat JSON object with the fields the tool describes.`,
		};
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return {
			ok: false,
			error: `The arguments are not valid JSON (${JSON.stringify(text.slice(0, 120))}). Send one JSON object with the fields the tool describes.`,
		};
	}
	if ((text.includes("__proto__") || text.includes("prototype")) && poisoned(value))
		return { ok: false, error: "The arguments use a forbidden key (__proto__ or constructor.prototype)." };
	return { ok: true, value };
}

/** Parse and validate one call of `agent`; never throws (a refusal is data). */
export async function parseToolCall(
	agent: LessonAgent,
	part: LanguageModelV3ToolCall | Extract<LanguageModelV3StreamPart, { type: "tool-call" }>,
): Promise<ParsedToolCall> {
	const base = {
		type: "tool-call" as const,
		toolCallId: part.toolCallId,
		toolName: part.toolName,
		...meta(part.providerMetadata),
	};
	const json = part.input.trim() === "" ? { ok: true as const, value: {} } : parseJson(part.input);
	const raw = json.ok ? json.value : part.input;
	const tool = agent.tools.get(part.toolName);
	if (!tool) {
		const known = [...agent.tools.keys()].join(", ");
		return { ...base, input: raw, refused: `Unknown tool ${JSON.stringify(part.toolName)}. Your tools are: ${known}.` };
	}
	if (!json.ok) return { ...base, input: raw, refused: json.error };
	try {
		const validate = asSchema(tool.tool.inputSchema).validate;
		const verdict = validate ? await validate(json.value) : { success: true as const, value: json.value };
		if (!verdict.success) return { ...base, input: raw, refused: verdict.error.message };
		return { ...base, input: verdict.value };
	} catch (error) {
		// A validator that throws is a refusal too: the model gets a result, the step goes on.
		return {
			...base,
			input: raw,
			refused: `The arguments could not be checked: ${error instanceof Error ? error.message : String(error)}`,
		};
	}
}
