/** LEARNHARNESS_MODEL_TIMEOUT_MS and LEARNHARNESS_TELEMETRY: parsed into the Config, refused with a fix when wrong. */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";

describe("model deadline and telemetry variables", () => {
	it("unset: no deadline override, telemetry off", () => {
		const r = parseConfig({});
		expect(r.ok && r.config.modelTimeoutMs).toBeUndefined();
		expect(r.ok && r.config.telemetry).toBeUndefined();
	});

	it("set: the deadline in ms, telemetry on with 1 and off with 0", () => {
		const on = parseConfig({ LEARNHARNESS_MODEL_TIMEOUT_MS: "90000", LEARNHARNESS_TELEMETRY: "1" });
		expect(on.ok && [on.config.modelTimeoutMs, on.config.telemetry]).toEqual([90_000, true]);
		const off = parseConfig({ LEARNHARNESS_TELEMETRY: "0" });
		expect(off.ok && off.config.telemetry).toBeUndefined();
	});

	it("refuses a deadline under a second or not a number, and telemetry other than 0 or 1", () => {
		const r = parseConfig({ LEARNHARNESS_MODEL_TIMEOUT_MS: "500", LEARNHARNESS_TELEMETRY: "yes" });
		expect(r.ok).toBe(false);
		if (r.ok) return;
		expect(r.problems.map((p) => [p.variable, p.problem])).toEqual([
			["LEARNHARNESS_MODEL_TIMEOUT_MS", expect.stringMatching(/below 1000/)],
			["LEARNHARNESS_TELEMETRY", expect.stringMatching(/not 0 or 1/)],
		]);
		const nan = parseConfig({ LEARNHARNESS_MODEL_TIMEOUT_MS: "soon" });
		expect(nan.ok || nan.problems[0]?.problem).toMatch(/not a number/);
	});
});
