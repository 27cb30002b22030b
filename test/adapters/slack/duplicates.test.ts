/**
 * Slack's redeliveries do the work once: a signed `/lesson start` replayed three times
 * (the same body, signature and trigger_id; Slack's retry header on the replays), an Events API retry (the same event_id) and a replayed
 * click, each acknowledged with 200 and dropped. Two adapters on one state store stand
 * for two bot processes behind a load balancer: the replay reaching the other one is
 * dropped too.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { recordingLogger } from "../discord/helpers.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { findControl, type Running, startAdapter } from "./harness.ts";

const ADA = { user: "U1", name: "ada", channel: "C1" };
const FORM = "application/x-www-form-urlencoded";

/** Poll `predicate` every 10 ms, at most `ms` (bounded). */
async function until<T>(predicate: () => T | undefined | false, label: string, ms = 10_000): Promise<T> {
	const deadline = Date.now() + ms;
	for (;;) {
		const v = predicate();
		if (v) return v;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

describe("Slack duplicates are acknowledged and dropped", { timeout: 30_000 }, () => {
	let fake: FakeSlack;
	let one: Running;
	let two: Running;
	const tutor = new FakeTutor();
	const state = createMemoryStateStore();
	const logger = recordingLogger();
	const drops = () => logger.entries.filter((e) => e.message?.includes("duplicate delivery")).length;

	beforeAll(async () => {
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		// Two bot processes on one shared store.
		one = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined), state, logger });
		two = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined), state, logger });
	});
	afterAll(async () => {
		await one?.adapter.stop();
		await two?.adapter.stop();
		await fake?.close();
	});

	it("starts one lesson when a signed /lesson start is replayed three times", async () => {
		const body = one.sender.commandBody("/lesson", "start fractions", ADA);
		const stamp = Math.floor(Date.now() / 1000);
		const first = await one.sender.raw(body, FORM, { timestampSec: stamp });
		// The replays: the same signed bytes, once to each process, as Slack's retries would come.
		const again = await two.sender.raw(body, FORM, { timestampSec: stamp, headers: { "x-slack-retry-num": "1" } });
		const third = await one.sender.raw(body, FORM, { timestampSec: stamp, headers: { "x-slack-retry-num": "2" } });
		expect([first.status, again.status, third.status]).toEqual([200, 200, 200]);
		await until(() => drops() >= 2, "both replays dropped");
		await until(() => tutor.started.length >= 1, "the lesson");
		expect(tutor.started.map((s) => s.topic)).toEqual(["fractions"]);
		expect(fake.callsTo("chat.postMessage").filter((c) => String(c.params.text).includes("fractions"))).toHaveLength(1);
	});

	it("delivers an Events API message once when Slack retries it", async () => {
		const sessionId = tutor.started[0]?.sessionId ?? "";
		const threadTs = sessionId.split(":")[3];
		const handled = tutor.handled.length;
		const dropped = drops();
		const payload = one.sender.eventPayload({
			type: "message",
			channel: ADA.channel,
			user: ADA.user,
			text: "is it a half?",
			ts: one.sender.nextTs(),
			thread_ts: threadTs,
		});
		const json = JSON.stringify(payload);
		expect((await one.sender.raw(json, "application/json")).status).toBe(200);
		expect((await two.sender.raw(json, "application/json", { headers: { "x-slack-retry-num": "1" } })).status).toBe(
			200,
		);
		await until(() => drops() > dropped, "the retry dropped");
		await until(() => tutor.handled.length > handled, "the message delivered");
		expect(tutor.handled.slice(handled).map((h) => h.event)).toEqual([
			expect.objectContaining({ type: "message", text: "is it a half?" }),
		]);
	});

	it("records a replayed click once", async () => {
		const sessionId = tutor.started[0]?.sessionId ?? "";
		await tutor.emit({
			type: "quiz",
			sessionId,
			toolCallId: "q1",
			input: { question: "Half of 1?", options: ["0.5", "2"], correctAnswer: "0.5" },
		});
		const control = await until(() => findControl(fake, "lh:pick:"), "the quiz card");
		const handled = tutor.handled.length;
		const dropped = drops();
		const payload = one.sender.actionPayload(ADA, control.message.ts, { action_id: control.actionId });
		expect((await one.sender.interactive(payload)).status).toBe(200);
		expect((await two.sender.interactive(payload)).status).toBe(200);
		await until(() => drops() > dropped, "the replayed click dropped");
		await until(() => tutor.handled.length > handled, "the click recorded");
		expect(tutor.handled.slice(handled)).toHaveLength(1);
	});
});
