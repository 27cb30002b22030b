/**
 * Both platforms in one process (what `learnharness start` runs with both tokens set): @slack/bolt
 * brings its own undici, and when it loads before discord.js its process-wide dispatcher broke
 * discord.js's multipart uploads ("action is not a function"), so no map or formula picture
 * reached Discord. The Discord client keeps its own connection pool; this file loads Bolt first.
 */
import "@slack/bolt";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDiscordClient } from "../../../src/adapters/discord/client.ts";
import { createDiscordPort } from "../../../src/adapters/discord/port.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { type FakeDiscord, startFakeDiscord } from "../../../testkit/fakes/discord.ts";

let fake: FakeDiscord;
beforeAll(async () => {
	fake = await startFakeDiscord();
});
afterAll(async () => {
	await fake.close();
});

it("uploads a picture to Discord with Bolt loaded first", async () => {
	const client = createDiscordClient({ token: fake.token, apiUrl: fake.apiUrl }, silentLogger);
	try {
		const port = createDiscordPort(client, silentLogger);
		const threadId = port.encodeThreadId({ guildId: fake.guild.id, threadId: fake.ids.thread });
		const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
		const posted = await port.postPicture(threadId, {
			key: "k",
			caption: "Now: Sorted input",
			outline: "▶ Sorted input",
			png,
		});
		expect(posted).toBe(true);
		const upload = fake.calls.find((c) => c.method === "POST" && c.path.endsWith("/messages") && c.files.length > 0);
		expect(Buffer.from(upload?.files[0]?.data ?? []).subarray(0, 8)).toEqual(png.subarray(0, 8));
	} finally {
		await client.destroy();
	}
});
