/**
 * /healthz and /readyz: unit checks of the endpoints (ready, not ready with the failing
 * check named, a check that never answers, draining), then `learnharness start` against
 * the fake Slack: both endpoints on Slack's port and on a port of their own, and SIGTERM
 * in the middle of a lesson: /readyz says "draining", the process exits 0 with no error.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createMemoryStateStore } from "../../src/agent/index.ts";
import { createHealth, type ReadinessCheck } from "../../src/cli/health.ts";
import { silentLogger } from "../../src/core/contracts/logger.ts";
import { startFakeSlack } from "../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { FakeTutor } from "../adapters/lesson/fake-tutor.ts";
import { startAdapter } from "../adapters/slack/harness.ts";
import { bareEnv, CHILD_START_MS, REPO_ROOT, startCli } from "../fixtures/child-process.ts";

async function get(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
	const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
	return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Poll `predicate` every 50 ms, at most `ms` (bounded). */
async function until<T>(predicate: () => Promise<T | undefined> | T | undefined, label: string, ms = CHILD_START_MS) {
	const deadline = Date.now() + ms;
	for (;;) {
		const v = await predicate();
		if (v !== undefined) return v;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

describe("health endpoints", () => {
	it("answers alive, ready, not ready (naming the check), and draining", async () => {
		let storeOk = true;
		const checks: ReadinessCheck[] = [
			{ name: "store", check: async () => ({ ok: storeOk, detail: storeOk ? "ok" : "down" }) },
			{ name: "platform", check: async () => ({ ok: true, detail: "connected" }) },
		];
		const health = createHealth(silentLogger, checks);
		const port = await health.listen(0, "127.0.0.1");
		const base = `http://127.0.0.1:${port}`;
		try {
			expect(await get(`${base}/healthz`)).toEqual({ status: 200, body: { status: "alive" } });
			expect(await get(`${base}/readyz`)).toEqual({
				status: 200,
				body: { status: "ready", checks: { store: "ok", platform: "connected" } },
			});
			storeOk = false;
			expect(await get(`${base}/readyz`)).toEqual({
				status: 503,
				body: { status: "not ready", checks: { store: "down", platform: "connected" } },
			});
			// Only the failing check is named as the reason (a shard manager reports its children by it).
			expect((await health.status()).failing).toEqual(["store"]);
			storeOk = true;
			health.add({ name: "wedged", check: () => new Promise(() => {}) });
			expect((await get(`${base}/readyz`)).body.checks).toMatchObject({ wedged: "no answer in time" });
			health.drain();
			expect((await get(`${base}/readyz`)).status).toBe(503);
			expect((await get(`${base}/readyz`)).body.status).toBe("draining");
			expect((await get(`${base}/healthz`)).status).toBe(200);
			expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
		} finally {
			await health.close();
		}
	});
});

describe("health endpoints on Slack's HTTP port", () => {
	it("are served beside /slack/events, and readiness follows the adapter", async () => {
		const fake = await startFakeSlack();
		const health = createHealth(silentLogger);
		const running = await startAdapter(fake, {
			tutor: new FakeTutor(),
			renderer: stubRenderer(undefined),
			state: createMemoryStateStore(),
			httpRoutes: health.routes(),
		});
		health.add({
			name: "platform",
			check: async () => ({ ok: running.adapter.ready(), detail: running.adapter.ready() ? "connected" : "down" }),
		});
		try {
			const base = `http://127.0.0.1:${running.adapter.port()}`;
			expect(await get(`${base}/healthz`)).toEqual({ status: 200, body: { status: "alive" } });
			expect(await get(`${base}/readyz`)).toEqual({
				status: 200,
				body: { status: "ready", checks: { platform: "connected" } },
			});
		} finally {
			await running.adapter.stop();
			await fake.close();
		}
		expect(running.adapter.ready()).toBe(false);
	});
});

describe("learnharness start: health and SIGTERM", { timeout: 120_000 }, () => {
	const dir = mkdtempSync(join(tmpdir(), "lh-health-"));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("serves /healthz and /readyz on Slack's port and its own, and drains on SIGTERM", async () => {
		const fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		const cli = startCli(["start"], {
			cwd: REPO_ROOT,
			env: {
				...bareEnv(dir),
				SLACK_BOT_TOKEN: "xoxb-test",
				SLACK_SIGNING_SECRET: fake.signingSecret,
				SLACK_API_URL: fake.apiUrl,
				PORT: "0",
				LEARNHARNESS_HEALTH_PORT: "0",
				LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "lh.sqlite")}`,
				LEARNHARNESS_MODEL: "demo",
			},
		});
		try {
			const portOf = (msg: string) => () => {
				const line = cli
					.output()
					.split("\n")
					.find((l) => l.includes(`"msg":"${msg}"`));
				return line ? (JSON.parse(line) as { port?: number }).port : undefined;
			};
			const slackPort = await until(portOf("slack: adapter started"), "Slack's port");
			const healthPort = await until(portOf("health endpoints listening (/healthz, /readyz)"), "the health port");
			const own = `http://127.0.0.1:${healthPort}`;
			expect((await get(`${own}/healthz`)).status).toBe(200);
			// Ready once Chromium is warm (or known absent) and Slack listens.
			const ready = await until(async () => {
				const r = await get(`${own}/readyz`);
				return r.status === 200 ? r.body : undefined;
			}, "readiness");
			expect(ready).toMatchObject({
				status: "ready",
				checks: { store: "ok", platform: "connected", turns: expect.stringMatching(/^\d+ running, \d+ waiting \(/) },
			});
			// With a port of their own they are not on Slack's (a 404 from Bolt).
			expect((await fetch(`http://127.0.0.1:${slackPort}/healthz`)).status).toBe(404);

			// A lesson is running when SIGTERM comes.
			const sender = fake.sender(`http://127.0.0.1:${slackPort}/slack/events`);
			expect((await sender.command("/lesson", "start fractions", { user: "U1", channel: "C1" })).status).toBe(200);
			await fake.waitFor(() => fake.callsTo("chat.postMessage").length > 0, "the lesson's first post", 30_000);
			cli.child.kill("SIGTERM");
			const draining = await until(async () => {
				const r = await get(`${own}/readyz`).catch(() => undefined);
				return r?.status === 503 ? r.body.status : undefined;
			}, "draining");
			expect(draining).toBe("draining");
			// One signal only (a second one means "out now").
			expect(await until(() => cli.child.exitCode ?? undefined, "the exit")).toBe(0);
			expect(cli.output()).toContain('"msg":"shutting down"');
			expect(cli.output()).not.toMatch(/"level":(50|60)/); // no error or fatal lines
		} finally {
			cli.kill();
			await fake.close();
		}
	});
});
