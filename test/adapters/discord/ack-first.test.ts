/**
 * Discord's 3-second deadline holds whatever the tutor or the store does: with
 * both held (every tutor call and every keyv read or write waits on a gate),
 * every kind of interaction still gets its first response from the adapter:
 * deferred replies for commands, an immediate reply for help, deferred updates
 * for picks, selects and modal submits (at RECORD_BEFORE_ACK_MS: they wait for
 * the tutor's verdict, bounded), and the modal itself for "Answer". Only after
 * the gates open does the work behind them complete. A pick held briefly at
 * the tutor is acknowledged only once the tutor has it recorded. Also: where a
 * lesson goes (announcement threads, an existing thread).
 */

import Keyv from "keyv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscordAdapter, type DiscordAdapter } from "../../../src/adapters/discord/index.ts";
import { stateStoreOnKeyv } from "../../../src/agent/index.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { type FakeDiscord, type FakeInteraction, startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { HeldStore } from "../lesson/held-store.ts";
import { customIds, waitForControl } from "./helpers.ts";

let fake: FakeDiscord;
let adapter: DiscordAdapter;
const tutor = new FakeTutor();
const store = new HeldStore();
let threadId = "";
let sessionId = "";

beforeAll(async () => {
	fake = await startFakeDiscord();
	adapter = createDiscordAdapter({
		tutor,
		renderer: stubRenderer(undefined),
		logger: silentLogger,
		state: stateStoreOnKeyv(new Keyv({ store, namespace: "discord" })),
		config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 },
	});
	await adapter.start();
	fake.slash({
		user: fake.users.learner,
		channelId: fake.ids.general,
		subcommand: "start",
		options: { topic: "held" },
	});
	threadId = (await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread")).id;
	sessionId = `discord:${fake.guild.id}:${threadId}`;
	await fake.waitFor(() => tutor.started[0], "the tutor's startLesson");
	const options = ["1", "2", "3", "4", "5", "6"];
	await tutor.emit({
		type: "quiz",
		sessionId,
		toolCallId: "q1",
		input: { question: "Pick?", options: ["a", "b"], correctAnswer: "a" },
	});
	await tutor.emit({
		type: "quiz",
		sessionId,
		toolCallId: "q2",
		input: { question: "Six?", options, correctAnswer: "6" },
	});
	await tutor.emit({ type: "ask", sessionId, toolCallId: "a1", input: { question: "Why do you think so?" } });
	await waitForControl(fake, threadId, "lh:open:a1");
	await adapter.flush(10_000);
});

afterAll(async () => {
	await adapter?.stop();
	await fake?.close();
});

describe("Discord answers in time, and a pick only once recorded", () => {
	it("answers every kind of interaction first while the tutor and the store are both held", async () => {
		const pick = fake.channelMessages(threadId).find((m) => customIds(m).includes("lh:pick:q1:0"))!;
		const select = fake
			.channelMessages(threadId)
			.find((m) => customIds(m).some((id) => id.startsWith("lh:select:q2")))!;
		const ask = fake.channelMessages(threadId).find((m) => customIds(m).includes("lh:open:a1"))!;
		const handledBefore = tutor.handled.length;
		const releaseTutor = tutor.hold();
		const releaseStore = store.hold();
		let opened: FakeInteraction;
		const its: Array<[FakeInteraction, number]> = [];
		try {
			const learner = fake.users.learner;
			its.push([
				fake.slash({
					user: fake.users.other,
					channelId: fake.ids.general,
					subcommand: "start",
					options: { topic: "x" },
				}),
				5,
			]);
			its.push([fake.slash({ user: learner, channelId: threadId, subcommand: "status" }), 5]);
			its.push([
				fake.slash({
					user: fake.users.admin,
					channelId: fake.ids.general,
					subcommand: "config",
					options: { "lessons-per-day": 2 },
				}),
				5,
			]);
			its.push([fake.slash({ user: learner, channelId: fake.ids.general, subcommand: "help" }), 4]);
			its.push([fake.click({ user: learner, messageId: pick.id, customId: "lh:pick:q1:0" }), 6]);
			const selectId = customIds(select).find((id) => id.startsWith("lh:select:q2"))!;
			its.push([fake.select({ user: learner, messageId: select.id, customId: selectId, values: ["5"] }), 6]);
			opened = fake.click({ user: learner, messageId: ask.id, customId: "lh:open:a1" });
			its.push([opened, 9]);
			await fake.waitFor(() => opened.responseType, "the modal");
			its.push([fake.submitModal({ user: learner, opened, values: { "lh:text:a1": "because" } }), 6]);
			its.push([fake.slash({ user: learner, channelId: threadId, subcommand: "end" }), 5]);
			await fake.waitFor(() => its.every(([it]) => it.responseType !== undefined), "every first response", 10_000);
			expect(its.map(([it]) => it.responseType)).toEqual(its.map(([, type]) => type));
			// Nothing behind the gates has finished: the tutor recorded nothing and store work is waiting.
			expect(tutor.handled.length).toBe(handledBefore);
			expect(store.waiting).toBeGreaterThan(0);
		} finally {
			releaseTutor();
			releaseStore();
		}
		// Once the gates open, the work completes and each deferred reply gets its real answer.
		await fake.waitFor(() => tutor.handled.length >= handledBefore + 4, "the held events to reach the tutor");
		const config = its[2]![0];
		const reply = await fake.waitFor(() => {
			const m = fake.messages.get(config.originalMessageId ?? "");
			return m?.editedAt ? m : undefined;
		}, "the config reply");
		expect(reply.text).toMatch(/2 per member per day/);
		expect(
			tutor.handled
				.slice(handledBefore)
				.map((h) => h.event.type)
				.sort(),
		).toEqual(["answer", "answer", "end", "reply"]);
		for (const it of fake.interactions.values()) expect(it.rejectedCallbacks).toBe(0);
		expect(fake.problems()).toEqual([]);
	});

	it("acknowledges a pick only after the tutor has its verdict", async () => {
		const pick = fake.channelMessages(threadId).find((m) => customIds(m).includes("lh:pick:q1:1"))!;
		const handledBefore = tutor.handled.length;
		const callsBefore = tutor.calls;
		const release = tutor.hold();
		let click: FakeInteraction;
		try {
			click = fake.click({ user: fake.users.learner, messageId: pick.id, customId: "lh:pick:q1:1" });
			// At the tutor, held there (well inside the 1.5 s bound): no response yet.
			await fake.waitFor(() => tutor.calls > callsBefore, "the pick to reach the tutor");
			expect(click.responseType).toBeUndefined();
		} finally {
			release();
		}
		await fake.waitFor(() => click.responseType, "the deferred update");
		expect(click.responseType).toBe(6);
		expect(tutor.handled.slice(handledBefore).map((h) => h.event.type)).toEqual(["answer"]);
	});

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
		const first = fake.slash({
			user: fake.users.admin, // exempt from the daily limit the first test set
			channelId: fake.ids.thread,
			subcommand: "start",
			options: { topic: "in place" },
		});
		const started = await fake.waitFor(() => tutor.started.find((s) => s.topic === "in place"), "the lesson");
		expect(started.sessionId).toBe(`discord:${fake.guild.id}:${fake.ids.thread}`);
		const puts = fake.calls.filter((c) => c.method === "PUT").map((c) => c.path);
		expect(puts).toContain(`/channels/${fake.ids.thread}/thread-members/%40me`);
		const reply = (it: typeof first) =>
			fake.waitFor(() => {
				const m = fake.messages.get(it.originalMessageId ?? "");
				return m?.editedAt ? m.text : undefined;
			}, "the reply");
		expect(await reply(first)).toContain(`<#${fake.ids.thread}>`);
		const again = fake.slash({
			user: fake.users.other,
			channelId: fake.ids.thread,
			subcommand: "start",
			options: { topic: "x" },
		});
		expect(await reply(again)).toMatch(/already has a lesson/);
		expect(fake.createdThreads().length).toBe(threads);
	});
});
