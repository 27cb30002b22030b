/**
 * A review in the member's DM with the bot (issue 28: the app is user-installable with DM contexts): a lesson in
 * a guild thread builds the learner's profile; days later (a moved clock) `/lesson review` run in the DM (an
 * interaction with no guild, context 1) posts the due question in the DM itself, its Answer button opens the
 * form there, and the typed answer is graded and rescheduled: the real discord.js client against the fake
 * Discord, the real engine, learning service and SQLite files.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registerDiscordCommands } from "../../../src/adapters/discord/commands.ts";
import { createDiscordAdapter } from "../../../src/adapters/discord/index.ts";
import { openStateStore } from "../../../src/agent/index.ts";
import { startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { fractionsLesson } from "../../fixtures/lesson-script.ts";
import { answerFractionsLesson, openLearnerBackend, testClock } from "../../fixtures/profile-stack.ts";
import { customIds, recordingLogger, scriptedModel, waitForAck } from "./helpers.ts";

const PNG = Buffer.from("png");

/** Poll `check` until it gives a value (the store is not the fake: no change event to wait on). */
async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((done) => setTimeout(done, 25));
	}
}

describe("a review in the member's DM with the bot", { timeout: 60_000 }, () => {
	it("posts the due question in the DM, and the answer typed there is graded and rescheduled", async () => {
		const fake = await startFakeDiscord();
		const dir = mkdtempSync(join(tmpdir(), "lh-dm-review-"));
		const clock = testClock();
		const model = scriptedModel(
			fractionsLesson({ greeting: "Hi!", predictOptions: ["3", "6", "9"], closing: "Done!" }),
		);
		const backend = await openLearnerBackend(dir, model, clock);
		const state = openStateStore(`sqlite://${join(dir, "discord.sqlite")}`, "discord");
		const logger = recordingLogger();
		const adapter = createDiscordAdapter({
			tutor: backend.tutor,
			renderer: stubRenderer(PNG),
			logger,
			state,
			learning: { learning: backend.learning },
			config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 },
		});
		await adapter.start();
		try {
			const learner = fake.users.learner;
			const key = `discord:${learner.id}`;
			fake.slash({
				user: learner,
				channelId: fake.ids.general,
				subcommand: "start",
				options: { topic: "adding fractions" },
			});
			const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
			const sessionId = `discord:${fake.guild.id}:${thread.id}`;
			await answerFractionsLesson(backend.tutor, sessionId, { id: learner.id, name: learner.username });
			fake.slash({ user: learner, channelId: thread.id, subcommand: "end" });
			const items = await until(async () => {
				const found = await backend.learning.items(key);
				return found.length > 0 ? found : undefined;
			}, "the review items");
			expect(items.map((i) => i.nodeId)).toEqual(["common-denominator"]);
			const before = items[0]?.card;
			clock.advanceDays(4);

			// Discord shows only global commands in DMs: register them globally too.
			await registerDiscordCommands({ token: fake.token, apiUrl: fake.apiUrl });
			const dm = fake.dmChannel(learner);
			const review = fake.slash({ user: learner, channelId: dm.id, subcommand: "review" });
			const question = await fake.waitFor(() => {
				const m = review.originalMessageId ? fake.messages.get(review.originalMessageId) : undefined;
				return m && customIds(m).some((id) => id.startsWith("lh:open:")) ? m : undefined;
			}, "the review question");
			expect(question.channelId).toBe(dm.id);
			expect(question.visibleTo).toBeUndefined(); // posted in the DM: nobody else is there
			expect(question.text).toContain("Common denominator of 1/2 and 1/5?");

			const control = customIds(question).find((id) => id.startsWith("lh:open:")) ?? "";
			const open = fake.click({ user: learner, messageId: question.id, customId: control });
			await waitForAck(fake, open.token);
			expect(open.responseType).toBe(9);
			const textInput = JSON.stringify(open.modal).match(/"(lh:text:[^"]+)"/)?.[1] ?? "";
			const submit = fake.submitModal({ user: learner, opened: open, values: { [textInput]: "10" } });
			await waitForAck(fake, submit.token);
			const done = await fake.waitFor(
				() => fake.channelMessages(dm.id).find((m) => m.text.startsWith("Review done")),
				"the end of the review",
			);
			expect(done.text).toMatch(/^Review done: 1 of 1 right\. Next review: in \d+ days/);
			expect(fake.channelMessages(dm.id).some((m) => /^Your answer: 10\n✅ Right/.test(m.text))).toBe(true);
			const after = (await backend.learning.items(key))[0]?.card;
			expect(after?.scheduledDays).toBeGreaterThan(before?.scheduledDays ?? Number.POSITIVE_INFINITY);
			expect(fake.createdThreads()).toHaveLength(1); // the lesson's; the review opened none
			expect(logger.errors()).toEqual([]);
			expect(fake.problems()).toEqual([]);
		} finally {
			await adapter.stop();
			await backend.close();
			await state.close();
			await fake.close();
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
