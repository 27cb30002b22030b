/**
 * A Discord interaction or message seen twice does its work once. Two adapters log in with
 * one token on one state store (two bot processes: the fake gateway sends every dispatch to
 * both, as Discord does), so each interaction and message arrives twice; a replayed
 * INTERACTION_CREATE arrives a third time. One lesson starts, one click is recorded, one
 * typed message reaches the tutor, and no process answers an interaction the other answered
 * (no refused second callback).
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscordAdapter, type DiscordAdapter } from "../../../src/adapters/discord/index.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { type FakeDiscord, startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { customIds, recordingLogger } from "./helpers.ts";

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

describe("Discord duplicates are dropped", { timeout: 30_000 }, () => {
	let fake: FakeDiscord;
	const adapters: DiscordAdapter[] = [];
	const tutor = new FakeTutor();
	const state = createMemoryStateStore();
	const logger = recordingLogger();
	const drops = () => logger.entries.filter((e) => e.message?.includes("duplicate delivery")).length;
	const dispatched: Array<{ t: string; d: unknown }> = [];
	let threadId = "";

	beforeAll(async () => {
		fake = await startFakeDiscord();
		const dispatch = fake.dispatch.bind(fake);
		fake.dispatch = (t, d) => {
			dispatched.push({ t, d });
			dispatch(t, d);
		};
		for (const register of [true, false]) {
			const adapter = createDiscordAdapter({
				tutor,
				renderer: stubRenderer(undefined),
				logger,
				state,
				config: {
					token: fake.token,
					apiUrl: fake.apiUrl,
					guildId: fake.guild.id,
					readyTimeoutMs: 10_000,
					registerCommands: register,
				},
			});
			await adapter.start();
			adapters.push(adapter);
		}
	});
	afterAll(async () => {
		for (const adapter of adapters) await adapter.stop();
		await fake?.close();
	});

	it("starts one lesson when both processes receive /lesson start, and again when it is replayed", async () => {
		const it = fake.slash({
			user: fake.users.learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "fractions" },
		});
		await until(() => drops() >= 1, "the second process's copy dropped");
		const replay = dispatched.find((x) => x.t === "INTERACTION_CREATE" && (x.d as { id?: string }).id === it.id);
		fake.dispatch("INTERACTION_CREATE", replay?.d);
		await until(() => drops() >= 2, "the replay dropped");
		threadId = (await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread")).id;
		await until(() => tutor.started.length >= 1, "the lesson");
		expect(tutor.started.map((s) => s.topic)).toEqual(["fractions"]);
		expect(fake.createdThreads()).toHaveLength(1);
		expect(it.rejectedCallbacks).toBe(0);
	});

	it("records one click and one typed message", async () => {
		const sessionId = tutor.started[0]?.sessionId ?? "";
		await tutor.emit({
			type: "quiz",
			sessionId,
			toolCallId: "q1",
			input: { question: "Half of 1?", options: ["0.5", "2"], correctAnswer: "0.5" },
		});
		const card = await fake.waitFor(
			() => fake.channelMessages(threadId).find((m) => customIds(m).some((id) => id.startsWith("lh:pick:q1"))),
			"the quiz card",
		);
		const dropped = drops();
		const handled = tutor.handled.length;
		const click = fake.click({
			user: fake.users.learner,
			messageId: card.id,
			customId: customIds(card).find((id) => id.startsWith("lh:pick:q1")) ?? "",
		});
		fake.say({ user: fake.users.learner, channelId: threadId, content: "why a half?" });
		await until(() => drops() >= dropped + 2, "the second copies dropped");
		await until(() => tutor.handled.length >= handled + 2, "the click and the message");
		expect(
			tutor.handled
				.slice(handled)
				.map((h) => h.event.type)
				.sort(),
		).toEqual(["answer", "message"]);
		expect(click.rejectedCallbacks).toBe(0);
	});
});
