/**
 * A message typed in a lesson thread that the tutor could not save (the store is down, or the
 * tutor is restarting) gets an ephemeral notice in the lesson's language: not saved, send it
 * again. Slack's 200 for the event comes after that verdict; other refusals stay quiet.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { t } from "../../../src/i18n/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { type Running, startAdapter } from "./harness.ts";

const ADA = { user: "U1", name: "ada", channel: "C1" };

describe("Slack: a typed message that was not saved", { timeout: 30_000 }, () => {
	let fake: FakeSlack;
	let running: Running;
	const tutor = new FakeTutor();
	let threadTs = "";

	beforeAll(async () => {
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		running = await startAdapter(fake, {
			tutor,
			renderer: stubRenderer(undefined),
			state: createMemoryStateStore(),
		});
		await running.sender.command("/lesson", "start language:es fracciones", ADA);
		const sessionId = (await fake.waitFor(() => tutor.started[0], "the lesson")).sessionId;
		threadTs = sessionId.split(":")[3] ?? "";
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await fake?.close();
	});

	const say = (text: string) =>
		running.sender.event({
			type: "message",
			user: ADA.user,
			text,
			ts: running.sender.nextTs(),
			channel: ADA.channel,
			thread_ts: threadTs,
		});

	it("is answered with an ephemeral 'send it again' in the lesson's language", async () => {
		tutor.verdict = { ok: false, code: "store-unavailable", message: "The lesson could not be saved." };
		const before = fake.callsTo("chat.postEphemeral").length;
		expect((await say("¿es 1/2?")).status).toBe(200);
		const notice = await fake.waitFor(() => fake.callsTo("chat.postEphemeral")[before], "the ephemeral notice");
		expect(notice.params).toMatchObject({
			user: ADA.user,
			channel: ADA.channel,
			thread_ts: threadTs,
			text: t("es", "engine.messageNotSaved"),
		});
		expect(tutor.handled.at(-1)?.event).toMatchObject({ type: "message", text: "¿es 1/2?" });
	});

	it("a tutor that is restarting: the same, in its words", async () => {
		tutor.verdict = { ok: false, code: "closing", message: "The tutor is restarting." };
		const before = fake.callsTo("chat.postEphemeral").length;
		expect((await say("¿sigues ahí?")).status).toBe(200);
		const notice = await fake.waitFor(() => fake.callsTo("chat.postEphemeral")[before], "the notice");
		expect(notice.params.text).toBe(t("es", "refuse.closing"));
	});

	it("other refusals stay quiet (people chat in threads)", async () => {
		tutor.verdict = { ok: false, code: "ended", message: "The lesson has ended." };
		const before = fake.callsTo("chat.postEphemeral").length;
		const handled = tutor.handled.length;
		// The event's 200 comes once the tutor's verdict is in (and any notice sent).
		expect((await say("gracias")).status).toBe(200);
		expect(tutor.handled.length).toBe(handled + 1);
		expect(fake.callsTo("chat.postEphemeral").length).toBe(before);
		tutor.verdict = { ok: true };
	});
});
