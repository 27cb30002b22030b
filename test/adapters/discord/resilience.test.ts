/**
 * No crash: malformed gateway payloads, unknown or forged component ids,
 * REST errors (429, 5xx, 403, a deleted message), a dropped gateway
 * connection and a bad token are handled and logged; the lesson goes on.
 */

import { beforeAll, describe, expect, it } from "vitest";
import { createDiscordAdapter } from "../../../src/adapters/discord/index.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { createSessionStore } from "../../../src/agent/store/session-store.ts";
import { createTutor } from "../../../src/agent/tutor.ts";
import { createPlanRenderer, discordMessageText } from "../../../src/render/index.ts";
import type { FakeInteraction } from "../../../testkit/fakes/discord.ts";
import { buttonPayload } from "../../../testkit/fixtures/discord/interactions.ts";
import { type Reply, recordingLogger, scriptedModel, useStack, waitForAck, waitForControl } from "./helpers.ts";

const quiz = (id: string) => ({
	name: "quiz",
	id,
	input: { question: `Question ${id}?`, options: ["one", "two"], correctAnswer: "one" },
});
const script: Reply[] = [
	{ text: "First, a question.", calls: [quiz("q1")] },
	{ text: "Good. Another one.", calls: [quiz("q2")] },
	{ text: "And one more.", calls: [quiz("q3")] },
	{ text: "That's all for now." },
];

const { fake, stack } = useStack(scriptedModel(script));
let threadId = "";

beforeAll(async () => {
	fake.slash({
		user: fake.users.learner,
		channelId: fake.ids.general,
		subcommand: "start",
		options: { topic: "resilience" },
	});
	threadId = (await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread")).id;
	await waitForControl(fake, threadId, "lh:pick:q1:");
});

async function helpStillWorks(): Promise<void> {
	const help = fake.slash({ user: fake.users.other, channelId: fake.ids.general, subcommand: "help" });
	await waitForAck(fake, help.token);
	expect(help.responseType).toBe(4);
}

const followup = (it: FakeInteraction) =>
	fake.waitFor(() => fake.messages.get(it.followupIds[0] ?? ""), "a follow-up notice");

describe("the Discord adapter under bad input and failures", () => {
	it("survives malformed and unknown gateway payloads", async () => {
		const q1 = await waitForControl(fake, threadId, "lh:pick:q1:");
		const base = {
			id: "1",
			token: "t",
			applicationId: fake.applicationId,
			guildId: fake.guild.id,
			channel: fake.channels.get(threadId)!,
			member: fake.member(fake.users.learner),
			permissions: 0n,
			appPermissions: 0n,
		};
		const valid = buttonPayload(base, { id: q1.id }, "lh:pick:q1:0") as Record<string, unknown>;
		const { member: _m, ...noUser } = valid;
		for (const payload of [
			{ ...valid, data: undefined },
			noUser,
			{ ...valid, type: 99 },
			{ ...valid, data: { component_type: 2 } },
			null,
			"garbage",
		])
			fake.dispatch("INTERACTION_CREATE", payload);
		fake.dispatch("MESSAGE_CREATE", { id: "2", channel_id: threadId, content: "no author" });
		fake.dispatch("MESSAGE_CREATE", null);
		fake.dispatch("THREAD_CREATE", { id: "3" });
		fake.dispatch("SOMETHING_NEW", { hello: "world" });
		await helpStillWorks();
		expect(
			stack.logger.entries.filter((e) => e.message === "discord: dropped a malformed gateway payload").length,
		).toBeGreaterThanOrEqual(3);
		expect((await stack.tutor.getSession(`discord:${fake.guild.id}:${threadId}`))?.pending).toMatchObject([
			{ toolCallId: "q1", kind: "quiz" },
		]);
	});

	it("answers unknown and forged component ids with a notice and records nothing", async () => {
		const q1 = await waitForControl(fake, threadId, "lh:pick:q1:");
		const foreign = fake.click({
			user: fake.users.learner,
			messageId: q1.id,
			customId: "someone-elses-button",
			force: true,
		});
		await waitForAck(fake, foreign.token);
		expect(foreign.responseType).toBe(4);
		const forged = fake.click({
			user: fake.users.learner,
			messageId: q1.id,
			customId: "lh:pick:no-such-call:0",
			force: true,
		});
		expect((await followup(forged)).content).toMatch(/no longer open/);
		const badSelect = fake.select({
			user: fake.users.learner,
			messageId: q1.id,
			customId: "lh:select:q1:0",
			values: ["x"],
			force: true,
		});
		await waitForAck(fake, badSelect.token);
		expect(badSelect.responseType).toBe(4);
		expect(stack.events.filter((e) => e.type === "answered")).toHaveLength(0);
		const real = fake.click({ user: fake.users.learner, messageId: q1.id, customId: "lh:pick:q1:0" });
		await waitForAck(fake, real.token);
		await waitForControl(fake, threadId, "lh:pick:q2:");
		expect(stack.events.filter((e) => e.type === "answered")).toHaveLength(1);
	});

	it("waits out a 429, logs a post that fails after 5xx retries, and goes on", async () => {
		const q2 = await waitForControl(fake, threadId, "lh:pick:q2:");
		const messagesRoute = new RegExp(`^/channels/${threadId}/messages$`);
		// A click's turn posts through the click's interaction webhook (follow-ups), the channel route after it fails.
		const followUps = /^\/webhooks\/\d+\/[^/]+$/;
		fake.rateLimitNext(followUps, 0.05); // the first post of the next turn
		const click = fake.click({ user: fake.users.learner, messageId: q2.id, customId: "lh:pick:q2:0" });
		await waitForAck(fake, click.token);
		await waitForControl(fake, threadId, "lh:pick:q3:");
		const posts = fake.calls.filter((c) => followUps.test(c.path));
		expect(posts.some((c) => c.status === 429)).toBe(true);
		// The lead-in rides on its question; the post that met the 429 went out after the wait.
		expect(fake.channelMessages(threadId).some((m) => m.text.startsWith("And one more.\n\n**Quiz**"))).toBe(true);

		const closing = (body: unknown) => discordMessageText((body ?? {}) as object) === "That's all for now.";
		// The closing line fails as a follow-up (4 tries) and then in the channel (4 more).
		fake.injectFault({ method: "POST", path: followUps, status: 500, times: 4, when: closing });
		fake.injectFault({ method: "POST", path: messagesRoute, status: 500, times: 4, when: closing });
		// The card is gone: both its @original edit and the channel edit say so. (A failing typing call is
		// covered in test/adapters/lesson/typing.test.ts: this fast turn sends none.)
		fake.injectFault({
			method: "PATCH",
			path: /\/messages\/(\d+|%40original)$/,
			status: 404,
			body: { code: 10008, message: "Unknown Message" },
			times: 2,
		});
		const q3 = await waitForControl(fake, threadId, "lh:pick:q3:");
		const last = fake.click({ user: fake.users.learner, messageId: q3.id, customId: "lh:pick:q3:0" });
		await waitForAck(fake, last.token);
		const sessionId = `discord:${fake.guild.id}:${threadId}`;
		// The ack comes before the tutor hears of the click: wait for the tutor's side too.
		await fake.waitFor(
			() =>
				stack.events.some(
					(e) => e.type === "typing" && !e.active && stack.events.filter((x) => x.type === "answered").length === 3,
				),
			"the last turn",
		);
		await stack.tutor.idle(sessionId);
		await stack.adapter.flush(15_000);
		// The edit hit a deleted message: the answered card was posted anew instead.
		expect(fake.channelMessages(threadId).filter((m) => /answered/.test(m.text) && !m.editedAt).length).toBeGreaterThan(
			0,
		);
		const logged = stack.logger.errors().map((e) => e.message);
		expect(logged).toContain("discord: posting a message failed");
		expect(fake.calls.filter((c) => closing(c.body)).map((c) => c.status)).toEqual(Array(8).fill(500));
		expect(fake.channelMessages(threadId).some((m) => closing(m))).toBe(false);
		expect(stack.logger.entries.some((e) => e.message === "discord: rate limited; waiting")).toBe(true);
		await helpStillWorks();
	});

	it("tells the user when a thread cannot be created", async () => {
		fake.injectFault({
			method: "POST",
			path: /\/threads$/,
			status: 403,
			body: { code: 50013, message: "Missing Permissions" },
		});
		const start = fake.slash({
			user: fake.users.other,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "x" },
		});
		const reply = await fake.waitFor(() => {
			const m = fake.messages.get(start.originalMessageId ?? "");
			return m?.editedAt ? m : undefined;
		}, "the start refusal");
		expect(reply.text).toMatch(/could not open a thread/);
	});

	it("resumes after the gateway drops and still handles typed messages", async () => {
		const before = fake.gateway.resumes;
		fake.dropConnections(4000);
		fake.slash({ user: fake.users.other, channelId: fake.ids.general, subcommand: "help" });
		await fake.waitFor(() => fake.gateway.resumes > before, "a RESUME", 15_000);
		await helpStillWorks();
	});

	it("rejects a bad token at start with a clear message and no crash", async () => {
		const store = await createSessionStore(`sqlite://${stack.dir}/other.sqlite`);
		const tutor = createTutor({ model: scriptedModel([]), store });
		const renderer = createPlanRenderer();
		const logger = recordingLogger();
		const adapter = createDiscordAdapter({
			tutor,
			renderer,
			logger,
			state: createMemoryStateStore(),
			config: { token: "wrong", apiUrl: fake.apiUrl },
		});
		await expect(adapter.start()).rejects.toThrow(/DISCORD_TOKEN/);
		await adapter.stop();
		await tutor.close();
		await renderer.close();
	});
});
