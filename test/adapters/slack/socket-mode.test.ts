/**
 * Socket Mode smoke test: with an app token the adapter connects to the fake's
 * websocket (apps.connections.open → hello), acks a slash command envelope, and answers.
 */

import { describe, expect, it } from "vitest";
import { createSlackAdapter } from "../../../src/adapters/slack/index.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";

describe("Slack Socket Mode", { timeout: 20_000 }, () => {
	it("connects, acks a command envelope, and starts a lesson from a mention event", async () => {
		const fake = await startFakeSlack();
		const tutor = new FakeTutor();
		const adapter = createSlackAdapter({
			tutor,
			renderer: stubRenderer(undefined),
			logger: silentLogger,
			state: createMemoryStateStore(),
			config: {
				botToken: "xoxb-test",
				signingSecret: "unused-in-socket-mode",
				appToken: "xapp-test",
				apiUrl: fake.apiUrl,
				port: 0,
				adminUserIds: [],
				retry: { retries: 0, minTimeoutMs: 10, maxTimeoutMs: 10 },
			},
		});
		try {
			const connected = fake.socketConnected();
			await adapter.start();
			await connected;
			expect(adapter.port()).toBeUndefined();
			expect(fake.callsTo("apps.connections.open")[0]?.token).toBe("xapp-test");
			const ack = await fake.socketSend("slash_commands", {
				command: "/lesson",
				text: "help",
				user_id: "U1",
				user_name: "ada",
				channel_id: "C1",
				team_id: fake.teamId,
				response_url: `${fake.baseUrl}/respond/1`,
				trigger_id: "t1",
			});
			expect(ack.envelope_id).toMatch(/^env-/);
			const reply = await fake.waitFor(() => fake.callsTo("response_url")[0], "the help reply");
			expect(String(reply.params.text)).toContain("/lesson start &lt;topic&gt;");
			const sender = fake.sender("http://unused");
			await fake.socketSend(
				"events_api",
				sender.eventPayload({ type: "app_mention", user: "U1", text: "<@U0BOT> tides", ts: "1.000001", channel: "C1" }),
			);
			await fake.waitFor(() => tutor.started[0], "the lesson from the mention");
			expect(tutor.started[0]?.topic).toBe("tides");
		} finally {
			await adapter.stop();
			await fake.close();
		}
	});
});
