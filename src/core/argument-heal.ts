/**
 * Heal the encoding wobbles models produce in tool arguments, before the
 * schema runs. Pure, schema-driven, conservative:
 * - the whole argument object sent as a JSON string;
 * - a string field whose value is itself JSON-encoded (`"\"predict\""`);
 * - an array or object field sent as a JSON string.
 * Only a value that FAILS its own sub-schema is touched, and only when the
 * repair makes it pass (or makes a container we can descend into); so valid
 * input comes back unchanged (same reference) and healing is idempotent.
 */

import type { TSchema } from "typebox";
import { Value } from "typebox/value";
import { argumentShapeProblem } from "./input-limits.ts";

/** The slice of a JSON schema the heal reads. */
interface SchemaView {
	type?: string | string[];
	properties?: Record<string, TSchema>;
	items?: TSchema;
	anyOf?: TSchema[];
	const?: unknown;
}

const MAX_DECODE_DEPTH = 3;

const view = (schema: TSchema): SchemaView => schema as unknown as SchemaView;

function expects(schema: TSchema, kind: "object" | "array" | "string"): boolean {
	const s = view(schema);
	if (s.type === kind || (Array.isArray(s.type) && s.type.includes(kind))) return true;
	if (kind === "string" && typeof s.const === "string") return true;
	return (s.anyOf ?? []).some((member) => expects(member, kind));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
	typeof v === "object" && v !== null && !Array.isArray(v);

function tryJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/** Decode a string that is itself a JSON string literal, up to a few layers, until it passes. */
function healString(value: string, schema: TSchema): string {
	let current = value;
	for (let depth = 0; depth < MAX_DECODE_DEPTH; depth++) {
		const trimmed = current.trim();
		if (!(trimmed.startsWith('"') && trimmed.endsWith('"') && trimmed.length >= 2)) return value;
		const decoded = tryJson(trimmed);
		if (typeof decoded !== "string") return value;
		if (passes(schema, decoded)) return decoded;
		current = decoded;
	}
	return value;
}

/** Value.Check without its type-guard narrowing (the guard would narrow `unknown` to never below). */
const passes = (schema: TSchema, value: unknown): boolean => Value.Check(schema, value);

function healValue(value: unknown, schema: TSchema): unknown {
	if (passes(schema, value)) return value;
	if (typeof value === "string") {
		if (expects(schema, "object") || expects(schema, "array")) {
			const decoded = tryJson(value.trim());
			// Too deep or too large to check item by item: hand it on decoded, for the parse seam to refuse by name.
			if (typeof decoded === "object" && decoded !== null && argumentShapeProblem(decoded) !== undefined)
				return decoded;
			if (isPlainObject(decoded) && expects(schema, "object")) return healObject(decoded, schema);
			if (Array.isArray(decoded) && expects(schema, "array")) return healArray(decoded, schema);
		}
		if (expects(schema, "string")) return healString(value, schema);
		return value;
	}
	if (isPlainObject(value) && expects(schema, "object")) return healObject(value, schema);
	if (Array.isArray(value) && expects(schema, "array")) return healArray(value, schema);
	return value;
}

function healObject(input: Record<string, unknown>, schema: TSchema): Record<string, unknown> {
	const properties = view(schema).properties;
	if (properties === undefined) return input;
	let out: Record<string, unknown> | undefined;
	for (const [key, propertySchema] of Object.entries(properties)) {
		if (!(key in input)) continue;
		const healed = healValue(input[key], propertySchema);
		if (healed !== input[key]) {
			out ??= { ...input };
			out[key] = healed;
		}
	}
	return out ?? input;
}

function healArray(input: unknown[], schema: TSchema): unknown[] {
	const items = view(schema).items;
	if (items === undefined) return input;
	let out: unknown[] | undefined;
	input.forEach((item, i) => {
		const healed = healValue(item, items);
		if (healed !== item) {
			out ??= [...input];
			out[i] = healed;
		}
	});
	return out ?? input;
}

/** Heal encoded arguments against `schema`; valid input is returned unchanged (same reference). */
export function healEncodedArguments(input: unknown, schema: TSchema): unknown {
	// Checking a huge value against its schema is itself slow (200,000 options: ~150 ms a check); leave it as is.
	if (argumentShapeProblem(input) !== undefined) return input;
	return healValue(input, schema);
}
