/**
 * The app user-installed, in the member's DM with the bot (an interaction with no guild, context 1):
 * `/lesson start` gets a clear refusal (lessons stay in guild threads); `/lesson review` answers in the
 * DM itself, not ephemerally (nobody else is there).
 */

import { describe, expect, it } from "vitest";
import { registerDiscordCommands } from "../../../src/adapters/discord/commands.ts";
import { scriptedModel, useStack } from "./helpers.ts";

describe("/lesson in the member's DM with the bot", { timeout: 30_000 }, () => {
	const { fake } = useStack(scriptedModel([]), { png: Buffer.from("png") });

	it("is registered for user installs and DMs; start is refused there, review answers in the DM", async () => {
		// Discord shows only global commands in DMs: register them globally too.
		await registerDiscordCommands({ token: fake.token, apiUrl: fake.apiUrl });
		const lesson = fake.commands.global.find((c) => c.name === "lesson")!;
		expect(lesson.integration_types).toEqual([0, 1]);
		expect(lesson.contexts).toEqual([0, 1, 2]);
		const dm = fake.dmChannel(fake.users.learner);
		const start = fake.slash({
			user: fake.users.learner,
			channelId: dm.id,
			subcommand: "start",
			options: { topic: "fractions" },
		});
		const refused = await fake.waitFor(() => {
			const m = start.originalMessageId ? fake.messages.get(start.originalMessageId) : undefined;
			return m?.editedAt ? m : undefined;
		}, "the refusal");
		expect(refused.text).toBe("Lessons run in servers, not in direct messages.");
		expect(fake.createdThreads()).toEqual([]);

		const review = fake.slash({ user: fake.users.learner, channelId: dm.id, subcommand: "review" });
		const reply = await fake.waitFor(() => {
			const m = review.originalMessageId ? fake.messages.get(review.originalMessageId) : undefined;
			return m?.editedAt ? m : undefined;
		}, "the review's reply");
		expect(reply.channelId).toBe(dm.id);
		expect(reply.visibleTo).toBeUndefined(); // posted in the DM, not ephemeral
		expect(reply.text).not.toBe("Lessons run in servers, not in direct messages.");
		expect(fake.problems()).toEqual([]);
	});
});
