/**
 * An application command shaped like discord-api-docs' own example of an interaction ("Receiving and
 * Responding": `channel_id` but no `channel`, no `entitlements`, no `authorizing_integration_owners`, no
 * `application_id`): discord.js 14 threw on it (`data.entitlements.reduce` of undefined) and the command was
 * dropped. It starts a lesson like any other, and the deferred reply reaches the command's user.
 */

import { describe, expect, it } from "vitest";
import { completeInteraction } from "../../../src/adapters/discord/client.ts";
import { scriptedModel, useStack, waitForAck, waitForControl } from "./helpers.ts";

const DOCS_EXAMPLE_LACKS = ["channel", "entitlements", "authorizing_integration_owners", "application_id"] as const;

const { fake, stack } = useStack(
	scriptedModel([
		{
			text: "A first question.",
			calls: [{ name: "quiz", id: "q1", input: { question: "2 + 2?", options: ["4", "5"], correctAnswer: "4" } }],
		},
	]),
);

describe("an interaction without channel, entitlements and application id", () => {
	it("completes only what is missing", () => {
		const packet = { t: "INTERACTION_CREATE", d: { id: "1", channel_id: "42" } };
		completeInteraction(packet, "app");
		expect(packet.d).toEqual({
			id: "1",
			channel_id: "42",
			channel: { id: "42" },
			entitlements: [],
			authorizing_integration_owners: {},
			application_id: "app",
		});
		const full = {
			t: "INTERACTION_CREATE",
			d: { channel: { id: "7", type: 0 }, channel_id: "7", entitlements: [{ id: "e" }], application_id: "a" },
		};
		const before = JSON.stringify(full);
		completeInteraction({ ...full, t: "MESSAGE_CREATE" }, "app");
		expect(JSON.stringify(full)).toBe(before);
		completeInteraction(full, "app");
		expect(full.d).toMatchObject({ channel: { id: "7", type: 0 }, entitlements: [{ id: "e" }], application_id: "a" });
		for (const odd of [null, "x", { t: "INTERACTION_CREATE", d: null }])
			expect(() => completeInteraction(odd, "a")).not.toThrow();
	});

	it("starts a lesson from /lesson start shaped like discord-api-docs' example", async () => {
		const command = fake.slash({
			user: fake.users.learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "addition" },
			omit: DOCS_EXAMPLE_LACKS,
		});
		await waitForAck(fake, command.token);
		expect(command.responseType).toBe(5); // deferred, ephemeral: the command was taken
		const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
		expect(thread.parentId).toBe(fake.ids.general);
		await waitForControl(fake, thread.id, "lh:pick:q1:");
		// The deferred reply was edited through the application's webhook (the fake refuses another id).
		const reply = await fake.waitFor(() => {
			const m = fake.messages.get(command.originalMessageId ?? "");
			return m?.editedAt ? m : undefined;
		}, "the start reply");
		expect(reply.text).toMatch(/addition/);
		expect(stack.logger.entries.filter((e) => e.message === "discord: dropped a malformed gateway payload")).toEqual(
			[],
		);
	});
});
