/**
 * The variables of the providers beyond OpenAI (their keys and base URLs) and
 * of the per-job models; spread into VARIABLES (variables.ts) beside the
 * OpenAI ones.
 */

import { z } from "zod";
import type { VariableSpec } from "./entries.ts";

// Own schemas, not variables.ts's: that module imports this one, so its constants are not ready yet.
const text = z.string().trim().min(1);
const httpUrl = z.url({ protocol: /^https?$/, error: "is not an http(s) URL" });
/** The shape of a model setting; what it names (provider, key) is checked in config/models.ts. */
export const modelSetting = text.regex(/^[\w.:/@-]+$/, { error: "is not a model id (letters, digits, . : / @ - _)" });

/** Keys and base URLs of Anthropic and Google, in the table after OPENAI_BASE_URL. */
export const PROVIDER_VARIABLES: readonly VariableSpec[] = [
	{
		name: "ANTHROPIC_API_KEY",
		default: "(unset)",
		description: "API key for `anthropic:` models (Claude, the Messages API).",
		schema: text,
		fix: "Paste the key from https://console.anthropic.com/settings/keys, or remove the line.",
	},
	{
		name: "ANTHROPIC_BASE_URL",
		default: "(unset: https://api.anthropic.com/v1)",
		description: "Another Anthropic API base URL (tests, proxies).",
		schema: httpUrl,
		fix: "Use an http(s) URL including /v1, e.g. https://api.anthropic.com/v1, or remove the line.",
	},
	{
		name: "GOOGLE_GENERATIVE_AI_API_KEY",
		default: "(unset)",
		description: "API key for `google:` models (Gemini, the Generative Language API).",
		schema: text,
		fix: "Paste the key from https://aistudio.google.com/apikey, or remove the line.",
	},
	{
		name: "GOOGLE_GENERATIVE_AI_BASE_URL",
		default: "(unset: https://generativelanguage.googleapis.com/v1beta)",
		description: "Another Generative Language API base URL (tests, proxies).",
		schema: httpUrl,
		fix: "Use an http(s) URL including /v1beta, e.g. https://generativelanguage.googleapis.com/v1beta, or remove the line.",
	},
];

/** The per-job models, in the table after LEARNHARNESS_MODEL. */
export const JOB_MODEL_VARIABLES: readonly VariableSpec[] = [
	{
		name: "LEARNHARNESS_MODEL_PROBER",
		default: "(unset: LEARNHARNESS_MODEL)",
		description:
			"The model of the probe (the diagnosing quizzes), same syntax as LEARNHARNESS_MODEL: a small fast one does.",
		schema: modelSetting,
		fix: "Use provider:model like LEARNHARNESS_MODEL (e.g. openai:gpt-4.1-mini), or remove the line.",
	},
	{
		name: "LEARNHARNESS_MODEL_TEACHER",
		default: "(unset: LEARNHARNESS_MODEL)",
		description:
			"The model of the teaching (map, explanations, quizzes), same syntax as LEARNHARNESS_MODEL: the strong one.",
		schema: modelSetting,
		fix: "Use provider:model like LEARNHARNESS_MODEL (e.g. anthropic:claude-sonnet-4-5), or remove the line.",
	},
	{
		name: "LEARNHARNESS_MODEL_GRADER",
		default: "(unset: LEARNHARNESS_MODEL)",
		description:
			"The model that judges typed answers the built-in checks cannot decide (one short structured-output request each), same syntax as LEARNHARNESS_MODEL: a small fast one does.",
		schema: modelSetting,
		fix: "Use provider:model like LEARNHARNESS_MODEL (e.g. openai:gpt-4.1-nano), or remove the line.",
	},
];
