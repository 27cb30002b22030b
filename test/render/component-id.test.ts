import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	COMPONENT_ID_MAX_CHARS,
	type ComponentId,
	ComponentIdError,
	decodeComponentId,
	encodeComponentId,
} from "../../src/render/index.ts";

/** Tool call ids as providers make them (printable ASCII, may contain ":"), short enough to fit. */
const toolCallId = fc.stringMatching(/^[\x21-\x7e]{1,80}$/);
const componentId: fc.Arbitrary<ComponentId> = fc.oneof(
	fc.record({
		verb: fc.constantFrom("pick" as const, "select" as const),
		toolCallId,
		choice: fc.integer({ min: 0, max: 9999 }),
	}),
	fc.record({ verb: fc.constantFrom("open" as const, "modal" as const, "text" as const, "file" as const), toolCallId }),
);

describe("component ids", () => {
	it("round-trip and stay within Discord's 100 and Slack's 255 characters", () => {
		fc.assert(
			fc.property(componentId, (id) => {
				const encoded = encodeComponentId(id);
				expect(encoded.length).toBeLessThanOrEqual(100);
				expect(encoded.startsWith(`lh:${id.verb}:`)).toBe(true);
				expect(decodeComponentId(encoded)).toEqual(id);
			}),
			{ numRuns: 500 },
		);
	});

	it("keep tool call ids containing colons unambiguous", () => {
		const id = { verb: "select" as const, toolCallId: "functions.quiz:0", choice: 25 };
		expect(decodeComponentId(encodeComponentId(id))).toEqual(id);
		expect(decodeComponentId("lh:open:functions.quiz:0")).toEqual({ verb: "open", toolCallId: "functions.quiz:0" });
	});

	it("decode never throws and refuses anything that is not exactly ours", () => {
		fc.assert(
			fc.property(fc.oneof(fc.string(), fc.anything()), (value) => {
				const decoded = decodeComponentId(value);
				if (decoded !== undefined) expect(encodeComponentId(decoded)).toBe(value);
			}),
			{ numRuns: 500 },
		);
		for (const bad of [
			"",
			"lh",
			"lh:pick",
			"lh:pick:abc",
			"lh:pick:abc:",
			"lh:pick:abc:07",
			"lh:pick:abc:-1",
			"lh:pick:abc:1.5",
			"lh:pick:abc:10000",
			"lh:open:",
			"lh:open:a b",
			"lh:zap:abc",
			"xx:open:abc",
			"LH:open:abc",
			`lh:open:${"a".repeat(200)}`,
		])
			expect(decodeComponentId(bad)).toBeUndefined();
	});

	it("encode throws a clear error when an id cannot fit or is malformed", () => {
		expect(() => encodeComponentId({ verb: "open", toolCallId: "a".repeat(COMPONENT_ID_MAX_CHARS) })).toThrow(
			/characters; Discord allows 100/,
		);
		expect(() => encodeComponentId({ verb: "open", toolCallId: "" })).toThrow(ComponentIdError);
		expect(() => encodeComponentId({ verb: "open", toolCallId: "has space" })).toThrow(/printable ASCII/);
		expect(() => encodeComponentId({ verb: "pick", toolCallId: "call_1" })).toThrow(/needs an integer choice/);
		expect(() => encodeComponentId({ verb: "open", toolCallId: "call_1", choice: 1 })).toThrow(/takes no choice/);
	});
});
