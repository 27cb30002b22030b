/**
 * The Anthropic and Google fakes refuse what their services refuse (each rule and its source in
 * testkit/fakes/anthropic-rules.ts and google-rules.ts): one request per rule, built from a request the fake
 * takes, and over HTTP a refused request is answered 400 in the service's error shape and takes no scripted reply.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeAnthropic, startFakeAnthropic } from "../../testkit/fakes/anthropic.ts";
import { anthropicRequestProblem } from "../../testkit/fakes/anthropic-rules.ts";
import { type FakeGoogle, startFakeGoogle } from "../../testkit/fakes/google.ts";
import { googleRequestProblem } from "../../testkit/fakes/google-rules.ts";

const tool = {
	name: "quiz",
	description: "Ask",
	input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
};
type Turn = { role: string; content: Array<Record<string, unknown>> };
const anthropicOk = (): Record<string, unknown> & { messages: Turn[] } => ({
	model: "claude-sonnet-4-5",
	max_tokens: 1000,
	system: [{ type: "text", text: "You teach." }],
	tools: [tool],
	messages: [
		{ role: "user", content: [{ type: "text", text: "Start." }] },
		{
			role: "assistant",
			content: [
				{ type: "text", text: "A question." },
				{ type: "tool_use", id: "toolu_1", name: "quiz", input: { q: "2+2?" } },
			],
		},
		{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "4" }] },
	],
});
const messageOf = (body: Record<string, unknown>) =>
	(anthropicRequestProblem(body) as { error?: { message?: string } } | undefined)?.error?.message;

describe("the Anthropic fake's rules", () => {
	it("takes a well-formed request, and consecutive same-role turns (the API combines them)", () => {
		expect(anthropicRequestProblem(anthropicOk())).toBeUndefined();
		const body = anthropicOk();
		body.messages.push({ role: "user", content: [{ type: "text", text: "And?" }] });
		expect(anthropicRequestProblem(body)).toBeUndefined();
	});

	it("refuses a missing max_tokens, a system role, empty text and bad tool definitions", () => {
		const { max_tokens: _m, ...noMax } = anthropicOk();
		expect(messageOf(noMax)).toBe("max_tokens: Field required");
		const system = anthropicOk();
		system.messages.unshift({ role: "system", content: [{ type: "text", text: "x" }] });
		expect(messageOf(system)).toMatch(/role: Input should be 'user' or 'assistant'/);
		const empty = anthropicOk();
		empty.messages[0] = { role: "user", content: [{ type: "text", text: "" }] };
		expect(messageOf(empty)).toBe("messages: text content blocks must be non-empty");
		const blank = anthropicOk();
		blank.messages[0] = { role: "user", content: [{ type: "text", text: " \n" }] };
		expect(messageOf(blank)).toBe("messages: text content blocks must contain non-whitespace text");
		expect(messageOf({ ...anthropicOk(), tools: [{ ...tool, name: "quiz tool" }] })).toMatch(/should match pattern/);
		expect(messageOf({ ...anthropicOk(), tools: [{ ...tool, name: "q".repeat(65) }] })).toMatch(/should match pattern/);
		expect(messageOf({ ...anthropicOk(), tools: [tool, tool] })).toBe("tools: Tool names must be unique.");
		expect(messageOf({ ...anthropicOk(), tools: [{ ...tool, input_schema: { type: "string" } }] })).toMatch(
			/input_schema.type: Input should be 'object'/,
		);
	});

	it("refuses a tool_use without its tool_result next, a result without its use, and text before the results", () => {
		const unanswered = anthropicOk();
		unanswered.messages[2] = { role: "user", content: [{ type: "text", text: "I think 4" }] };
		expect(messageOf(unanswered)).toMatch(/`tool_use` ids were found without `tool_result` blocks .*toolu_1/);
		const stray = anthropicOk();
		stray.messages.push(
			{ role: "assistant", content: [{ type: "text", text: "Good." }] },
			{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "?" }] },
		);
		expect(messageOf(stray)).toMatch(/unexpected `tool_use_id` found in `tool_result` blocks: toolu_9/);
		const textFirst = anthropicOk();
		textFirst.messages[2] = {
			role: "user",
			content: [
				{ type: "text", text: "Here:" },
				{ type: "tool_result", tool_use_id: "toolu_1", content: "4" },
			],
		};
		expect(messageOf(textFirst)).toMatch(/without `tool_result` blocks immediately after/);
	});

	it("refuses a structured-output schema outside the documented limits", () => {
		const schema = {
			type: "object",
			properties: { verdict: { type: "string", enum: ["correct", "incorrect"] } },
			required: ["verdict"],
			additionalProperties: false,
		};
		const withFormat = (s: unknown) => ({
			...anthropicOk(),
			output_config: { format: { type: "json_schema", schema: s } },
		});
		expect(anthropicRequestProblem(withFormat(schema))).toBeUndefined();
		expect(messageOf(withFormat({ ...schema, additionalProperties: undefined }))).toMatch(/additionalProperties/);
		expect(messageOf(withFormat({ ...schema, properties: { verdict: { type: "string", maxLength: 10 } } }))).toMatch(
			/'maxLength' is not supported/,
		);
	});
});

type Content = { role: string; parts: Array<Record<string, unknown>> };
const googleOk = (): Record<string, unknown> & { contents: Content[] } => ({
	contents: [
		{ role: "user", parts: [{ text: "Start." }] },
		{ role: "model", parts: [{ text: "A question." }, { functionCall: { name: "quiz", args: { q: "2+2?" } } }] },
		{ role: "user", parts: [{ functionResponse: { name: "quiz", response: { answer: "4" } } }] },
	],
	systemInstruction: { parts: [{ text: "You teach." }] },
	tools: [
		{
			functionDeclarations: [
				{
					name: "quiz",
					description: "Ask",
					parameters: {
						type: "object",
						properties: { q: { type: "string" }, options: { type: "array", items: { type: "string" } } },
						required: ["q"],
					},
				},
			],
		},
	],
});
const googleMessage = (body: Record<string, unknown>) =>
	(googleRequestProblem(body) as { error?: { message?: string } } | undefined)?.error?.message;
const withParameters = (parameters: unknown) => ({
	...googleOk(),
	tools: [{ functionDeclarations: [{ name: "quiz", parameters }] }],
});

describe("the Google fake's rules", () => {
	it("takes a well-formed request", () => {
		expect(googleRequestProblem(googleOk())).toBeUndefined();
	});

	it("refuses roles other than user and model, empty parts, and a function call turn not answered next", () => {
		const system = googleOk();
		system.contents[0] = { role: "system", parts: [{ text: "x" }] };
		expect(googleMessage(system)).toMatch(/valid role: user, model/);
		const empty = googleOk();
		empty.contents[0] = { role: "user", parts: [] };
		expect(googleMessage(empty)).toMatch(/contents.parts must not be empty/);
		const unanswered = googleOk();
		unanswered.contents[2] = { role: "user", parts: [{ text: "4" }] };
		expect(googleMessage(unanswered)).toBe(
			"Please ensure that function response turn comes immediately after a function call turn.",
		);
		const short = googleOk();
		short.contents[1]?.parts.push({ functionCall: { name: "quiz", args: { q: "3+3?" } } });
		expect(googleMessage(short)).toMatch(/number of function response parts is equal to the number of function call/);
	});

	it("refuses a bad function name and schema keywords outside the API's Schema", () => {
		expect(googleMessage({ ...googleOk(), tools: [{ functionDeclarations: [{ name: "1quiz" }] }] })).toMatch(
			/Invalid function name/,
		);
		expect(
			googleMessage(
				withParameters({ type: "object", properties: { q: { type: "string" } }, additionalProperties: false }),
			),
		).toMatch(/Unknown name "additionalProperties" at 'tools\[0\].function_declarations\[0\].parameters'/);
		expect(googleMessage(withParameters({ type: "object", properties: { q: { const: "x" } } }))).toMatch(
			/Unknown name "const"/,
		);
		expect(googleMessage(withParameters({ type: "object", properties: { q: { type: ["string", "null"] } } }))).toMatch(
			/Proto field is not repeating/,
		);
		expect(googleMessage(withParameters({ type: "string", properties: { q: { type: "string" } } }))).toMatch(
			/only allowed for OBJECT type/,
		);
		expect(googleMessage(withParameters({ type: "object", properties: {} }))).toMatch(/should be non-empty for OBJECT/);
		const responseSchema = { ...googleOk(), generationConfig: { responseSchema: { type: "object", $schema: "x" } } };
		expect(googleMessage(responseSchema)).toMatch(/Unknown name "\$schema" at 'generation_config.response_schema'/);
	});
});

describe("a refused request over HTTP", () => {
	let anthropic: FakeAnthropic;
	let google: FakeGoogle;
	beforeAll(async () => {
		[anthropic, google] = await Promise.all([startFakeAnthropic(), startFakeGoogle()]);
	});
	afterAll(async () => {
		await Promise.all([anthropic.close(), google.close()]);
	});

	it("is answered 400 in the service's error shape and takes no scripted reply", async () => {
		anthropic.reply({ text: "kept" });
		const { max_tokens: _m, ...noMax } = anthropicOk();
		const a = await fetch(`${anthropic.baseURL}/messages`, { method: "POST", body: JSON.stringify(noMax) });
		expect(a.status).toBe(400);
		expect(await a.json()).toEqual({
			type: "error",
			error: { type: "invalid_request_error", message: "max_tokens: Field required" },
		});
		expect(anthropic.remaining()).toBe(1);

		google.reply({ text: "kept" });
		const bad = { ...googleOk(), contents: [] };
		const g = await fetch(`${google.baseURL}/models/gemini-2.5-flash:generateContent`, {
			method: "POST",
			body: JSON.stringify(bad),
		});
		expect(g.status).toBe(400);
		expect(await g.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
		expect(google.remaining()).toBe(1);
	});
});
