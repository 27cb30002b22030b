import { afterAll, describe, expect, it } from "vitest";
import { createLanguageModel } from "../../../src/agent/models/index.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { harness, learner, tempDir } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

type Model = { provider: string; modelId: string };

describe("createLanguageModel", () => {
	it("picks the demo, an OpenAI-compatible chat-completions server, or OpenAI", () => {
		expect((createLanguageModel({ model: "demo" }) as Model).modelId).toBe("demo");
		const local = createLanguageModel({ model: "llama3.1:8b", baseUrl: "http://127.0.0.1:11434/v1" }) as Model;
		expect(local.provider).toBe("openai.chat");
		expect(local.modelId).toBe("llama3.1:8b");
		const openai = createLanguageModel({ model: "gpt-4o-mini", apiKey: "sk-test" }) as Model;
		expect(openai.provider).toBe("openai.responses");
	});

	it("the demo model plays its lesson end to end through the engine", async () => {
		const h = await harness(dir.path, createLanguageModel({ model: "demo" }));
		const sessionId = "terminal:demo";
		const open: Array<Extract<TutorEvent, { type: "quiz" | "ask" }>> = [];
		h.tutor.subscribe((e) => {
			if (e.type === "quiz" || e.type === "ask") open.push(e);
			// A missed check stays open: answer it again (the second miss reveals the answer).
			if (e.type === "attempt" && e.state === "missed" && e.quiz)
				open.push({ type: "quiz", sessionId: e.sessionId, toolCallId: e.toolCallId, input: e.quiz });
		});
		await h.tutor.startLesson({ sessionId, topic: "binary search", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		for (let i = 0; i < 40 && open.length > 0; i++) {
			const e = open.shift()!;
			const options = e.input.options;
			const verdict =
				options === undefined
					? await h.tutor.handle(sessionId, {
							type: "reply",
							toolCallId: e.toolCallId,
							text: "I think so",
							by: learner,
						})
					: await h.tutor.handle(sessionId, { type: "answer", toolCallId: e.toolCallId, value: 0, by: learner });
			expect(verdict).toEqual({ ok: true });
			await h.tutor.idle(sessionId);
		}
		expect(h.of("assessment")).toHaveLength(1);
		expect(h.of("plan")[0]?.reason).toBe("init");
		expect(h.of("plan").some((p) => p.reason === "moved")).toBe(true);
		expect(h.of("explain").at(-1)?.input.role).toBe("recap");
		expect(h.of("ended")).toEqual([{ type: "ended", sessionId, reason: "completed" }]);
		expect(h.of("error")).toHaveLength(0);
		await h.tutor.close();
	});
});
