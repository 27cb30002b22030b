/**
 * A message typed in a lesson thread that the tutor could not save (the store is down, or the
 * tutor is restarting) is answered with a short reply in the lesson's language saying so and
 * asking to send it again; other refusals (the lesson is over) stay quiet.
 */

import Keyv from "keyv";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { DiscordAdapter } from "../../../src/adapters/discord/index.ts";
import { stateStoreOnKeyv } from "../../../src/agent/index.ts";
import { t } from "../../../src/i18n/index.ts";
import type { FakeDiscord } from "../../../testkit/fakes/discord.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { startOnFake } from "./helpers.ts";

let fake: FakeDiscord;
let adapter: DiscordAdapter;
const tutor = new FakeTutor();
let threadId = "";

beforeAll(async () => {
	({ fake, adapter } = await startOnFake(tutor, stateStoreOnKeyv(new Keyv({ namespace: "discord" }))));
	fake.slash({
		user: fake.users.learner,
		channelId: fake.ids.general,
		subcommand: "start",
		options: { topic: "Brüche", language: "de" },
	});
	threadId = (await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread")).id;
	await fake.waitFor(() => tutor.started[0], "the tutor's startLesson");
});

afterAll(async () => {
	await adapter?.stop();
	await fake?.close();
});

it("a typed message the store refused gets a reply in the lesson's language: not saved, send it again", async () => {
	const before = fake.channelMessages(threadId).length;
	tutor.verdict = { ok: false, code: "store-unavailable", message: "The lesson could not be saved." };
	fake.say({ user: fake.users.learner, channelId: threadId, content: "ist es 1/2?" });
	const notSaved = t("de", "engine.messageNotSaved");
	const reply = await fake.waitFor(
		() => fake.channelMessages(threadId).find((m) => m.text === notSaved),
		"the not-saved reply",
	);
	expect(tutor.handled.at(-1)?.event).toMatchObject({ type: "message", text: "ist es 1/2?" });
	// A reply to the message itself, pinging nobody.
	expect(reply.author?.bot).toBe(true);
	expect(fake.channelMessages(threadId).length).toBe(before + 2); // the message and the reply

	// Other refusals (here: the lesson is over) stay quiet, as before: people chat in threads.
	tutor.verdict = { ok: false, code: "ended", message: "The lesson has ended." };
	const handled = tutor.handled.length;
	fake.say({ user: fake.users.learner, channelId: threadId, content: "danke" });
	// The fake's waitFor looks again on its own changes only: poll the tutor (bounded: 500 tries, 10 ms apart).
	for (let i = 0; i < 500 && tutor.handled.length === handled; i++) await new Promise((done) => setTimeout(done, 10));
	expect(tutor.handled.at(-1)?.event).toMatchObject({ type: "message", text: "danke" });
	await adapter.flush(5_000);
	expect(fake.channelMessages(threadId).length).toBe(before + 3);
	tutor.verdict = { ok: true };
});
