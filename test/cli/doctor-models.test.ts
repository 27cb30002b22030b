import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkModels } from "../../src/cli/doctor-checks.ts";
import { describeModel } from "../../src/cli/services.ts";
import { type Config, parseConfig } from "../../src/config.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../../testkit/fakes/anthropic.ts";
import { type FakeGoogle, googleRoute, startFakeGoogle } from "../../testkit/fakes/google.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../testkit/fakes/openai.ts";

let anthropic: FakeAnthropic;
let google: FakeGoogle;
let openai: FakeOpenAI;
beforeAll(async () => {
	[anthropic, google, openai] = await Promise.all([startFakeAnthropic(), startFakeGoogle(), startFakeOpenAI()]);
});
afterAll(() => Promise.all([anthropic.close(), google.close(), openai.close()]));

const configFor = (env: Record<string, string>): Config => {
	const r = parseConfig(env);
	if (!r.ok) throw new Error(JSON.stringify(r.problems));
	return r.config;
};

describe("doctor: one tiny request per distinct model", () => {
	it("checks the prober's and the teacher's models on their own providers (the grader shares the prober's)", async () => {
		anthropic.reply({ text: "OK" });
		google.reply({ text: "OK" });
		const config = configFor({
			LEARNHARNESS_MODEL_PROBER: "google:fake-flash",
			LEARNHARNESS_MODEL_TEACHER: "anthropic:fake-sonnet",
			LEARNHARNESS_MODEL_GRADER: "google:fake-flash",
			ANTHROPIC_API_KEY: "a",
			ANTHROPIC_BASE_URL: anthropic.baseURL,
			GOOGLE_GENERATIVE_AI_API_KEY: "g",
			GOOGLE_GENERATIVE_AI_BASE_URL: google.baseURL,
		});
		const results = await checkModels(config, 5_000);
		expect(results).toEqual([
			{
				name: "model (prober, grader)",
				status: "ok",
				detail: expect.stringMatching(
					/^google:fake-flash at http:\/\/127\.0\.0\.1:\d+\/v1beta answered in \d+ ms \("OK"\)$/,
				),
			},
			{
				name: "model (teacher)",
				status: "ok",
				detail: expect.stringMatching(/^anthropic:fake-sonnet at .* answered in \d+ ms \("OK"\)$/),
			},
		]);
		expect(googleRoute(google.requests.at(-1)?.path ?? "")).toEqual({ model: "fake-flash", method: "generateContent" });
		expect(anthropic.requests.at(-1)?.body.model).toBe("fake-sonnet");
		expect(describeModel(config)).toMatch(
			/^prober and grader: google:fake-flash at .*; teacher: anthropic:fake-sonnet at /,
		);
	});

	it("makes one request when every job uses the same model, and names the provider's variables when it fails", async () => {
		openai.reply({ status: 401 });
		const before = openai.requests.length;
		const config = configFor({
			LEARNHARNESS_MODEL: "compatible:fake-llama",
			LEARNHARNESS_MODEL_TEACHER: "compatible:fake-llama",
			OPENAI_BASE_URL: openai.baseURL,
		});
		const results = await checkModels(config, 5_000);
		expect(results).toHaveLength(1);
		expect(results[0]).toMatchObject({
			name: "model",
			status: "fail",
			detail: expect.stringMatching(/Fix: check OPENAI_API_KEY, OPENAI_BASE_URL/),
		});
		expect(openai.requests.length - before).toBe(1);

		anthropic.reply({ status: 401 });
		const claude = await checkModels(
			configFor({
				LEARNHARNESS_MODEL: "anthropic:fake",
				ANTHROPIC_API_KEY: "bad",
				ANTHROPIC_BASE_URL: anthropic.baseURL,
			}),
			5_000,
		);
		expect(claude[0]).toMatchObject({
			status: "fail",
			detail: expect.stringMatching(/Fix: check ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL/),
		});
	});
});
