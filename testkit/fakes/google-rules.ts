/**
 * What the Gemini API's generateContent refuses (400 INVALID_ARGUMENT), for the fake in google.ts. Each rule
 * names its source; the messages are the API's own wording where it is known.
 *
 * - A content's role is `user` or `model` (API reference, Content: "Must be either 'user' or 'model'"), and it has
 *   parts: "contents.parts must not be empty" (the API's answer, vercel/ai#3775).
 * - A turn of function calls is answered by the very next turn, with as many function responses: "Please ensure
 *   that function response turn comes immediately after a function call turn" and "… that the number of function
 *   response parts is equal to the number of function call parts of the function call turn"
 *   (google-gemini/gemini-cli#3814).
 * - A function's name: "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores,
 *   dots and dashes, with a maximum length of 64" (FunctionDeclaration reference; v1beta also allows colons).
 * - Its `parameters` are the API's Schema, "a select subset of an OpenAPI 3.0 schema object": a key outside it
 *   (`additionalProperties`, `$schema`, `const`, …) is "Invalid JSON payload received. Unknown name … Cannot find
 *   field" (nanbingxyz/5ire#42, zed-industries/zed#44875); `type` is one value, not a list ("Proto field is not
 *   repeating, cannot start list", zed-industries/zed#53919) of STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT,
 *   NULL; `properties` and `required` are "only allowed for OBJECT type" (anomalyco/opencode#11889), and an
 *   object's `properties` "should be non-empty for OBJECT type" (agno-agi/agno#2112). The same for a structured
 *   output's `generationConfig.responseSchema` (browser-use/browser-use#3786).
 */

/** The 400 body the Gemini API answers, or undefined when it takes the request. */
export function googleRequestProblem(body: Record<string, unknown>): Record<string, unknown> | undefined {
	const message = problemOf(body);
	return message === undefined ? undefined : { error: { code: 400, message, status: "INVALID_ARGUMENT" } };
}

/** The fields of the API's Schema object (GenerativeLanguage v1beta, Schema). */
const SCHEMA_FIELDS = new Set([
	"type",
	"format",
	"title",
	"description",
	"nullable",
	"enum",
	"maxItems",
	"minItems",
	"properties",
	"required",
	"minProperties",
	"maxProperties",
	"minLength",
	"maxLength",
	"pattern",
	"example",
	"anyOf",
	"propertyOrdering",
	"default",
	"items",
	"minimum",
	"maximum",
]);
const TYPES = new Set(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"]);
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

type Part = Record<string, unknown>;

function schemaProblem(schema: unknown, at: string): string | undefined {
	if (typeof schema !== "object" || schema === null || Array.isArray(schema))
		return `Invalid value at '${at}', must be an object`;
	const s = schema as Record<string, unknown>;
	for (const key of Object.keys(s))
		if (!SCHEMA_FIELDS.has(key))
			return `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`;
	if (Array.isArray(s.type))
		return `Invalid JSON payload received. Unknown name "type" at '${at}': Proto field is not repeating, cannot start list.`;
	if (s.type !== undefined && !(typeof s.type === "string" && TYPES.has(s.type.toUpperCase())))
		return `Invalid value at '${at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "${String(s.type)}"`;
	const isObject = typeof s.type === "string" && s.type.toUpperCase() === "OBJECT";
	for (const key of ["properties", "required"])
		if (s[key] !== undefined && !isObject) return `* GenerateContentRequest.${at}.${key}: only allowed for OBJECT type`;
	const properties = (s.properties ?? undefined) as Record<string, unknown> | undefined;
	if (isObject && properties !== undefined && Object.keys(properties).length === 0)
		return `* GenerateContentRequest.${at}.properties: should be non-empty for OBJECT type`;
	for (const [name, inner] of Object.entries(properties ?? {})) {
		const problem = schemaProblem(inner, `${at}.properties[${name}].value`);
		if (problem) return problem;
	}
	if (s.items !== undefined) {
		const problem = schemaProblem(s.items, `${at}.items`);
		if (problem) return problem;
	}
	for (const [i, inner] of (Array.isArray(s.anyOf) ? s.anyOf : []).entries()) {
		const problem = schemaProblem(inner, `${at}.any_of[${i}]`);
		if (problem) return problem;
	}
	return undefined;
}

function problemOf(body: Record<string, unknown>): string | undefined {
	for (const [t, tool] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
		const declarations = (tool as { functionDeclarations?: unknown }).functionDeclarations;
		for (const [d, raw] of (Array.isArray(declarations) ? declarations : []).entries()) {
			const declaration = raw as { name?: unknown; parameters?: unknown };
			const at = `tools[${t}].function_declarations[${d}]`;
			if (typeof declaration.name !== "string" || !FUNCTION_NAME.test(declaration.name))
				return `* GenerateContentRequest.${at}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:) or dashes (-), with a maximum length of 64.`;
			if (declaration.parameters !== undefined) {
				const problem = schemaProblem(declaration.parameters, `${at}.parameters`);
				if (problem) return problem;
			}
		}
	}
	// The same Schema for structured output (generationConfig.responseSchema).
	const responseSchema = (body.generationConfig as { responseSchema?: unknown } | undefined)?.responseSchema;
	if (responseSchema !== undefined) {
		const problem = schemaProblem(responseSchema, "generation_config.response_schema");
		if (problem) return problem;
	}
	const contents = Array.isArray(body.contents) ? (body.contents as Array<{ role?: unknown; parts?: unknown }>) : [];
	if (contents.length === 0) return "* GenerateContentRequest.contents: contents is not specified";
	for (const [i, content] of contents.entries()) {
		if (content.role !== "user" && content.role !== "model")
			return `Please use a valid role: user, model. (contents[${i}].role: ${JSON.stringify(content.role)})`;
		if (!Array.isArray(content.parts) || content.parts.length === 0)
			return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`;
	}
	for (const [i, content] of contents.entries()) {
		const calls = (content.parts as Part[]).filter((p) => p.functionCall !== undefined).length;
		if (content.role !== "model" || calls === 0) continue;
		const next = contents[i + 1];
		if (!next) continue; // the model's own last turn: nothing to answer yet
		const responses = (next.parts as Part[]).filter((p) => p.functionResponse !== undefined).length;
		if (next.role !== "user" || responses === 0)
			return "Please ensure that function response turn comes immediately after a function call turn.";
		if (responses !== calls)
			return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
	}
	return undefined;
}
