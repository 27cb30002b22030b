import { describe, expect, it } from "vitest";
import { deriveLessonPhase, findAssessment, LESSON_ENDED_PART } from "../../src/core/phases.ts";

const assessment = { strands: [{ strand: "s", assessment: "a" }] };
const probeDone = (state: string, output: unknown, input: unknown = { assessment }) => ({
	type: "tool-probe_done",
	state,
	input,
	output,
});

describe("deriveLessonPhase", () => {
	it("is probe until the first successful probe_done", () => {
		expect(deriveLessonPhase([])).toBe("probe");
		expect(deriveLessonPhase([{ parts: [probeDone("output-error", undefined)] }])).toBe("probe");
		expect(deriveLessonPhase([{ parts: [probeDone("output-available", { ok: false, error: "open quiz" })] }])).toBe(
			"probe",
		);
		expect(deriveLessonPhase([{ parts: [probeDone("input-available", undefined)] }])).toBe("probe");
	});
	it("is teach after it", () => {
		expect(deriveLessonPhase([{ parts: [probeDone("output-available", { ok: true })] }, { parts: [] }])).toBe("teach");
	});
	it("is ended after the end marker", () => {
		expect(
			deriveLessonPhase([
				{ parts: [probeDone("output-available", { ok: true })] },
				{ parts: [{ type: LESSON_ENDED_PART }] },
			]),
		).toBe("ended");
		expect(deriveLessonPhase([{ parts: [{ type: LESSON_ENDED_PART }] }])).toBe("ended");
	});
});

describe("findAssessment", () => {
	it("reads the first successful probe_done's assessment, parsed", () => {
		const messages = [
			{
				parts: [
					probeDone("output-available", { ok: false }, { assessment: { strands: [{ strand: "x", assessment: "y" }] } }),
				],
			},
			{ parts: [probeDone("output-available", { ok: true })] },
		];
		expect(findAssessment(messages)).toEqual(assessment);
	});
	it("is undefined when the recorded input does not parse", () => {
		expect(
			findAssessment([{ parts: [probeDone("output-available", { ok: true }, { assessment: "prose" })] }]),
		).toBeUndefined();
	});
});
