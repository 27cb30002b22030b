/**
 * Where a Discord lesson goes (Discord's threads; the rest of starting a lesson is the contract suite's): an
 * announcement channel gets an announcement thread (type 10), as Discord requires; `/lesson start` inside an
 * existing thread runs the lesson there, the bot joining it, and only one lesson per thread.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DiscordAdapter } from "../../../src/adapters/discord/index.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import type { FakeDiscord, FakeInteraction } from "../../../testkit/fakes/discord.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { startOnFake } from "./helpers.ts";

let fake: FakeDiscord;
let adapter: DiscordAdapter;
const tutor = new FakeTutor();

beforeAll(async () => {
	({ fake, adapter } = await startOnFake(tutor, createMemoryStateStore()));
});

afterAll(async () => {
	await adapter?.stop();
	await fake?.close();
});

describe("where a Discord lesson goes", () => {
	it("opens an announcement thread (type 10) under an announcement channel, as Discord requires", async () => {
		const news = fake.addChannel({ id: "900000000000000001", type: 5, name: "news", guildId: fake.guild.id });
		fake.slash({ user: fake.users.learner, channelId: news.id, subcommand: "start", options: { topic: "news" } });
		const thread = await fake.waitFor(
			() => fake.createdThreads().find((t) => t.parentId === news.id),
			"the announcement thread",
		);
		expect(thread.type).toBe(10);
		const started = await fake.waitFor(() => tutor.started.find((s) => s.topic === "news"), "the lesson in it");
		expect(started.sessionId).toBe(`discord:${fake.guild.id}:${thread.id}`);
	});

	it("runs a lesson in the existing thread it was started in, joining it, and only one", async () => {
		const threads = fake.createdThreads().length;
		const start = (user = fake.users.learner, topic = "in place") =>
			fake.slash({ user, channelId: fake.ids.thread, subcommand: "start", options: { topic } });
		const first = start();
		const started = await fake.waitFor(() => tutor.started.find((s) => s.topic === "in place"), "the lesson");
		expect(started.sessionId).toBe(`discord:${fake.guild.id}:${fake.ids.thread}`);
		const puts = fake.calls.filter((c) => c.method === "PUT").map((c) => c.path);
		expect(puts).toContain(`/channels/${fake.ids.thread}/thread-members/%40me`);
		const reply = (it: FakeInteraction) =>
			fake.waitFor(() => {
				const m = fake.messages.get(it.originalMessageId ?? "");
				return m?.editedAt ? m.text : undefined;
			}, "the reply");
		expect(await reply(first)).toContain(`<#${fake.ids.thread}>`);
		expect(await reply(start(fake.users.other, "x"))).toMatch(/already has a lesson/);
		expect(fake.createdThreads().length).toBe(threads);
		expect(fake.problems()).toEqual([]);
	});
});
