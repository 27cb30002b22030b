/**
 * Answering in time, on each chat platform (the terminal has no deadline to answer by: it reads a line when the
 * tutor asks for one). With the tutor and the state store both held (every tutor call and every store read or
 * write waits on a gate), every kind of delivery still gets its first response from the adapter: on Discord a
 * deferred reply for commands, an immediate reply for help, deferred updates for picks, selects and form
 * submits, the form itself for "Answer" (a message gets no response); on Slack an HTTP 200 for each, at the
 * request's deadline at the latest; and the answer form opens from memory. Only after the gates open does the
 * work behind them complete, each command's reply included. A pick held at the tutor is acknowledged only once
 * the tutor has its verdict: a process killed before recording it never said it was accepted.
 */

import Keyv from "keyv";
import { beforeAll, describe, expect, it } from "vitest";
import { stateStoreOnKeyv } from "../../../src/agent/index.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { HeldStore } from "../lesson/held-store.ts";
import { type Card, CHATS, quizIn, switchable, useChat } from "./chat.ts";

/** Each delivery's first response, as the test sends them (Discord's interaction response types; Slack's status). */
const FIRST = {
	// the form, start, status, config, help, pick, select, submit, end, a message (none)
	discord: [[9], [5], [5], [5], [4], [6], [6], [6], [5], []],
	// the same, and a mention (Slack starts a lesson from one)
	slack: Array.from({ length: 11 }, () => [200]),
};

// Chats only: the terminal has no deadline to answer by (it reads a line when the tutor asks for one).
describe.each(CHATS)("answering in time on %s", { timeout: 60_000 }, (name) => {
	const tutor = new FakeTutor();
	const store = new HeldStore();
	const handle = useChat(name, {
		model: switchable().model,
		tutor,
		state: () => stateStoreOnKeyv(new Keyv({ store, namespace: name })),
	});
	let sessionId = "";
	const cards: Record<"pick" | "six" | "ask", Card> = {} as never;

	beforeAll(async () => {
		const { chat } = handle;
		({ sessionId } = await chat.start("learner", "held"));
		await quizIn(tutor, sessionId, "q1", ["a", "b"]);
		await quizIn(tutor, sessionId, "q2", ["1", "2", "3", "4", "5", "6"]);
		await tutor.emit({ type: "ask", sessionId, toolCallId: "a1", input: { question: "Why do you think so?" } });
		cards.pick = await chat.card(sessionId, "q1");
		cards.six = await chat.card(sessionId, "q2");
		cards.ask = await chat.card(sessionId, "a1");
		await chat.flush();
	});

	it("answers every kind of delivery first while the tutor and the store are both held", async () => {
		const { chat } = handle;
		const { pick, six, ask } = cards;
		const select = six.controls.find((c) => c.startsWith("lh:select:q2") || c === "lh:pick:q2:5") ?? "";
		const handledBefore = tutor.handled.length;
		const releaseTutor = tutor.hold();
		const releaseStore = store.hold();
		try {
			const forms = chat.forms();
			const opened = await chat.send("learner", { click: "lh:open:a1", card: ask });
			await chat.waitFor(() => chat.forms() > forms, "the answer form, under the holds");
			const firsts = await Promise.all([
				chat.send("other", { command: "start decimals" }),
				chat.send("learner", { command: "status", sessionId }),
				chat.send("admin", { command: "config limit 2" }),
				chat.send("learner", { command: "help" }),
				chat.send("learner", { click: "lh:pick:q1:0", card: pick }),
				chat.send("learner", { click: select, card: six }),
				chat.send("learner", { submit: "lh:open:a1", card: ask, text: "because" }),
				chat.send("learner", { end: sessionId }),
				chat.send("learner", { say: "hello", sessionId }),
				// Slack only: Discord starts no lesson from a mention.
				...(name === "slack" ? [chat.send("learner", { mention: "tides" })] : []),
			]);
			expect([opened, ...firsts]).toEqual(FIRST[name]);
			// Nothing behind the gates has finished: the tutor recorded nothing and store work is waiting.
			expect(tutor.handled.length).toBe(handledBefore);
			expect(store.waiting).toBeGreaterThan(0);
		} finally {
			releaseTutor();
			releaseStore();
		}
		// Once the gates open, the work completes and each command gets its real reply.
		const types = () =>
			tutor.handled
				.slice(handledBefore)
				.map((h) => h.event.type)
				.sort();
		await chat.waitFor(() => types().length >= 5, "the held deliveries to reach the tutor");
		expect(types()).toEqual(["answer", "answer", "end", "message", "reply"]);
		await chat.waitFor(() => tutor.started.find((s) => s.topic === "decimals"), "the held start's lesson");
		await chat.waitFor(() => chat.replies().some((r) => /2 per member per day/.test(r)), "the config reply");
		expect(chat.problems()).toEqual([]);
	});

	it("acknowledges a pick only after the tutor has its verdict", async () => {
		const { chat } = handle;
		const handledBefore = tutor.handled.length;
		const callsBefore = tutor.calls;
		const release = tutor.hold();
		let acknowledged = false;
		const first = chat.send("learner", { click: "lh:pick:q1:1", card: cards.pick }).finally(() => {
			acknowledged = true;
		});
		try {
			// At the tutor, held there (well inside the platform's deadline): no response yet.
			await chat.waitFor(() => tutor.calls > callsBefore, "the pick to reach the tutor");
			expect(acknowledged).toBe(false);
			expect(tutor.handled.length).toBe(handledBefore);
		} finally {
			release();
		}
		expect(await first).toEqual(name === "discord" ? [6] : [200]);
		expect(tutor.handled.slice(handledBefore).map((h) => h.event.type)).toEqual(["answer"]);
	});
});
