/**
 * Start and stop: a bad token or a taken port fails start() with a clear message; stop()
 * is safe twice; a tutor that throws never takes the adapter down.
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSlackAdapter, type SlackAdapterConfig } from "../../../src/adapters/slack/index.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { startAdapter } from "./harness.ts";

describe("Slack adapter lifecycle", { timeout: 20_000 }, () => {
	let fake: FakeSlack;
	const config = (over: Partial<SlackAdapterConfig>): SlackAdapterConfig => ({
		botToken: "xoxb-test",
		signingSecret: fake.signingSecret,
		apiUrl: fake.apiUrl,
		port: 0,
		host: "127.0.0.1",
		adminUserIds: [],
		retry: { retries: 0, minTimeoutMs: 10, maxTimeoutMs: 10 },
		...over,
	});
	const adapterWith = (over: Partial<SlackAdapterConfig>) =>
		createSlackAdapter({
			tutor: new FakeTutor(),
			renderer: stubRenderer(undefined),
			logger: silentLogger,
			state: createMemoryStateStore(),
			config: config(over),
		});

	beforeAll(async () => {
		fake = await startFakeSlack();
	});
	afterAll(async () => {
		await fake?.close();
	});

	it("fails start() with a clear message on a rejected token, and stop() stays safe", async () => {
		const adapter = adapterWith({ botToken: "not-a-token" });
		await expect(adapter.start()).rejects.toThrow(/Slack rejected the bot token.*SLACK_BOT_TOKEN/);
		await adapter.stop();
		await adapter.stop();
	});

	it("fails start() with a clear message when Socket Mode refuses the app token", async () => {
		const adapter = adapterWith({ appToken: "not-an-app-token" });
		await expect(adapter.start()).rejects.toThrow(/Socket Mode did not connect.*SLACK_APP_TOKEN/);
		await adapter.stop();
	});

	it("fails start() with a clear message when the port is taken", async () => {
		const blocker = createServer();
		await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
		try {
			const adapter = adapterWith({ port: (blocker.address() as AddressInfo).port });
			await expect(adapter.start()).rejects.toThrow(/Could not listen on port/);
			await adapter.stop();
		} finally {
			await new Promise<void>((resolve) => blocker.close(() => resolve()));
		}
	});

	it("survives a tutor that throws: the click is acked and later requests still work", async () => {
		const tutor = new FakeTutor();
		tutor.handle = async () => {
			throw new Error("engine exploded");
		};
		const running = await startAdapter(fake, {
			tutor,
			renderer: stubRenderer(undefined),
			state: createMemoryStateStore(),
		});
		try {
			const click = await running.sender.action({ user: "U1", channel: "C1" }, "1.000001", {
				action_id: "lh:pick:x:0",
			});
			expect(click.status).toBe(200);
			const before = fake.callsTo("response_url").length;
			const help = await running.sender.command("/lesson", "help", { user: "U1", channel: "C1" });
			expect(help.status).toBe(200);
			await fake.waitFor(() => fake.callsTo("response_url").length > before, "the help reply");
		} finally {
			await running.adapter.stop();
			await running.adapter.stop();
		}
		expect(tutor.subscribers()).toBe(0);
	});
});
