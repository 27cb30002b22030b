import { APICallError } from "ai";
import Keyv from "keyv";
import { afterAll, describe, expect, it } from "vitest";
import { createSessionStore, sessionStoreOnKeyv } from "../../src/agent/store/session-store.ts";
import type { SessionStore } from "../../src/agent/store/types.ts";
import { createTutor } from "../../src/agent/tutor.ts";
import { silentLogger } from "../../src/core/contracts/logger.ts";
import { toolParts } from "../../src/core/transcript.ts";
import { harness, learner, probeQuiz, scriptedModel, stranger, tempDir, toolResultsSent } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

let n = 0;
const newSession = () => `terminal:handle-${++n}`;

describe("handle(): verdicts before model work, serialized delivery", () => {
	it("two identical answers at once record one", async () => {
		const model = scriptedModel([{ calls: [{ name: "quiz", input: probeQuiz, id: "q" }] }, { text: "Nice." }]);
		const h = await harness(dir.path, model);
		const sessionId = newSession();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		const answer = { type: "answer", toolCallId: "q", value: 1, by: learner } as const;
		const verdicts = await Promise.all([h.tutor.handle(sessionId, answer), h.tutor.handle(sessionId, answer)]);
		expect(verdicts.filter((v) => v.ok)).toHaveLength(1);
		expect(verdicts.find((v) => !v.ok)).toMatchObject({ code: "already-answered" });
		await h.tutor.idle(sessionId);
		expect(h.of("answered")).toHaveLength(1);
		// A later click also records nothing.
		expect(await h.tutor.handle(sessionId, answer)).toMatchObject({ ok: false, code: "already-answered" });
		const record = await h.store.get(sessionId);
		const quizParts = [...toolParts(record!.messages)].filter((p) => p.toolCallId === "q");
		expect(quizParts).toHaveLength(1);
		expect(quizParts[0]?.output).toMatchObject({ answer: "3/4", correct: true });
		expect(model.doStreamCalls).toHaveLength(2);
		await h.tutor.close();
	});

	it("on an idle session handle() resolves once the answer (or the end) is on disk, not after the model turn", async () => {
		let release!: () => void;
		const gate = new Promise<void>((done) => {
			release = done;
		});
		const model = scriptedModel([
			{ calls: [{ name: "quiz", input: probeQuiz, id: "q" }] },
			{ gate, calls: [{ name: "ask", input: { question: "Why?" }, id: "a" }] },
		]);
		// A store whose writes wait while `hold` is set: handle() must wait for the write, not for the model.
		const inner = await createSessionStore(`sqlite://${dir.path}/durable.sqlite`);
		let hold: Promise<void> | undefined;
		const store: SessionStore = {
			...inner,
			set: async (r) => {
				await hold;
				return inner.set(r);
			},
		};
		const tutor = createTutor({ model, store, maxRetries: 0 });
		const answered: string[] = [];
		tutor.subscribe((e) => void (e.type === "answered" && answered.push(e.toolCallId)));
		const sessionId = newSession();
		await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await tutor.idle(sessionId);

		let unhold!: () => void;
		hold = new Promise<void>((done) => {
			unhold = done;
		});
		let resolved = false;
		const verdict = tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: 1, by: learner }).then((v) => {
			resolved = true;
			return v;
		});
		for (let i = 0; i < 20; i++) await new Promise((done) => setImmediate(done));
		expect(resolved).toBe(false); // the write is held: no verdict yet, no `answered` event either
		expect(answered).toEqual([]);
		hold = undefined;
		unhold();
		expect(await verdict).toEqual({ ok: true });
		const saved = await inner.get(sessionId);
		expect([...toolParts(saved!.messages)].find((p) => p.toolCallId === "q")).toMatchObject({
			state: "output-available",
			output: { answer: "3/4", correct: true },
		});
		expect(saved?.turnOpen).toBe(true); // the turn runs (held at the model) while handle() has returned
		// An event during the running turn is admitted at once (queued), without waiting for the model.
		expect(await tutor.handle(sessionId, { type: "message", text: "still there?", by: learner })).toEqual({
			ok: true,
		});
		release();
		await tutor.idle(sessionId);
		// An end resolves after the ended record is written.
		expect(await tutor.handle(sessionId, { type: "end", by: learner })).toEqual({ ok: true });
		expect((await inner.get(sessionId))?.ended).toMatchObject({ reason: "ended-by-user" });
		await tutor.close();
	});

	it("refuses strangers in solo mode, unknown calls, bad values and unknown sessions", async () => {
		const model = scriptedModel([{ calls: [{ name: "quiz", input: probeQuiz, id: "q" }] }]);
		const h = await harness(dir.path, model);
		const sessionId = newSession();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: 0, by: stranger })).toMatchObject({
			ok: false,
			code: "not-allowed",
		});
		expect(await h.tutor.handle(sessionId, { type: "message", text: "hi", by: stranger })).toMatchObject({
			code: "not-allowed",
		});
		expect(await h.tutor.handle(sessionId, { type: "end", by: stranger })).toMatchObject({ code: "not-allowed" });
		expect(
			await h.tutor.handle(sessionId, { type: "answer", toolCallId: "nope", value: 0, by: learner }),
		).toMatchObject({
			code: "not-pending",
		});
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: 7, by: learner })).toMatchObject({
			code: "invalid-answer",
		});
		expect(
			await h.tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: "5/4", by: learner }),
		).toMatchObject({ code: "invalid-answer" });
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: 0 } as never)).toMatchObject({
			code: "invalid-answer",
		});
		expect(await h.tutor.handle(sessionId, null as never)).toMatchObject({ code: "invalid-answer" });
		expect(await h.tutor.handle(sessionId, { type: "shout", by: learner } as never)).toMatchObject({
			code: "invalid-answer",
		});
		expect(await h.tutor.handle("terminal:nowhere", { type: "message", text: "hi", by: learner })).toMatchObject({
			code: "unknown-session",
		});
		expect(h.of("answered")).toHaveLength(0);
		expect(await h.tutor.startLesson({ sessionId, topic: "again", learner, mode: "solo" })).toMatchObject({
			ok: false,
			code: "exists",
		});
		expect(await h.tutor.startLesson({ sessionId: newSession(), topic: "  ", learner, mode: "solo" })).toMatchObject({
			ok: false,
			code: "invalid-topic",
		});
		// An admin may end it.
		expect(await h.tutor.handle(sessionId, { type: "end", by: stranger, privileged: true })).toEqual({ ok: true });
		await h.tutor.idle(sessionId);
		expect(h.of("ended")).toEqual([{ type: "ended", sessionId, reason: "ended-by-admin", by: stranger }]);
		expect(h.of("answered")[0]?.result).toMatchObject({ skipped: true });
		await h.tutor.close();
	});

	it("group mode lets anyone answer; a question typed mid-question keeps it open, runs the turn, then the answer counts", async () => {
		const model = scriptedModel([
			{ calls: [{ name: "ask", input: { question: "What do you want to learn?" }, id: "a1" }] },
			{ text: "Good question, Bob." },
			{ text: "Thanks.", calls: [{ name: "quiz", input: probeQuiz, id: "q2" }] },
		]);
		const h = await harness(dir.path, model);
		const sessionId = newSession();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "group" });
		await h.tutor.idle(sessionId);
		expect(await h.tutor.handle(sessionId, { type: "message", text: "why fractions?", by: stranger })).toEqual({
			ok: true,
		});
		await h.tutor.idle(sessionId);
		const second = model.doStreamCalls[1]!;
		expect(second.prompt.at(-1)).toMatchObject({
			role: "user",
			content: [{ type: "text", text: "Bob: why fractions?" }],
		});
		// The ask was not skipped: the model saw it pending, and it is offered again.
		expect(JSON.stringify(toolResultsSent(second)[0]?.output)).toContain('"status":"pending"');
		expect(h.of("answered")).toEqual([]);
		expect(h.of("ask").map((q) => [q.toolCallId, q.again === true])).toEqual([
			["a1", false],
			["a1", true],
		]);
		// Still answerable.
		expect(await h.tutor.handle(sessionId, { type: "reply", toolCallId: "a1", text: "x", by: learner })).toEqual({
			ok: true,
		});
		await h.tutor.idle(sessionId);
		expect(h.of("answered")[0]).toMatchObject({ toolCallId: "a1", kind: "ask", result: { answer: "x", by: learner } });
		// Anyone in the group answers a quiz: as a vote (engine/votes.ts; test/agent/engine/votes.test.ts).
		expect(await h.tutor.handle(sessionId, { type: "answer", toolCallId: "q2", value: "3/4", by: stranger })).toEqual({
			ok: true,
			vote: { answer: "3/4", letter: "B", changed: false },
		});
		await h.tutor.close();
	});

	it("events during a running turn queue and are delivered in order afterwards", async () => {
		let release!: () => void;
		const gate = new Promise<void>((done) => {
			release = done;
		});
		const model = scriptedModel([
			{ gate, calls: [{ name: "ask", input: { question: "Ready?" }, id: "a" }] },
			{ text: "Got both." },
		]);
		const h = await harness(dir.path, model);
		const sessionId = newSession();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		// The turn is held at the model; the message is admitted and queued, not dropped.
		expect(await h.tutor.handle(sessionId, { type: "message", text: "first", by: learner })).toEqual({ ok: true });
		expect(await h.tutor.handle(sessionId, { type: "message", text: "second", by: learner })).toEqual({ ok: true });
		release();
		await h.tutor.idle(sessionId);
		// The ask was posted during the turn, after the messages were admitted: it stays pending.
		const summary = await h.tutor.getSession(sessionId);
		expect(summary?.pending).toMatchObject([{ toolCallId: "a", kind: "ask" }]);
		expect(model.doStreamCalls).toHaveLength(1);
		// Once answered, the model sees the answer, then both messages, in order.
		await h.tutor.handle(sessionId, { type: "reply", toolCallId: "a", text: "yes", by: learner });
		await h.tutor.idle(sessionId);
		const prompt = model.doStreamCalls[1]!.prompt;
		expect(prompt.slice(-3).map((m) => m.role)).toEqual(["tool", "user", "user"]);
		const userTexts = prompt
			.filter((m) => m.role === "user")
			.flatMap((m) => m.content.map((c) => (c.type === "text" ? c.text : "")));
		expect(userTexts.slice(-2)).toEqual(["first", "second"]);
		expect(JSON.stringify(toolResultsSent(model.doStreamCalls[1]!))).toContain('"answer":"yes"');
		expect(h.of("text").at(-1)?.text).toBe("Got both.");
		await h.tutor.close();
	});

	it("a model failure becomes an error event; the next message re-runs the turn", async () => {
		const failure = new APICallError({
			message: "upstream down",
			url: "http://127.0.0.1/v1/chat/completions",
			requestBodyValues: {},
			statusCode: 503,
			isRetryable: true,
		});
		const model = scriptedModel([{ error: failure }, { text: "I'm back. First question coming." }]);
		const h = await harness(dir.path, model);
		const sessionId = newSession();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("error")).toEqual([expect.objectContaining({ sessionId, code: "model-unavailable", retryable: true })]);
		expect(h.of("error")[0]?.message).toMatch(/HTTP 503/);
		expect(h.of("typing").map((t) => t.active)).toEqual([true, false]);
		await h.tutor.handle(sessionId, { type: "message", text: "hello?", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("text").at(-1)?.text).toBe("I'm back. First question coming.");
		await h.tutor.close();
	});

	it("a session with a write still in flight is never dropped from memory (a reload would read stale data)", async () => {
		const inner = await createSessionStore(`sqlite://${dir.path}/evict.sqlite`);
		let hold: Promise<void> | undefined;
		let held = "";
		const store: SessionStore = {
			...inner,
			set: async (r) => {
				if (r.sessionId === held) await hold;
				return inner.set(r);
			},
		};
		const model = scriptedModel([{ text: "Hi A." }, { text: "Hi B." }, { text: "Hi C." }]);
		const tutor = createTutor({ model, store, maxRetries: 0, maxSessionsInMemory: 1 });
		const [a, b, c] = [newSession(), newSession(), newSession()];
		await tutor.startLesson({ sessionId: a, topic: "fractions", learner, mode: "solo" });
		await tutor.idle(a);
		let unhold!: () => void;
		hold = new Promise<void>((done) => {
			unhold = done;
		});
		held = a;
		const writing = tutor.handle(a, { type: "end", by: learner }); // its write is held
		await tutor.startLesson({ sessionId: b, topic: "fractions", learner, mode: "solo" });
		await tutor.idle(b);
		expect((await tutor.getSession(a))?.phase).toBe("ended");
		unhold();
		await writing;
		// Saved now: it may be dropped, and reloads with what was written.
		await tutor.startLesson({ sessionId: c, topic: "fractions", learner, mode: "solo" });
		await tutor.idle(c);
		expect((await tutor.getSession(a))?.phase).toBe("ended");
		await tutor.close();
	});

	it("a sink that throws is logged and the other sinks still get every event", async () => {
		const model = scriptedModel([{ text: "Hello." }]);
		const errors: unknown[] = [];
		const logger = { ...silentLogger, error: (fields: Record<string, unknown>) => errors.push(fields.err) };
		const h = await harness(dir.path, model, { logger });
		h.tutor.subscribe(() => {
			throw new Error("sink broke");
		});
		const sessionId = newSession();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.events.map((e) => e.type)).toEqual(["typing", "text", "typing"]);
		expect(errors).toHaveLength(3);
		expect(String(errors[0])).toMatch(/sink broke/);
		expect((await h.tutor.getSession(sessionId))?.phase).toBe("probe");
		await h.tutor.close();
	});

	it("keeps the model's reasoning in the transcript (replayed, never shown)", async () => {
		const model = scriptedModel([
			{ reasoning: "They seem new to this.", calls: [{ name: "quiz", input: probeQuiz, id: "q" }] },
			{ text: "Good." },
		]);
		const h = await harness(dir.path, model);
		const sessionId = newSession();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		await h.tutor.handle(sessionId, { type: "answer", toolCallId: "q", value: 0, by: learner });
		await h.tutor.idle(sessionId);
		const assistant = model.doStreamCalls[1]!.prompt.find((m) => m.role === "assistant");
		expect(assistant?.content[0]).toMatchObject({
			type: "reasoning",
			text: "They seem new to this.",
			providerOptions: { test: { itemId: "rs_1" } },
		});
		expect(h.events.some((e) => JSON.stringify(e).includes("They seem new"))).toBe(false);
		await h.tutor.close();
	});

	it("close() is bounded even when the model never answers", async () => {
		const model = scriptedModel([{ gate: new Promise<void>(() => {}), text: "never" }]);
		const h = await harness(dir.path, model, { closeTimeoutMs: 20 });
		const sessionId = newSession();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.close();
		// After close, events and new lessons are refused as a restart (adapters say "try again"), not as "not yours".
		expect(await h.tutor.handle(sessionId, { type: "message", text: "hi", by: learner })).toMatchObject({
			ok: false,
			code: "closing",
		});
		expect(
			await h.tutor.startLesson({ sessionId: newSession(), topic: "fractions", learner, mode: "solo" }),
		).toMatchObject({ ok: false, code: "closing" });
		expect(h.of("text")).toHaveLength(0);
	});

	it("the step limit bounds a turn", async () => {
		const broken = { name: "ask", raw: "{" };
		const model = scriptedModel(Array.from({ length: 5 }, () => ({ calls: [broken] })));
		const h = await harness(dir.path, model, { maxStepsPerTurn: 3 });
		const sessionId = newSession();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(model.doStreamCalls).toHaveLength(3);
		// Nothing was asked: the learner is told rather than left waiting.
		expect(h.of("error")).toEqual([expect.objectContaining({ code: "step-limit", retryable: true })]);
		expect(h.of("error")[0]?.message).toMatch(/Send a message to continue/);
		await h.tutor.close();
	});

	it("an empty model reply is asked again once, then reported; the next message runs the turn", async () => {
		const model = scriptedModel([{}, { text: "Hello!" }, {}, { reasoning: "hmm" }, { text: "Back." }]);
		const h = await harness(dir.path, model);
		const sessionId = newSession();
		await h.tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		await h.tutor.idle(sessionId);
		expect(h.of("text").map((t) => t.text)).toEqual(["Hello!"]);
		expect(h.of("error")).toHaveLength(0);
		await h.tutor.handle(sessionId, { type: "message", text: "and?", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("error")).toEqual([expect.objectContaining({ code: "empty-reply" })]);
		await h.tutor.handle(sessionId, { type: "message", text: "hello?", by: learner });
		await h.tutor.idle(sessionId);
		expect(h.of("text").at(-1)?.text).toBe("Back.");
		expect(model.doStreamCalls).toHaveLength(5);
		await h.tutor.close();
	});
});

describe("threads with no lesson", () => {
	it("are read from disk once, not on every message (the embedded store answers from its index); a lesson started there is found at once", async () => {
		const raw = new Keyv();
		let reads = 0;
		const get = raw.get.bind(raw);
		raw.get = ((key: string) => {
			reads++;
			return get(key);
		}) as typeof raw.get;
		const store = sessionStoreOnKeyv(raw);
		const tutor = createTutor({ model: scriptedModel([{ text: "Hello." }]), store, maxRetries: 0 });
		const sessionId = newSession();
		const message = { type: "message", text: "just chatting", by: learner } as const;
		for (let i = 0; i < 5; i++)
			expect(await tutor.handle(sessionId, message)).toMatchObject({ ok: false, code: "unknown-session" });
		expect(reads).toBe(1);
		expect(await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" })).toEqual({ ok: true });
		await tutor.idle(sessionId);
		expect(await tutor.handle(sessionId, message)).toEqual({ ok: true });
		await tutor.close();
	});
});
