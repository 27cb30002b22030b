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

/** A boundary verdict for a schema core does not own (plan_init). */
export type BoundaryVerdict = ToolInputVerdict<unknown>;

/** The boundary chain for a local schema: core's chain (heal → clone → Convert → Check → Clean). */
export function validateAgainst(schema: TSchema, input: unknown): BoundaryVerdict {
	return validateWithSchema(schema, input);
}

/** The plain JSON Schema the model is shown (TypeBox schemas are JSON Schema; the clone drops non-JSON bits). */
export function toJsonSchema(schema: TSchema): Parameters<typeof jsonSchema>[0] {
	return JSON.parse(JSON.stringify(schema)) as Parameters<typeof jsonSchema>[0];
}

/** The SDK schema of a core tool kind; validate = core's validateToolInput. */
export function coreToolSchema(kind: ToolInputKind): Schema<unknown> {
	const schema = boundarySchema(kind);
	return jsonSchema<unknown>(toJsonSchema(schema), {
		validate: (value) => {
			const verdict = validateToolInput(kind, value);
			return verdict.ok
				? { success: true, value: healEncodedArguments(value, schema) }
				: { success: false, error: new Error(verdict.error) };
		},
	});
}

/** The SDK schema of a local TypeBox schema, validated by validateAgainst. */
export function localToolSchema(schema: TSchema): Schema<unknown> {
	return jsonSchema<unknown>(toJsonSchema(schema), {
		validate: (value) => {
			const verdict = validateAgainst(schema, value);
			return verdict.ok
				? { success: true, value: healEncodedArguments(value, schema) }
				: { success: false, error: new Error(verdict.error) };
		},
	});
}
