/**
 * Model failures through the real @ai-sdk/openai provider against the chat-completions fake:
 * retries with backoff, then an `error` event a learner can act on, and a session that runs the
 * turn again at the learner's next message. Delays are bounded small (retry-after-ms, timeouts).
 */
import { describe, expect, it } from "vitest";
import { harness, learner, probeQuiz, useFakeOpenAI } from "./helpers.ts";

const suite = useFakeOpenAI();

let n = 0;
/** A tutor on the fake, with small retry delays and timeouts. */
async function setup(options: { maxRetries: number; requestTimeoutMs?: number }) {
	suite.fake.requests.length = 0;
	const h = await harness(suite.dir.path, suite.model(), { retryDelayMs: 5, requestTimeoutMs: 10_000, ...options });
	const sessionId = `terminal:errors-${++n}`;
	return { h, sessionId };
}

describe("model errors: retries, then an error event, then the next message re-runs the turn", () => {
	it("an exhausted quota (429 insufficient_quota) is not retried and names billing, not a wait", async () => {
		suite.fake.reply(
			{ status: 429, errorCode: "insufficient_quota" },
			{ text: "Back again!", toolCalls: [{ id: "q", name: "quiz", arguments: probeQuiz }] },
		);
		const { h, sessionId } = await setup({ maxRetries: 2 });
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(suite.fake.requests).toHaveLength(1); // no retry: waiting never refills a quota
		expect(h.of("error")).toEqual([expect.objectContaining({ code: "model-quota" })]);
		const message = h.of("error")[0]?.message ?? "";
		expect(message).toMatch(/billing/);
		expect(message).not.toMatch(/busy|Wait a minute/);
		// Once the operator fixed billing, the learner's next message runs the turn.
		expect(await h.tutor.handle(sessionId, { type: "message", text: "hello?", by: learner })).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		expect(h.of("text").at(-1)?.text).toBe("Back again!");
		await h.tutor.close();
	});

	it("429 after the retries: a rate-limit message; the learner's next message succeeds", async () => {
		suite.fake.reply(
			{ status: 429, retryAfterMs: 5 },
			{ status: 429, retryAfterMs: 5 },
			{ status: 429, retryAfterMs: 5 },
			{ text: "Sorry for the wait!", toolCalls: [{ id: "q", name: "quiz", arguments: probeQuiz }] },
		);
		const { h, sessionId } = await setup({ maxRetries: 2 });
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(suite.fake.requests).toHaveLength(3); // the first attempt and two retries
		expect(h.of("error")).toEqual([expect.objectContaining({ code: "rate-limited", retryable: true })]);
		const message = h.of("error")[0]?.message ?? "";
		expect(message).toMatch(/busy/);
		expect(message).toMatch(/3 attempts/);
		expect(message).toMatch(/Send a message to try again/i);
		expect(h.of("typing").map((t) => t.active)).toEqual([true, false]);
		expect((await h.store.get(sessionId))?.turnOpen).toBe(false);

		expect(await h.tutor.handle(sessionId, { type: "message", text: "hello?", by: learner })).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		expect(h.of("text").at(-1)?.text).toBe("Sorry for the wait!");
		expect(h.of("quiz").map((q) => q.toolCallId)).toEqual(["q"]);
		expect(suite.fake.remaining()).toBe(0);
		await h.tutor.close();
	});

	it("a 500 is retried and the retry's reply is used; a 401 is not retried and names the key", async () => {
		suite.fake.reply({ status: 500 }, { text: "Hello after a hiccup." });
		const { h, sessionId } = await setup({ maxRetries: 1 });
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(suite.fake.requests).toHaveLength(2);
		expect(h.of("error")).toHaveLength(0);
		expect(h.of("text").at(-1)?.text).toBe("Hello after a hiccup.");

		suite.fake.reply({ status: 401 });
		await h.tutor.handle(sessionId, { type: "message", text: "go on", by: learner });
		await h.tutor.idle(sessionId);
		expect(suite.fake.requests).toHaveLength(3);
		expect(h.of("error")).toEqual([expect.objectContaining({ code: "model-auth" })]);
		expect(h.of("error")[0]?.message).toMatch(/OPENAI_API_KEY/);
		suite.fake.reply({ text: "Back." });
		await h.tutor.handle(sessionId, { type: "message", text: "again", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("text").at(-1)?.text).toBe("Back.");
		await h.tutor.close();
	});

	it("a request that hangs (before its headers, then mid-stream) times out, is retried, then reported", async () => {
		suite.fake.reply({ hang: "before-headers" }, { hang: "mid-stream", text: "never finished" });
		const { h, sessionId } = await setup({ maxRetries: 1, requestTimeoutMs: 150 });
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(suite.fake.requests).toHaveLength(2);
		expect(h.of("error")).toEqual([expect.objectContaining({ code: "model-timeout", retryable: true })]);
		expect(h.of("error")[0]?.message).toMatch(/did not answer.*2 attempts.*Send a message to try again/);
		expect(h.of("text")).toHaveLength(0); // the half-streamed reply is not shown
		const record = await h.store.get(sessionId);
		expect(record?.messages).toHaveLength(1); // nothing half-written to the transcript
		expect(record?.turnOpen).toBe(false);

		// A timed-out attempt that is retried successfully is invisible to the learner.
		suite.fake.reply({ hang: "before-headers" }, { text: "Here I am." });
		await h.tutor.handle(sessionId, { type: "message", text: "anyone there?", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("error")).toHaveLength(1);
		expect(h.of("text").at(-1)?.text).toBe("Here I am.");
		expect(suite.fake.remaining()).toBe(0);
		await h.tutor.close();
	});
});
