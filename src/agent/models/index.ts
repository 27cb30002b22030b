/**
 * The models a tutor talks to, from configuration, through the AI SDK's
 * provider registry: `demo` (the built-in scripted lesson, no key),
 * `openai:` (the Responses API), `anthropic:`, `google:` (Gemini) and
 * `compatible:` (an OpenAI-compatible server speaking chat completions, what
 * Ollama, vLLM, llama.cpp and LM Studio serve). A bare id is OpenAI's, or
 * the compatible server's when one is configured.
 */

import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import type { ProviderV3 } from "@ai-sdk/provider";
import { createProviderRegistry, type LanguageModel } from "ai";
import { createDemoModel } from "./demo-model.ts";
import { parseModelSpec } from "./model-spec.ts";

export { MODEL_PROVIDERS, type ModelProvider, type ModelSpec, parseModelSpec } from "./model-spec.ts";

/** A provider's key and (for tests and proxies) its base URL. */
export interface ProviderAccess {
	apiKey?: string;
	baseUrl?: string;
}

/** The providers' keys and base URLs; a provider left out falls back to its SDK's own variable. */
export interface ProviderSettings {
	/** OpenAI's key (OPENAI_API_KEY), also sent to the compatible server. */
	apiKey?: string;
	/** An OpenAI-compatible base URL ending in `/v1` (OPENAI_BASE_URL): the `compatible:` provider. */
	baseUrl?: string;
	/** OpenAI's own base URL (tests, proxies speaking the Responses API); never OPENAI_BASE_URL, the compatible server. */
	openai?: Pick<ProviderAccess, "baseUrl">;
	anthropic?: ProviderAccess;
	google?: ProviderAccess;
}

/** Where `openai:` goes unless `openai.baseUrl` says otherwise. */
export const OPENAI_API_URL = "https://api.openai.com/v1";

/** Model configuration: a setting (LEARNHARNESS_MODEL's syntax) and the providers' access. */
export interface ModelConfig extends ProviderSettings {
	/** `demo`, `provider:model` such as `anthropic:claude-sonnet-4-5`, or a bare id such as `gpt-4.1-mini` or `llama3.1:8b`. */
	model: string;
}

/** The registry of the providers a configuration can reach (`compatible` only with a base URL). */
export function createModelRegistry(settings: ProviderSettings) {
	const chatServer = settings.baseUrl
		? // Local servers often need no key, but the provider insists on one.
			createOpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey || "not-needed" })
		: undefined;
	const providers: Record<string, ProviderV3> = {
		// The base URL is always given: @ai-sdk/openai falls back to the OPENAI_BASE_URL variable, which here names the
		// compatible server (chat completions), so `openai:` next to a compatible server sent it Responses requests.
		openai: createOpenAI({
			...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
			baseURL: settings.openai?.baseUrl ?? OPENAI_API_URL,
		}),
		anthropic: createAnthropic(access(settings.anthropic)),
		google: createGoogleGenerativeAI(access(settings.google)),
	};
	// The compatible server speaks chat completions, not the Responses API a bare createOpenAI model uses.
	if (chatServer)
		providers.compatible = {
			specificationVersion: "v3",
			languageModel: (id) => chatServer.chat(id),
			embeddingModel: (id) => chatServer.embeddingModel(id),
			imageModel: (id) => chatServer.imageModel(id),
		};
	return createProviderRegistry(providers);
}

/** The LanguageModel for a configuration; throws (NoSuchProviderError, or a plain Error) on a setting it cannot read. */
export function createLanguageModel(config: ModelConfig): LanguageModel {
	const spec = parseModelSpec(config.model, config.baseUrl !== undefined);
	if (!spec.ok) throw new Error(`The model setting ${JSON.stringify(config.model)} ${spec.problem}.`);
	if (spec.demo) return createDemoModel();
	return createModelRegistry(config).languageModel(spec.registryId as `${string}:${string}`);
}

function access(settings: ProviderAccess | undefined): { apiKey?: string; baseURL?: string } {
	return {
		...(settings?.apiKey ? { apiKey: settings.apiKey } : {}),
		...(settings?.baseUrl ? { baseURL: settings.baseUrl } : {}),
	};
}
