/**
 * The shapes the configuration is described and checked in: a row of the configuration table, a
 * variable's spec, a problem found with one. Their own file so the variable lists (variables.ts,
 * provider-variables.ts) and the model checks (models.ts) share them without importing each
 * other or config.ts.
 */

import type { z } from "zod";

/** One row of the configuration table. */
export interface ConfigEntry {
	name: string;
	default: string;
	description: string;
}

/** A variable: its table row, schema (of the raw string) and the fix to print when it is bad. */
export interface VariableSpec extends ConfigEntry {
	schema: z.ZodType;
	fix: string;
}

/** One thing wrong with the configuration, and how to fix it. */
export interface ConfigProblem {
	variable: string;
	problem: string;
	fix: string;
}
