/**
 * A delivery seen more than once does its work once, on each chat platform (the terminal reads each line once:
 * nothing redelivers it). Two bot processes share one state store: Discord's gateway sends every dispatch to
 * both, and a replayed INTERACTION_CREATE arrives again; Slack's retries come to either process behind the load
 * balancer (the same signed bytes, its retry header on a command's and an event's). One lesson starts, one click
 * is recorded, one typed message reaches the tutor, each copy is answered (Slack: 200) and no process answers an
 * interaction the other answered (Discord: no refused second callback).
 */

import { describe, expect, it } from "vitest";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { CHATS, quizIn, switchable, until, useChat } from "./chat.ts";

// Chats only: the terminal reads each line once; nothing redelivers it.
describe.each(CHATS)("a delivery seen twice on %s", { timeout: 60_000 }, (name) => {
	const tutor = new FakeTutor();
	const handle = useChat(name, { model: switchable().model, tutor, state: createMemoryStateStore, twin: true });
	const drops = () => handle.chat.logger.entries.filter((e) => e.message?.includes("duplicate delivery")).length;
	const settled = (check: () => boolean, what: string) => until(async () => check(), what);

	it("starts one lesson when /lesson start reaches both processes and is replayed", async () => {
		const { chat } = handle;
		const first = await chat.send("learner", { command: "start fractions" }, 3);
		expect(first).toEqual(name === "discord" ? [5] : [200, 200, 200]);
		await settled(() => drops() >= 2, "the copies dropped");
		await settled(() => tutor.started.length >= 1, "the lesson");
		expect(tutor.started.map((s) => s.topic)).toEqual(["fractions"]);
		expect(chat.threads()).toBe(1);
		expect(chat.problems()).toEqual([]);
	});

	it("records one click and delivers one typed message", async () => {
		const { chat } = handle;
		const sessionId = tutor.started[0]?.sessionId ?? "";
		await quizIn(tutor, sessionId, "q1", ["0.5", "2"]);
		const card = await chat.card(sessionId, "q1");
		const dropped = drops();
		const handled = tutor.handled.length;
		expect(await chat.send("learner", { click: "lh:pick:q1:0", card }, 2)).toEqual(
			name === "discord" ? [6] : [200, 200],
		);
		expect(await chat.send("learner", { say: "is it a half?", sessionId }, 2)).toEqual(
			name === "discord" ? [] : [200, 200],
		);
		await settled(() => drops() >= dropped + 2, "the second copies dropped");
		await settled(() => tutor.handled.length >= handled + 2, "the click and the message");
		expect(tutor.handled.slice(handled).map((h) => h.event)).toEqual([
			expect.objectContaining({ type: "answer", toolCallId: "q1", value: 0 }),
			expect.objectContaining({ type: "message", text: "is it a half?" }),
		]);
		expect(chat.problems()).toEqual([]);
	});
});
