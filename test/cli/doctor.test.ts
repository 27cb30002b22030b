import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatTable } from "../../src/cli/doctor.ts";
import { checkDiscord, checkSlack, checkStore } from "../../src/cli/doctor-checks.ts";
import { runCli } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "lh-doctor-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rowOf = (stdout: string, name: string): string => stdout.split("\n").find((l) => l.startsWith(`${name} `)) ?? "";

describe("learnharness doctor (child process)", () => {
	it("passes on the default setup: demo model, SQLite store, Chromium with a test render", async () => {
		const run = await runCli(["doctor"], {
			cwd: dir,
			env: { LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "ok.sqlite")}` },
			timeoutMs: 90_000,
		});
		expect(run.stdout).toMatch(/All checks passed/);
		expect(rowOf(run.stdout, "plan picture")).toMatch(/ ok .*test render \d+ bytes/);
		expect(rowOf(run.stdout, "store")).toMatch(/ ok .*write, read, delete/);
		expect(rowOf(run.stdout, "discord")).toMatch(/ skip /);
		expect(run.code).toBe(0);
	});

	it("fails on a store URL that is not one, naming the variable and the fix", async () => {
		const run = await runCli(["doctor"], {
			cwd: dir,
			env: { LEARNHARNESS_STORE_URL: "mysql://127.0.0.1/x", PUPPETEER_EXECUTABLE_PATH: "/usr/bin/chromium" },
			timeoutMs: 90_000,
		});
		expect(run.code).toBe(1);
		expect(rowOf(run.stdout, "configuration")).toMatch(/FAIL\s+LEARNHARNESS_STORE_URL is not a store URL.*Fix: /);
		expect(rowOf(run.stdout, "store")).toMatch(/FAIL\s+LEARNHARNESS_STORE_URL is invalid/);
		// The other checks still ran.
		expect(rowOf(run.stdout, "chromium")).toMatch(/ ok /);
		expect(run.stdout).toMatch(/check(s)? failed: configuration, store/);
	});

	it("fails on a store that cannot be written (its folder is a file)", async () => {
		writeFileSync(join(dir, "a-file"), "x");
		const run = await runCli(["doctor"], {
			cwd: dir,
			env: {
				LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "a-file", "x.sqlite")}`,
				PUPPETEER_EXECUTABLE_PATH: "/nonexistent",
			},
			timeoutMs: 60_000,
		});
		expect(run.code).toBe(1);
		expect(rowOf(run.stdout, "store")).toMatch(/FAIL\s+sqlite:\/\/.*a-file.*Fix: check LEARNHARNESS_STORE_URL/);
	});

	it("fails on a missing Chromium with how to get one, and skips the render", async () => {
		const run = await runCli(["doctor"], {
			cwd: dir,
			env: { LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "ok2.sqlite")}`, PUPPETEER_EXECUTABLE_PATH: "/nonexistent" },
			timeoutMs: 60_000,
		});
		expect(run.code).toBe(1);
		expect(rowOf(run.stdout, "chromium")).toMatch(
			/FAIL\s+No executable Chromium at \/nonexistent\. Fix: run `npm run setup`/,
		);
		expect(rowOf(run.stdout, "plan picture")).toMatch(/FAIL\s+needs Chromium/);
		expect(rowOf(run.stdout, "store")).toMatch(/ ok /);
	});
});

describe("doctor's platform checks against fakes on 127.0.0.1", () => {
	let server: Server;
	let base = "";
	beforeAll(async () => {
		server = createServer((req, res) => {
			const auth = req.headers.authorization ?? "";
			res.setHeader("content-type", "application/json");
			if (req.url === "/api/v10/users/@me") {
				if (auth !== "Bot good") {
					res.statusCode = 401;
					res.end(JSON.stringify({ message: "401: Unauthorized", code: 0 }));
					return;
				}
				res.end(JSON.stringify({ id: "42", username: "tutorbot", bot: true }));
				return;
			}
			if (req.url === "/slack/auth.test") {
				res.end(
					JSON.stringify(
						auth === "Bearer xoxb-good"
							? { ok: true, team: "Acme", user: "tutor" }
							: { ok: false, error: "invalid_auth" },
					),
				);
				return;
			}
			res.statusCode = 404;
			res.end("{}");
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

	it("Discord: accepts a good token, names the fix for a rejected one", async () => {
		expect(await checkDiscord({ token: "good", apiUrl: `${base}/api` }, 5_000)).toMatchObject({
			status: "ok",
			detail: expect.stringMatching(/tutorbot \(42\)/),
		});
		expect(await checkDiscord({ token: "bad", apiUrl: `${base}/api` }, 5_000)).toMatchObject({
			status: "fail",
			detail: expect.stringMatching(/rejected the token.*DISCORD_TOKEN/),
		});
		expect(await checkDiscord(undefined, 5_000)).toMatchObject({ status: "skip" });
	});

	it("Slack: auth.test ok, and Slack's error with the fix", async () => {
		const slack = { signingSecret: "s", port: 3000, adminUserIds: [], apiUrl: `${base}/slack` };
		expect(await checkSlack({ ...slack, botToken: "xoxb-good" }, 5_000)).toMatchObject({
			status: "ok",
			detail: expect.stringMatching(/bot tutor in Acme; HTTP on port 3000/),
		});
		expect(await checkSlack({ ...slack, botToken: "xoxb-bad" }, 5_000)).toMatchObject({
			status: "fail",
			detail: expect.stringMatching(/invalid_auth.*SLACK_BOT_TOKEN/),
		});
	});

	it("a platform that does not answer fails within the time limit", async () => {
		const silent = createServer(() => undefined);
		await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
		const port = (silent.address() as AddressInfo).port;
		try {
			const result = await checkDiscord({ token: "t", apiUrl: `http://127.0.0.1:${port}/api` }, 300);
			expect(result.status).toBe("fail");
		} finally {
			silent.closeAllConnections();
			await new Promise<void>((resolve) => silent.close(() => resolve()));
		}
	});

	it("the store check writes, reads and deletes (memory backend)", async () => {
		expect(await checkStore("memory://", 5_000)).toMatchObject({ status: "ok" });
	});
});

describe("formatTable", () => {
	it("aligns rows and indents multi-line details", () => {
		const table = formatTable([
			{ name: "configuration", status: "fail", detail: "A is bad\nB is bad" },
			{ name: "store", status: "ok", detail: "fine" },
		]);
		const lines = table.split("\n");
		expect(lines[2]).toMatch(/^configuration {2}FAIL {4}A is bad$/);
		expect(lines[3]).toMatch(/^ {23}B is bad$/);
		expect(lines[4]).toMatch(/^store {10}ok {6}fine$/);
	});
});
