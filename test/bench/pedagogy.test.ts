/**
 * The pedagogy eval on the demo, at a small size (two personas): its JSON line has the issue's
 * shape, the demo's learners gain more of their hidden state than the same learners taught by a
 * tutor that only explains, every bad tutor is separated from the demo's good run (each guardrail
 * holds in code or is reported "prompt"), the demo gives no answer away, and the scripted grader
 * says it is one. Counts only, no timing.
 */
import { expect, it } from "vitest";
import { reportJson, runEval } from "../../bench/eval/run.ts";

it("separates the demo from an explain-only tutor and from every bad tutor", async () => {
	const report = await runEval({
		personas: ["bs-novice", "bs-lo-mid"],
		seed: "1",
		env: { LEARNHARNESS_MODEL: "demo" },
	});
	const json = reportJson(report);
	expect(Object.keys(json)).toEqual(
		expect.arrayContaining([
			"bench",
			"model",
			"personas",
			"diagnosis_accuracy",
			"learning_gain",
			"misconceptions_repaired",
			"revealed_before_attempt",
			"scaffolding_share",
			"guardrails",
		]),
	);
	expect(json.bench).toBe("pedagogy");
	expect(json.model).toBe("demo");
	expect(Object.keys(json.personas)).toEqual(["bs-novice", "bs-lo-mid"]);
	// Learning: the demo's lesson beats explanations alone on the same learners.
	expect(json.learning_gain).toBeGreaterThan(json.explain_only.learning_gain);
	expect(json.learning_gain).toBeGreaterThan(0);
	// The lo = mid misconception showed, was named and contradicted, and was repaired.
	expect(json.personas["bs-lo-mid"]?.misconceptions_repaired).toBe(1);
	expect(json.revealed_before_attempt).toBe(0);
	expect(json.diagnosis_accuracy).toBeGreaterThan(0.5);
	expect(json.scaffolding_share).toBeGreaterThan(0.5);
	// Guardrails: every bad tutor tried, none of it shows in the demo's run, and each holds in code or is "prompt".
	expect(Object.keys(json.guardrails).sort()).toEqual(
		[
			"explain_again_leak",
			"explain_leak",
			"hint_leak",
			"lecture",
			"off_map_quiz",
			"recap_without_recall",
			"shaky_to_recap",
			"skip_probe",
		].sort(),
	);
	for (const [name, g] of Object.entries(report.guardrails)) {
		expect(g.attempts, name).toBeGreaterThan(0);
		expect(g.good, name).toBe(0);
		expect(g.separated, name).toBe(true);
		expect(["code", "prompt"], name).toContain(g.status);
		if (g.status === "prompt") expect(g.reached, name).toBeGreaterThan(0);
	}
	expect(json.guardrails.hint_leak).toBe("code");
	expect(json.guardrails.recap_without_recall).toBe("code");
	expect(json.guardrails.shaky_to_recap).toBe("code");
	// No grader model given: the scripted grader, said so, scored against every hand-labelled turn.
	expect(json.grader.scripted).toBe(true);
	expect(json.grader.name).toContain("scripted");
	expect(report.grader.agreement.turns).toBeGreaterThanOrEqual(20);
	expect(report.grader.agreement.overall).toBeGreaterThan(0.7);
});

it("names the missing key when --model needs one", async () => {
	await expect(runEval({ model: "openai:gpt-4.1-mini", env: {} })).rejects.toThrow(/OPENAI_API_KEY/);
});
