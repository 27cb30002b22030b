import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { ReviewItem } from "../../../src/agent/profile/profile-store.ts";
import { createRephraser } from "../../../src/agent/profile/rephrase.ts";
import { createScheduler } from "../../../src/agent/profile/schedule.ts";

const item: ReviewItem = {
	id: "s#n",
	sessionId: "s",
	topic: "fractions",
	nodeId: "n",
	label: "Common denominators",
	question: "What denominator do 1/3 and 1/6 share?",
	correctAnswer: "sixths",
	card: createScheduler().first(new Date("2026-03-01"), "good"),
};

const replying = (text: string) =>
	new MockLanguageModelV3({
		doGenerate: async () => ({
			content: [{ type: "text", text }],
			finishReason: { unified: "stop", raw: "stop" },
			usage: {
				inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
				outputTokens: { total: 1, text: 1, reasoning: 0 },
			},
			warnings: [],
		}),
	});

describe("review questions reworded by the model", () => {
	it("uses the model's wording, and keeps the original when it gives the answer away or fails", async () => {
		expect(await createRephraser(replying("Which denominator fits both 1/3 and 1/6?"))(item)).toBe(
			"Which denominator fits both 1/3 and 1/6?",
		);
		expect(await createRephraser(replying("They share sixths, right?"))(item)).toBeUndefined();
		const failing = new MockLanguageModelV3({
			doGenerate: async () => {
				throw new Error("503");
			},
		});
		expect(await createRephraser(failing)(item)).toBeUndefined();
	});
});
