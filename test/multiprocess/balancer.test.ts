/**
 * The fake Slack's load balancer: deliveries spread over the bot URLs at random; one refused
 * (nothing listens) or unanswered (a process that accepts and stays silent, like one paused
 * with SIGSTOP) is sent again to another URL with Slack's retry headers, the body unchanged
 * and signed afresh; a delivery no process answers fails after its attempts.
 */

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSlack, signSlackRequest, startFakeSlack } from "../../testkit/fakes/slack.ts";
import { freePort } from "../fixtures/redis-server.ts";

interface Received {
	headers: IncomingHttpHeaders;
	body: string;
}

/** A bot stand-in: answers 200 (or stays silent) and keeps what it got. */
async function bot(silent = false): Promise<{ url: string; got: Received[]; server: Server }> {
	const got: Received[] = [];
	const server = createServer((req, res) => {
		const parts: Buffer[] = [];
		req.on("data", (c: Buffer) => parts.push(c));
		req.on("end", () => {
			got.push({ headers: req.headers, body: Buffer.concat(parts).toString() });
			if (!silent) res.end("");
		});
	});
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`, got, server };
}

describe("the fake Slack's load balancer", () => {
	let fake: FakeSlack;
	const servers: Server[] = [];
	beforeAll(async () => {
		fake = await startFakeSlack();
	});
	afterAll(async () => {
		for (const s of servers) s.closeAllConnections();
		await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
		await fake.close();
	});

	it("spreads deliveries over every bot URL", async () => {
		const bots = await Promise.all([bot(), bot(), bot()]);
		servers.push(...bots.map((b) => b.server));
		const sender = fake.balancer(bots.map((b) => b.url));
		for (let i = 0; i < 30; i++)
			expect(
				(await sender.event({ type: "message", channel: "C1", user: "U1", text: `${i}`, ts: sender.nextTs() })).status,
			).toBe(200);
		for (const b of bots) expect(b.got.length).toBeGreaterThan(0);
		expect(bots.reduce((n, b) => n + b.got.length, 0)).toBe(30);
	});

	it("retries a refused and an unanswered delivery elsewhere with Slack's retry headers", {
		timeout: 15_000,
	}, async () => {
		const live = await bot();
		const paused = await bot(true);
		servers.push(live.server, paused.server);
		const dead = `http://127.0.0.1:${await freePort()}/slack/events`;
		// The order is fixed: the dead URL first, then the silent one, then the live one.
		const picks = [0, 0, 0];
		const sender = fake.balancer([dead, paused.url, live.url], {
			answerTimeoutMs: 500,
			random: () => picks.shift() ?? 0,
		});
		const res = await sender.command("/lesson", "start fractions", { user: "U1", channel: "C1" });
		expect(res.status).toBe(200);
		expect(sender.attempts.map((a) => [a.attempt, a.outcome])).toEqual([
			[0, "refused"],
			[1, "timeout"],
			[2, 200],
		]);
		const [silentGot] = paused.got;
		const [liveGot] = live.got;
		expect(silentGot?.body).toBe(liveGot?.body);
		expect(liveGot?.headers["x-slack-retry-num"]).toBe("2");
		expect(liveGot?.headers["x-slack-retry-reason"]).toBe("http_timeout");
		expect(silentGot?.headers["x-slack-retry-num"]).toBe("1");
		expect(silentGot?.headers["x-slack-retry-reason"]).toBe("http_error");
		const stamp = Number(liveGot?.headers["x-slack-request-timestamp"]);
		expect(liveGot?.headers["x-slack-signature"]).toBe(
			signSlackRequest(fake.signingSecret, liveGot?.body ?? "", stamp)["x-slack-signature"],
		);
	});

	it("passes over a URL that refused or timed out for a while (a proxy's passive health check)", {
		timeout: 15_000,
	}, async () => {
		const live = await bot();
		const paused = await bot(true);
		servers.push(live.server, paused.server);
		// Always the first of the URLs it may pick from: the silent one while it is healthy.
		const sender = fake.balancer([paused.url, live.url], { answerTimeoutMs: 300, failMs: 1_500, random: () => 0 });
		const send = () => sender.command("/lesson", "start x", { user: "U1", channel: "C1" });
		expect((await send()).status).toBe(200);
		expect(sender.attempts.map((a) => a.outcome)).toEqual(["timeout", 200]);
		// Within failMs: straight to the live one.
		for (let i = 0; i < 3; i++) expect((await send()).status).toBe(200);
		expect(sender.attempts.slice(2).map((a) => a.url)).toEqual([live.url, live.url, live.url]);
		// After it: the silent one gets a delivery again.
		await new Promise((r) => setTimeout(r, 1_600));
		expect((await send()).status).toBe(200);
		expect(sender.attempts.slice(5).map((a) => [a.url, a.outcome])).toEqual([
			[paused.url, "timeout"],
			[live.url, 200],
		]);
	});

	it("fails a delivery no bot answers, after its attempts", async () => {
		const dead = `http://127.0.0.1:${await freePort()}/slack/events`;
		const sender = fake.balancer([dead], { maxAttempts: 3 });
		await expect(sender.command("/lesson", "start x", { user: "U1", channel: "C1" })).rejects.toThrow(
			/no bot answered after 3/,
		);
		expect(sender.attempts.map((a) => a.outcome)).toEqual(["refused", "refused", "refused"]);
	});
});
