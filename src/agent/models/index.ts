/**
 * The model a tutor talks to, from configuration: `demo` (the built-in
 * scripted lesson, no key), an OpenAI-compatible server (OPENAI_BASE_URL:
 * chat completions, what Ollama, vLLM, llama.cpp and LM Studio serve), or
 * OpenAI itself (the Responses API).
 */

import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModel } from "ai";
import { createDemoModel } from "./demo-model.ts";

/** Model configuration (LEARNHARNESS_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL). */
export interface ModelConfig {
	/** `demo`, or a model id such as `gpt-4o-mini` or `llama3.1:8b`. */
	model: string;
	apiKey?: string;
	/** An OpenAI-compatible base URL ending in `/v1`; switches to chat completions. */
	baseUrl?: string;
}

/** The LanguageModel for a configuration. */
export function createLanguageModel(config: ModelConfig): LanguageModel {
	if (config.model === "demo") return createDemoModel();
	if (config.baseUrl) {
		// Local servers often need no key, but the provider insists on one.
		const provider = createOpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey || "not-needed" });
		return provider.chat(config.model);
	}
	return createOpenAI({ apiKey: config.apiKey })(config.model);
}
