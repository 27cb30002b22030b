/**
 * Acknowledged means stored: a message typed while a turn runs is in the session record before
 * handle() says it was received (the embedded store's inbox, engine/queued.ts), so a kill right
 * after the acknowledgement loses nothing: the next start admits it again, and the tutor reads and
 * answers it. A message the store cannot save while a turn runs is refused, never kept in memory only.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { afterAll, describe, expect, it } from "vitest";
import { StoreError } from "../../src/agent/store/errors.ts";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import type { SessionStore } from "../../src/agent/store/types.ts";
import { createTutor } from "../../src/agent/tutor.ts";
import type { TutorEvent } from "../../src/core/contracts/events.ts";
import { learner, probeQuiz, scriptedModel, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());
const SCRIPT = fileURLToPath(new URL("../fixtures/crash-after-ack.ts", import.meta.url));

/** Run the child; resolves with the signal (or exit code) that ended it (bounded: 60 s, then SIGKILL from here). */
function runChild(file: string, sessionId: string, messages: string[]): Promise<NodeJS.Signals | number | null> {
	return new Promise((done) => {
		const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, file, sessionId, ...messages], {
			stdio: "ignore",
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
		child.on("exit", (code, signal) => {
			clearTimeout(timer);
			done(signal ?? code);
		});
	});
}

/** The learner texts a model request carried (the user messages, as the engine wrote them). */
function userTexts(options: LanguageModelV3CallOptions): string {
	return JSON.stringify(options.prompt.filter((m) => m.role === "user"));
}

describe("acknowledged, then kept", () => {
	it("messages acknowledged during a turn survive a kill -9: after the restart they are in the transcript and answered", async () => {
		const file = `${dir.path}/kill.sqlite`;
		const sessionId = "terminal:ack-kill";
		expect(await runChild(file, sessionId, ["is it 1/2?", "or maybe 2/4?"])).toBe("SIGKILL");

		const store = await createSessionStore(`sqlite://${file}`);
		const model = scriptedModel([{ text: "Both are the same amount: 1/2 = 2/4." }]);
		const tutor = createTutor({ model, store, maxRetries: 0 });
		await tutor.resume();
		const events: TutorEvent[] = [];
		tutor.subscribe((e) => void events.push(e));
		await tutor.idle(sessionId);

		// Read: the one turn after the restart sees both messages, in the order they were typed.
		expect(model.doStreamCalls).toHaveLength(1);
		const sent = userTexts(model.doStreamCalls[0] as LanguageModelV3CallOptions);
		expect(sent).toContain("is it 1/2?");
		expect(sent.indexOf("is it 1/2?")).toBeLessThan(sent.indexOf("or maybe 2/4?"));
		// Answered, and kept: the transcript holds both, the queue on disk is empty.
		expect(events.filter((e) => e.type === "text").map((e) => e.type === "text" && e.text)).toEqual([
			"Both are the same amount: 1/2 = 2/4.",
		]);
		const saved = await store.get(sessionId);
		expect(saved?.queued).toBeUndefined();
		const learnerTexts = JSON.stringify(saved?.messages.filter((m) => m.metadata?.kind === "learner"));
		expect(learnerTexts).toContain("is it 1/2?");
		expect(learnerTexts).toContain("or maybe 2/4?");
		await tutor.close();
	});

	it("a tutor dropped without close(): a message acknowledged during its turn is answered by the next one on the same file", async () => {
		const file = `${dir.path}/drop.sqlite`;
		const sessionId = "terminal:ack-drop";
		// The first tutor's turn never ends; it is abandoned as a killed process would be.
		const first = createTutor({
			model: scriptedModel([{ gate: new Promise<void>(() => {}), text: "never" }]),
			store: await createSessionStore(`sqlite://${file}`),
			maxRetries: 0,
		});
		first.subscribe(() => {});
		await first.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		expect(await first.handle(sessionId, { type: "message", text: "what is a numerator?", by: learner })).toEqual({
			ok: true,
		});

		// No resume() here: the next event on the lesson admits the left-over one first.
		const model = scriptedModel([{ text: "The top number.", calls: [{ name: "quiz", input: probeQuiz, id: "q1" }] }]);
		const second = createTutor({ model, store: await createSessionStore(`sqlite://${file}`), maxRetries: 0 });
		const events: TutorEvent[] = [];
		second.subscribe((e) => void events.push(e));
		expect(await second.handle(sessionId, { type: "message", text: "hello?", by: learner })).toEqual({ ok: true });
		await second.idle(sessionId);
		const sent = userTexts(model.doStreamCalls[0] as LanguageModelV3CallOptions);
		expect(sent.indexOf("what is a numerator?")).toBeGreaterThan(-1);
		expect(sent.indexOf("what is a numerator?")).toBeLessThan(sent.indexOf("hello?"));
		expect(events.some((e) => e.type === "quiz")).toBe(true);
		await second.close();
	});

	it("a message the store cannot save while a turn runs is refused (send it again), not acknowledged and lost", async () => {
		const inner = await createSessionStore(`sqlite://${dir.path}/outage.sqlite`);
		let down = false;
		const store: SessionStore = {
			...inner,
			async set(record, options) {
				if (down) throw new StoreError("store-unavailable", "writing failed: connect ECONNREFUSED 127.0.0.1:6399");
				return inner.set(record, options);
			},
		};
		let release!: () => void;
		const gate = new Promise<void>((done) => (release = done));
		const model = scriptedModel([{ gate, text: "Let's start." }, { text: "Got it." }]);
		const tutor = createTutor({ model, store, maxRetries: 0, saveRetryMs: 200 });
		tutor.subscribe(() => {});
		const sessionId = "terminal:ack-outage";
		await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
		// The store fails after the turn started (no save has failed yet: the tutor still thinks it healthy).
		down = true;
		const refused = await tutor.handle(sessionId, { type: "message", text: "lost?", by: learner });
		expect(refused).toMatchObject({ ok: false, code: "store-unavailable" });
		if (!refused.ok) expect(refused.message).toMatch(/send it again/i);
		down = false;
		release();
		await tutor.idle(sessionId);
		// Refused means not recorded: the transcript never gets it, and no turn answers it.
		const saved = await inner.get(sessionId);
		expect(JSON.stringify(saved?.messages)).not.toContain("lost?");
		expect(saved?.queued).toBeUndefined();
		expect(model.doStreamCalls).toHaveLength(1);
		await tutor.close();
	});
});
