/**
 * Checks the model settings (LEARNHARNESS_MODEL and the per-job ones) against
 * the providers the environment can reach: each setting must read (a known
 * provider, a model after the colon), and each provider it names must have
 * its key (or, for `compatible:`, its server).
 */

import { type ModelProvider, parseModelSpec } from "../agent/models/model-spec.ts";
import type { ConfigProblem } from "./entries.ts";

/** The jobs with a model setting of their own. */
export const MODEL_JOBS = ["prober", "teacher", "grader"] as const;
/** A job with a model setting of its own. */
export type ModelJob = (typeof MODEL_JOBS)[number];
/** The variable of each job's model. */
export const JOB_VARIABLE: Record<ModelJob, string> = {
	prober: "LEARNHARNESS_MODEL_PROBER",
	teacher: "LEARNHARNESS_MODEL_TEACHER",
	grader: "LEARNHARNESS_MODEL_GRADER",
};

/** What the settings see of the environment (validated values; undefined when unset). */
export interface ModelSettingsInput {
	/** LEARNHARNESS_MODEL after its default. */
	model: string;
	jobs: Partial<Record<ModelJob, string>>;
	openaiKey?: string;
	baseUrl?: string;
	anthropicKey?: string;
	googleKey?: string;
}

/** The verdict: problems, and whether any model in use is a real one (not the demo). */
export interface ModelSettingsResult {
	problems: ConfigProblem[];
	real: boolean;
}

const KEY_OF: Record<ModelProvider, string> = {
	openai: "OPENAI_API_KEY",
	anthropic: "ANTHROPIC_API_KEY",
	google: "GOOGLE_GENERATIVE_AI_API_KEY",
	compatible: "OPENAI_BASE_URL",
};

const FIX_OF: Record<ModelProvider, string> = {
	openai:
		"Set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server), or LEARNHARNESS_MODEL=demo for the built-in demo.",
	anthropic: "Set ANTHROPIC_API_KEY (https://console.anthropic.com/settings/keys), or choose another provider.",
	google: "Set GOOGLE_GENERATIVE_AI_API_KEY (https://aistudio.google.com/apikey), or choose another provider.",
	compatible: "Set OPENAI_BASE_URL to the server's base URL including /v1, e.g. http://127.0.0.1:11434/v1.",
};

/** Every problem of the model settings, one per bad setting and one per missing key (naming who needs it). */
export function checkModelSettings(input: ModelSettingsInput): ModelSettingsResult {
	const problems: ConfigProblem[] = [];
	const settings: Array<[variable: string, value: string]> = [["LEARNHARNESS_MODEL", input.model]];
	for (const job of MODEL_JOBS) {
		const value = input.jobs[job];
		if (value !== undefined) settings.push([JOB_VARIABLE[job], value]);
	}
	const has: Record<ModelProvider, boolean> = {
		openai: Boolean(input.openaiKey),
		anthropic: Boolean(input.anthropicKey),
		google: Boolean(input.googleKey),
		compatible: Boolean(input.baseUrl),
	};
	const needs = new Map<ModelProvider, string[]>();
	const demo = new Map<string, boolean>();
	for (const [variable, value] of settings) {
		const spec = parseModelSpec(value, Boolean(input.baseUrl));
		if (!spec.ok) {
			problems.push({
				variable,
				problem: `${spec.problem} (${JSON.stringify(value)})`,
				fix: "Use provider:model, e.g. openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, google:gemini-2.5-flash or compatible:llama3.1:8b (with OPENAI_BASE_URL).",
			});
			continue;
		}
		demo.set(variable, spec.demo);
		if (spec.demo || has[spec.provider]) continue;
		needs.set(spec.provider, [...(needs.get(spec.provider) ?? []), `${variable}=${value}`]);
	}
	for (const [provider, users] of needs)
		problems.push({
			variable: KEY_OF[provider],
			problem: `is unset, but ${users.join(" and ")} ${users.length === 1 ? "needs" : "need"} it`,
			fix: FIX_OF[provider],
		});
	// The demo plays a whole scripted lesson: it cannot take turns with a real model. (Grading is one request
	// on its own, and the demo grades any quiz from fixed rules: the grader may be either.)
	const variableOf = (job: ModelJob) => (input.jobs[job] !== undefined ? JOB_VARIABLE[job] : "LEARNHARNESS_MODEL");
	const effective = MODEL_JOBS.map(variableOf).filter((variable) => demo.has(variable));
	const lesson = (["prober", "teacher"] as const).map(variableOf).filter((variable) => demo.has(variable));
	const demos = lesson.filter((variable) => demo.get(variable));
	if (demos.length > 0 && demos.length < lesson.length) {
		problems.push({
			// Two different settings: at least one is a job's own, the line the admin added.
			variable: lesson.find((variable) => variable !== "LEARNHARNESS_MODEL") ?? "LEARNHARNESS_MODEL",
			problem: "mixes a real model with the demo, which plays a whole scripted lesson on its own",
			fix: "Give LEARNHARNESS_MODEL, LEARNHARNESS_MODEL_PROBER and LEARNHARNESS_MODEL_TEACHER real models, or use demo alone.",
		});
	}
	const real = effective.some((variable) => demo.get(variable) === false);
	return { problems, real };
}
