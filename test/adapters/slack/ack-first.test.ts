/**
 * Slack's deadline holds whatever the tutor or the store does, and a click is
 * answered only once it is recorded. With both held, every command, click, End
 * button, modal submission and event still gets its HTTP 200 from Bolt (at the
 * request's deadline), and the "Answer" click's views.open goes out (its
 * trigger_id lives 3 s); the work behind the gates completes once they open.
 * With the tutor held briefly, a click's 200 waits for the tutor's verdict:
 * a process killed before recording it never said it was accepted.
 */

import Keyv from "keyv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stateStoreOnKeyv } from "../../../src/agent/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { HeldStore } from "../lesson/held-store.ts";
import { type Running, startAdapter } from "./harness.ts";

const ADA = { user: "U1", name: "ada", channel: "C1" };
const ROOT = { user: "UADMIN", name: "root", channel: "C1" };

describe("Slack answers in time, and a click only once recorded", { timeout: 30_000 }, () => {
	let fake: FakeSlack;
	let running: Running;
	const tutor = new FakeTutor();
	const store = new HeldStore();
	let sessionId = "";
	let parentTs = "";

	beforeAll(async () => {
		fake = await startFakeSlack({
			users: [
				{ id: "U1", name: "ada" },
				{ id: "UADMIN", name: "root", is_admin: true },
			],
		});
		running = await startAdapter(fake, {
			tutor,
			renderer: stubRenderer(undefined),
			state: stateStoreOnKeyv(new Keyv({ store, namespace: "slack" })),
		});
		await running.sender.command("/lesson", "start fractions", ADA);
		sessionId = (await fake.waitFor(() => tutor.started[0], "the lesson")).sessionId;
		parentTs = sessionId.split(":")[3]!;
		await tutor.emit({
			type: "quiz",
			sessionId,
			toolCallId: "q1",
			input: { question: "Pick?", options: ["a", "b"], correctAnswer: "a" },
		});
		await tutor.emit({ type: "ask", sessionId, toolCallId: "a1", input: { question: "Why?" } });
		await fake.waitFor(() => fake.callsTo("chat.postMessage").length >= 3, "the two cards");
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await fake?.close();
	});

	it("answers every request with 200 while the tutor and the store are held", async () => {
		const card = fake.callsTo("chat.postMessage").find((c) => c.params.thread_ts === parentTs);
		const cardTs = [...fake.messages.values()].find((m) => m.threadTs === parentTs)?.ts ?? "";
		expect(card).toBeDefined();
		const handledBefore = tutor.handled.length;
		const opens = fake.callsTo("views.open").length;
		const releaseTutor = tutor.hold();
		const releaseStore = store.hold();
		try {
			const view = { callback_id: "lh:modal:a1", private_metadata: JSON.stringify({ s: sessionId, t: "a1" }) };
			const thread = { channel: "C1", thread_ts: parentTs };
			const responses = await Promise.all([
				running.sender.command("/lesson", "start decimals", ADA),
				running.sender.command("/lesson", "status", ADA),
				running.sender.command("/lesson", "config limit 2", ROOT),
				running.sender.action(ADA, cardTs, { action_id: "lh:pick:q1:0" }),
				running.sender.action(ADA, cardTs, { action_id: "lh:open:a1" }),
				running.sender.viewSubmission(ADA, view, {
					"lh:text:a1": { "lh:text:a1": { type: "plain_text_input", value: "because" } },
				}),
				running.sender.action(ADA, parentTs, { action_id: "lh-slack:end" }),
				running.sender.event({ type: "message", user: "U1", text: "hello", ts: running.sender.nextTs(), ...thread }),
				running.sender.event({
					type: "app_mention",
					user: "U1",
					text: "<@U0BOT> tides",
					ts: running.sender.nextTs(),
					channel: "C1",
				}),
			]);
			expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
			// The answer box opened from memory while everything else still waits.
			await fake.waitFor(() => fake.callsTo("views.open")[opens], "views.open under the holds");
			expect(tutor.handled.length).toBe(handledBefore);
			expect(store.waiting).toBeGreaterThan(0);
		} finally {
			releaseTutor();
			releaseStore();
		}
		await fake.waitFor(
			() => tutor.handled.slice(handledBefore).some((h) => h.event.type === "end"),
			"the held End to reach the tutor",
		);
		const types = () => tutor.handled.slice(handledBefore).map((h) => h.event.type);
		await fake.waitFor(() => types().length >= 4, "the held events");
		expect(types().sort()).toEqual(["answer", "end", "message", "reply"]);
		await fake.waitFor(
			() => fake.callsTo("response_url").some((c) => /2 per member per day/.test(String(c.params.text))),
			"the config reply",
		);
	});

	it("answers a click only after the tutor has its verdict", async () => {
		const cardTs = [...fake.messages.values()].find((m) => m.threadTs === parentTs)?.ts ?? "";
		const handledBefore = tutor.handled.length;
		const callsBefore = tutor.calls;
		const release = tutor.hold();
		let answered = false;
		const response = running.sender.action(ADA, cardTs, { action_id: "lh:pick:q1:1" }).finally(() => {
			answered = true;
		});
		try {
			// The click is at the tutor, held there (well inside the request's 2 s deadline): Slack has no answer yet.
			await fake.waitFor(() => tutor.calls > callsBefore, "the click to reach the tutor");
			expect(answered).toBe(false);
			expect(tutor.handled.length).toBe(handledBefore);
		} finally {
			release();
		}
		expect((await response).status).toBe(200);
		expect(tutor.handled.slice(handledBefore).map((h) => h.event.type)).toEqual(["answer"]);
	});
});
