/**
 * With no state store passed, Discord and Slack both keep what the lesson controller
 * remembers (posted cards, intros, rules, counts) in the store URL's backend, so it
 * survives a restart on either (Slack used to keep it in memory, Discord in SQLite).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDiscordAdapter } from "../../src/adapters/discord/index.ts";
import { openStateStore } from "../../src/agent/index.ts";
import { silentLogger } from "../../src/core/contracts/logger.ts";
import { startFakeDiscord } from "../../testkit/fakes/discord.ts";
import { startFakeSlack } from "../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { FakeTutor } from "./lesson/fake-tutor.ts";
import { startAdapter } from "./slack/harness.ts";

const dir = mkdtempSync(join(tmpdir(), "lh-default-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function introIn(storeUrl: string, namespace: string, threadId: string): Promise<unknown> {
	const state = openStateStore(storeUrl, namespace);
	try {
		return await state.get(`intro:${threadId}`);
	} finally {
		await state.close();
	}
}

describe("the default state store", { timeout: 30_000 }, () => {
	it("is the store URL's backend on Discord", async () => {
		const fake = await startFakeDiscord();
		const tutor = new FakeTutor();
		const storeUrl = `sqlite://${join(dir, "discord.sqlite")}`;
		const adapter = createDiscordAdapter({
			tutor,
			renderer: stubRenderer(undefined),
			logger: silentLogger,
			config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, storeUrl, readyTimeoutMs: 10_000 },
		});
		try {
			await adapter.start();
			fake.slash({
				user: fake.users.learner,
				channelId: fake.ids.general,
				subcommand: "start",
				options: { topic: "x" },
			});
			const started = await fake.waitFor(() => tutor.started[0], "the lesson");
			await adapter.stop();
			expect(await introIn(storeUrl, "discord", started.sessionId)).toMatchObject({ topic: "x" });
		} finally {
			await adapter.stop();
			await fake.close();
		}
	});

	it("is the store URL's backend on Slack", async () => {
		const fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		const tutor = new FakeTutor();
		const storeUrl = `sqlite://${join(dir, "slack.sqlite")}`;
		const running = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined) }, { storeUrl });
		try {
			await running.sender.command("/lesson", "start x", { user: "U1", name: "ada", channel: "C1" });
			const started = await fake.waitFor(() => tutor.started[0], "the lesson");
			await fake.waitFor(() => fake.callsTo("response_url")[0], "the start reply");
			await running.adapter.stop();
			expect(await introIn(storeUrl, "slack", started.sessionId)).toMatchObject({ topic: "x" });
		} finally {
			await running.adapter.stop();
			await fake.close();
		}
	});
});
