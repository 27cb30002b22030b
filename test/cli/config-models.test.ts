import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";

const problemsOf = (env: Record<string, string>) => {
	const r = parseConfig(env);
	return r.ok ? [] : r.problems;
};

describe("config: provider:model settings", () => {
	it("accepts each provider with its key, and keeps the keys and base URLs for the registry", () => {
		const r = parseConfig({
			LEARNHARNESS_MODEL: "anthropic:claude-sonnet-4-5",
			ANTHROPIC_API_KEY: "sk-ant",
			ANTHROPIC_BASE_URL: "http://127.0.0.1:9/v1",
			LEARNHARNESS_MODEL_PROBER: "google:gemini-2.5-flash",
			GOOGLE_GENERATIVE_AI_API_KEY: "g-key",
		});
		expect(r.ok && r.config.model).toEqual({
			id: "anthropic:claude-sonnet-4-5",
			demo: false,
			vision: true,
			jobs: { prober: "google:gemini-2.5-flash" },
			anthropic: { apiKey: "sk-ant", baseUrl: "http://127.0.0.1:9/v1" },
			google: { apiKey: "g-key" },
		});
	});

	it("keeps a bare id working: OpenAI with a key, the compatible server with OPENAI_BASE_URL", () => {
		const openai = parseConfig({ OPENAI_API_KEY: "sk", LEARNHARNESS_MODEL: "gpt-4.1" });
		expect(openai.ok && openai.config.model).toEqual({ id: "gpt-4.1", demo: false, vision: true, apiKey: "sk" });
		const local = parseConfig({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", LEARNHARNESS_MODEL: "qwen2.5:7b" });
		expect(local.ok).toBe(true);
		const explicit = parseConfig({
			OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
			LEARNHARNESS_MODEL: "compatible:qwen2.5:7b",
		});
		expect(explicit.ok && explicit.config.model.baseUrl).toBe("http://127.0.0.1:11434/v1");
	});

	it("names an unknown provider, with the known ones", () => {
		const problems = problemsOf({ LEARNHARNESS_MODEL: "antropic:claude-sonnet-4-5", OPENAI_API_KEY: "sk" });
		expect(problems).toHaveLength(1);
		expect(problems[0]?.variable).toBe("LEARNHARNESS_MODEL");
		expect(problems[0]?.problem).toMatch(
			/unknown provider "antropic" \(known: openai, anthropic, google, compatible\)/,
		);
		expect(problems[0]?.fix).toMatch(/anthropic:claude/);
	});

	it("names a malformed value: no model after the provider, or characters a model id cannot hold", () => {
		expect(problemsOf({ LEARNHARNESS_MODEL_TEACHER: "anthropic:", ANTHROPIC_API_KEY: "k" })).toEqual([
			expect.objectContaining({
				variable: "LEARNHARNESS_MODEL_TEACHER",
				problem: expect.stringMatching(/no model after "anthropic:"/),
			}),
		]);
		expect(problemsOf({ LEARNHARNESS_MODEL_PROBER: "gpt 4" })[0]).toMatchObject({
			variable: "LEARNHARNESS_MODEL_PROBER",
			problem: expect.stringMatching(/is not a model id/),
		});
	});

	it("names the missing key of each chosen provider once, with every setting that needs it", () => {
		const problems = problemsOf({
			LEARNHARNESS_MODEL: "google:gemini-2.5-pro",
			LEARNHARNESS_MODEL_PROBER: "anthropic:claude-haiku-4-5",
			LEARNHARNESS_MODEL_TEACHER: "anthropic:claude-sonnet-4-5",
		});
		expect(problems.map((p) => p.variable).sort()).toEqual(["ANTHROPIC_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"]);
		expect(problems.find((p) => p.variable === "ANTHROPIC_API_KEY")?.problem).toBe(
			"is unset, but LEARNHARNESS_MODEL_PROBER=anthropic:claude-haiku-4-5 and LEARNHARNESS_MODEL_TEACHER=anthropic:claude-sonnet-4-5 need it",
		);
		expect(problemsOf({ LEARNHARNESS_MODEL: "openai:gpt-4.1" })[0]).toMatchObject({
			variable: "OPENAI_API_KEY",
			fix: expect.stringMatching(/LEARNHARNESS_MODEL=demo/),
		});
		expect(problemsOf({ LEARNHARNESS_MODEL: "compatible:llama3.1:8b" })[0]).toMatchObject({
			variable: "OPENAI_BASE_URL",
			problem: "is unset, but LEARNHARNESS_MODEL=compatible:llama3.1:8b needs it",
		});
	});

	it("defaults each job to LEARNHARNESS_MODEL and refuses a real model beside the demo", () => {
		const r = parseConfig({ OPENAI_API_KEY: "sk" });
		expect(r.ok && r.config.model.jobs).toBeUndefined();
		const mixed = problemsOf({ LEARNHARNESS_MODEL_TEACHER: "anthropic:claude-sonnet-4-5", ANTHROPIC_API_KEY: "k" });
		expect(mixed).toEqual([
			expect.objectContaining({ variable: "LEARNHARNESS_MODEL_TEACHER", problem: expect.stringMatching(/demo/) }),
		]);
		// Both jobs on real models: the demo default of LEARNHARNESS_MODEL serves nobody, which is fine.
		const both = parseConfig({
			LEARNHARNESS_MODEL_PROBER: "anthropic:claude-haiku-4-5",
			LEARNHARNESS_MODEL_TEACHER: "anthropic:claude-sonnet-4-5",
			ANTHROPIC_API_KEY: "k",
		});
		expect(both.ok && both.config.model.anthropic).toEqual({ apiKey: "k" });
	});

	it("never echoes the new providers' keys in a problem", () => {
		const problems = problemsOf({ ANTHROPIC_API_KEY: " ", GOOGLE_GENERATIVE_AI_BASE_URL: "generativelanguage" });
		expect(problems.map((p) => p.variable)).toEqual(["GOOGLE_GENERATIVE_AI_BASE_URL"]);
		const secret = problemsOf({
			LEARNHARNESS_MODEL: "anthropic:x",
			ANTHROPIC_API_KEY: "sk-ant-secret",
			LEARNHARNESS_MODEL_PROBER: "bad model",
		});
		expect(JSON.stringify(secret)).not.toMatch(/sk-ant-secret/);
	});
});
