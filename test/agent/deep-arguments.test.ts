/**
 * Tool arguments nested 10,000 deep: refused with words the model can act on, and the
 * transcript stays savable (a refused call keeps a bounded, serializable form of its input).
 */
import { afterAll, expect, it } from "vitest";
import { jsonDepth, MAX_ARGUMENT_DEPTH } from "../../src/agent/engine/model-tools.ts";
import { boundedRawInput, MAX_REFUSED_INPUT_CHARS } from "../../src/agent/engine/settle-step.ts";
import { toolParts } from "../../src/core/transcript.ts";
import { harness, learner, probeQuiz, scriptedModel, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

/** [[[…]]] nested `depth` deep, built without recursion. */
function nested(depth: number): unknown {
	let value: unknown = [];
	for (let i = 1; i < depth; i++) value = [value];
	return value;
}

it("a call nested 10,000 deep is refused, the lesson saves, and the next step goes on", async () => {
	const raw = `{"question":"q","options":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
	const model = scriptedModel([
		{ calls: [{ name: "quiz", raw, id: "deep" }] },
		{ calls: [{ name: "quiz", input: probeQuiz, id: "ok" }] },
	]);
	const h = await harness(dir.path, model);
	const sessionId = "terminal:deep-args";
	await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
	await h.tutor.idle(sessionId);
	expect(h.of("error")).toEqual([]);
	const record = await h.store.get(sessionId);
	const parts = [...toolParts(record?.messages ?? [])];
	expect(parts.map((p) => [p.toolCallId, p.state])).toEqual([
		["deep", "output-error"],
		["ok", "input-available"],
	]);
	expect(parts[0]?.errorText).toMatch(new RegExp(`deeper than ${MAX_ARGUMENT_DEPTH} levels`));
	expect(String(parts[0]?.rawInput).length).toBeLessThanOrEqual(MAX_REFUSED_INPUT_CHARS + 60);
	// The model saw its mistake as a tool error on the next request.
	expect(JSON.stringify(model.doStreamCalls[1]?.prompt)).toContain(`deeper than ${MAX_ARGUMENT_DEPTH} levels`);
	await h.tutor.close();
});

it("a refused input is kept bounded and serializable, whatever it is", () => {
	const deep = nested(10_000);
	const kept = boundedRawInput(deep);
	expect(typeof kept).toBe("string");
	expect(() => JSON.stringify({ rawInput: kept })).not.toThrow();
	expect(String(boundedRawInput("x".repeat(100_000))).length).toBeLessThan(MAX_REFUSED_INPUT_CHARS + 60);
	const small = { question: "q", options: [1, 2] };
	expect(boundedRawInput(small)).toBe(small); // small and shallow: kept as the model sent it
	const cyclic: Record<string, unknown> = {};
	cyclic.self = cyclic;
	expect(boundedRawInput(cyclic)).toMatch(/could not be kept/);
});

it("jsonDepth scans linearly and ignores brackets inside strings", () => {
	expect(jsonDepth('{"a":[1,{"b":"[[[["}]}')).toBe(3);
	expect(jsonDepth('"\\"[["')).toBe(0);
	expect(jsonDepth("[".repeat(50_000))).toBe(50_000);
});
