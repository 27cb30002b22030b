/**
 * A kill between saving a question and posting it strands nobody: the next start offers the
 * question again (a `replay` event the platforms post unless they already did), it stays
 * answerable, and once offered it is not offered again by the start after.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import { createTutor } from "../../src/agent/tutor.ts";
import type { TutorEvent } from "../../src/core/contracts/events.ts";
import { CHILD_START_MS } from "../fixtures/child-process.ts";
import { learner, scriptedModel, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());
const SCRIPT = fileURLToPath(new URL("../fixtures/crash-before-post.ts", import.meta.url));

/** Run the crashing child; resolves with the signal that ended it (bounded: CHILD_START_MS, then SIGKILL from here). */
function runCrashingChild(file: string, sessionId: string): Promise<NodeJS.Signals | number | null> {
	return new Promise((done) => {
		const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, file, sessionId], { stdio: "ignore" });
		const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_START_MS);
		child.on("exit", (code, signal) => {
			clearTimeout(timer);
			done(signal ?? code);
		});
	});
}

it("a question saved but killed before it was posted is posted after the restart, once", {
	timeout: 2 * CHILD_START_MS,
}, async () => {
	const file = `${dir.path}/crash.sqlite`;
	const sessionId = "terminal:crash-repost";
	expect(await runCrashingChild(file, sessionId)).toBe("SIGKILL");

	const store = await createSessionStore(`sqlite://${file}`);
	const onDisk = await store.get(sessionId);
	expect(onDisk?.unpublished).toEqual(["q1"]); // saved, never handed over

	const model = scriptedModel([{ text: "Right, half of it." }]);
	const tutor = createTutor({ model, store, maxRetries: 0 });
	await tutor.resume();
	const events: TutorEvent[] = [];
	tutor.subscribe((e) => void events.push(e));
	await tutor.idle(sessionId);
	const replayed = events.filter((e) => e.type === "quiz");
	expect(replayed).toEqual([
		expect.objectContaining({
			type: "quiz",
			toolCallId: "q1",
			replay: true,
			input: expect.objectContaining({ question: expect.any(String) }),
		}),
	]);
	expect(model.doStreamCalls).toHaveLength(0); // offered again, not asked again
	expect(await tutor.handle(sessionId, { type: "answer", toolCallId: "q1", value: 1, by: learner })).toEqual({
		ok: true,
	});
	await tutor.idle(sessionId);
	expect(events.filter((e) => e.type === "answered").map((e) => e.type === "answered" && e.toolCallId)).toEqual(["q1"]);
	await tutor.close();

	// The start after: nothing left to offer.
	const again = await createSessionStore(`sqlite://${file}`);
	expect((await again.get(sessionId))?.unpublished).toBeUndefined();
	const next = createTutor({ model: scriptedModel([]), store: again, maxRetries: 0 });
	await next.resume();
	const later: TutorEvent[] = [];
	next.subscribe((e) => void later.push(e));
	await next.idle();
	expect(later.filter((e) => e.type === "quiz")).toEqual([]);
	await next.close();
});

it("a clean shutdown right after a question was posted does not offer it again", async () => {
	const file = `${dir.path}/clean.sqlite`;
	const sessionId = "terminal:clean-posted";
	const first = createTutor({
		model: scriptedModel([{ calls: [{ name: "ask", input: { question: "Why?" }, id: "a1" }] }]),
		store: await createSessionStore(`sqlite://${file}`),
		maxRetries: 0,
	});
	const posted: TutorEvent[] = [];
	first.subscribe((e) => void posted.push(e));
	await first.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
	await first.idle(sessionId);
	expect(posted.filter((e) => e.type === "ask")).toHaveLength(1);
	await first.close();

	const second = createTutor({
		model: scriptedModel([]),
		store: await createSessionStore(`sqlite://${file}`),
		maxRetries: 0,
	});
	await second.resume();
	const events: TutorEvent[] = [];
	second.subscribe((e) => void events.push(e));
	await second.idle();
	expect(events.filter((e) => e.type === "ask")).toEqual([]);
	expect((await second.getSession(sessionId))?.pending).toMatchObject([{ toolCallId: "a1", kind: "ask" }]);
	await second.close();
});
