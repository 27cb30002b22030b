/**
 * What a model setting (`LEARNHARNESS_MODEL` and its per-job twins) names:
 * `provider:model` for the provider registry, a bare id (OpenAI, or the
 * OpenAI-compatible server when one is configured) or `demo`. Pure: the
 * configuration validates with it and the model factory resolves with it, so
 * both read a value the same way.
 */

/** The providers the registry knows, by the prefix a setting uses. */
export const MODEL_PROVIDERS = ["openai", "anthropic", "google", "compatible"] as const;
/** A provider prefix of the registry. */
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** A setting read: the registry id (`provider:model`), or the demo. */
export type ModelSpec =
	| { ok: true; demo: true }
	| { ok: true; demo: false; provider: ModelProvider; modelId: string; registryId: string }
	| { ok: false; problem: string };

const isProvider = (name: string): name is ModelProvider => (MODEL_PROVIDERS as readonly string[]).includes(name);

/**
 * Reads a model setting. `compatibleServer`: OPENAI_BASE_URL is set, so a bare id (including
 * Ollama's `llama3.1:8b`, whose colon names a tag, not a provider) goes to that server.
 */
export function parseModelSpec(value: string, compatibleServer: boolean): ModelSpec {
	const text = value.trim();
	if (text === "") return { ok: false, problem: "is empty" };
	if (text === "demo") return { ok: true, demo: true };
	const colon = text.indexOf(":");
	const prefix = colon === -1 ? "" : text.slice(0, colon);
	if (isProvider(prefix)) {
		const modelId = text.slice(colon + 1);
		if (modelId.trim() === "") return { ok: false, problem: `names no model after "${prefix}:"` };
		return { ok: true, demo: false, provider: prefix, modelId, registryId: `${prefix}:${modelId}` };
	}
	// Fine-tuned OpenAI models read `ft:gpt-4.1-mini:org::id`: a bare OpenAI id despite the colons.
	if (colon !== -1 && !compatibleServer && prefix !== "ft")
		return {
			ok: false,
			problem: `names an unknown provider "${prefix}" (known: ${MODEL_PROVIDERS.join(", ")})`,
		};
	const provider: ModelProvider = compatibleServer ? "compatible" : "openai";
	return { ok: true, demo: false, provider, modelId: text, registryId: `${provider}:${text}` };
}
