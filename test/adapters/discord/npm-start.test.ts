/**
 * `learnharness start` (what `npm start` runs) with DISCORD_TOKEN and
 * DISCORD_API_URL pointed at the fake Discord runs the built-in demo lesson
 * to its end: a child process, driven by a learner through the fake.
 */

import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { useNpmStart } from "../../fixtures/child-process.ts";
import { driveLesson } from "../../fixtures/discord/drive-lesson.ts";

const started = useNpmStart(startFakeDiscord, (fake) => ({
	DISCORD_TOKEN: fake.token,
	DISCORD_API_URL: fake.apiUrl,
	DISCORD_GUILD_ID: fake.guild.id,
}));
const output = started.output;

describe("npm start against the fake Discord", () => {
	it("registers /lesson and runs the demo lesson to the end in a thread", { timeout: 120_000 }, async () => {
		const fake = started.fake();
		const lesson = await driveLesson(fake, {
			user: fake.users.learner,
			channelId: fake.ids.general,
			topic: "binary search",
			timeoutMs: 100_000,
		}).catch((error: unknown) => {
			throw new Error(`${String(error)}\n--- learnharness output ---\n${output().slice(-4000)}`);
		});
		expect(lesson.ended, output().slice(-4000)).toBe(true);
		expect(lesson.actions.some((id) => id.startsWith("lh:pick:"))).toBe(true);
		expect(lesson.actions.some((id) => id.startsWith("lh:open:"))).toBe(true);
		const pictures = fake
			.channelMessages(lesson.threadId)
			.flatMap((m) => m.attachments.filter((a) => a.filename === "plan.png"));
		expect(pictures.length).toBeGreaterThanOrEqual(2);
		for (const p of pictures) expect(PNG.sync.read(p.data).width).toBeGreaterThan(50);
		expect(fake.problems()).toEqual([]);
		expect(fake.calls.filter((c) => c.status >= 400).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
	});
});
