/**
 * Wraps core's TypeBox schemas for the AI SDK: `jsonSchema(schema, { validate })`
 * where validate runs the same chain as the display parse (heal → Convert →
 * Check → Clean → refinement), so what the boundary accepts the UI can show.
 *
 * On success the SDK keeps the HEALED RAW input (not the converted value): the
 * transcript stays what the model wrote, and every consumer parses it.
 */

import { jsonSchema, type Schema } from "ai";
import type { TSchema } from "typebox";
import { healEncodedArguments } from "../../core/argument-heal.ts";
import {
	boundarySchema,
	type ToolInputKind,
	type ToolInputVerdict,
	validateToolInput,
	validateWithSchema,
} from "../../core/tool-parts.ts";

/** The SDK schema of `schema` (shown to the model as plain JSON Schema) validated by `check`. */
function sdkSchema(schema: TSchema, check: (value: unknown) => ToolInputVerdict): Schema<unknown> {
	// TypeBox schemas are JSON Schema; the clone drops non-JSON bits.
	const shown = JSON.parse(JSON.stringify(schema)) as Parameters<typeof jsonSchema>[0];
	return jsonSchema<unknown>(shown, {
		validate: (value) => {
			const verdict = check(value);
			return verdict.ok
				? { success: true, value: healEncodedArguments(value, schema) }
				: { success: false, error: new Error(verdict.error) };
		},
	});
}

/** The SDK schema of a core tool kind; validate = core's validateToolInput. */
export function coreToolSchema(kind: ToolInputKind): Schema<unknown> {
	return sdkSchema(boundarySchema(kind), (value) => validateToolInput(kind, value));
}

/** The SDK schema of a local TypeBox schema (plan_init), validated by core's chain. */
export function localToolSchema(schema: TSchema): Schema<unknown> {
	return sdkSchema(schema, (value) => validateWithSchema(schema, value));
}
