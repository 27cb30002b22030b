import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doctorCommand, formatTable } from "../../src/cli/doctor.ts";
import { checkChromium, checkDiscord, checkSlack, checkStore } from "../../src/cli/doctor-checks.ts";
import { type FakeDiscord, startFakeDiscord } from "../../testkit/fakes/discord.ts";
import { type FakeSlack, startFakeSlack } from "../../testkit/fakes/slack.ts";
import { CLI_TEST_TIMEOUT_MS, runCli } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "lh-doctor-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rowOf = (stdout: string, name: string): string => stdout.split("\n").find((l) => l.startsWith(`${name} `)) ?? "";

describe("learnharness doctor (child process)", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
	it("passes on the default setup: demo model, SQLite store, Chromium with a test render", async () => {
		const run = await runCli(["doctor"], {
			cwd: dir,
			env: { LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "ok.sqlite")}` },
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
		});
		expect(run.code).toBe(1);
		expect(rowOf(run.stdout, "store")).toMatch(
			/FAIL\s+sqlite:\/\/.*a-file\/x\.sqlite: .*a-file is not a folder\. Fix: point LEARNHARNESS_STORE_URL at a file in a writable folder/,
		);
	});

	it("finishes (exit 1, the variable and the fix) on a SQLite path under /proc instead of hanging", async () => {
		const run = await runCli(["doctor"], {
			cwd: dir,
			env: { LEARNHARNESS_STORE_URL: "sqlite:///proc/lh/x.sqlite", PUPPETEER_EXECUTABLE_PATH: "/nonexistent" },
		});
		expect(run.code).toBe(1);
		expect(rowOf(run.stdout, "configuration")).toMatch(
			/FAIL\s+LEARNHARNESS_STORE_URL puts the SQLite file under \/proc/,
		);
		expect(rowOf(run.stdout, "store")).toMatch(/FAIL\s+LEARNHARNESS_STORE_URL is invalid/);
	});

	it("fails on a missing Chromium with how to get one, and skips the render", async () => {
		const run = await runCli(["doctor"], {
			cwd: dir,
			env: { LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "ok2.sqlite")}`, PUPPETEER_EXECUTABLE_PATH: "/nonexistent" },
		});
		expect(run.code).toBe(1);
		expect(rowOf(run.stdout, "chromium")).toMatch(
			/FAIL\s+No executable Chromium at \/nonexistent\. Fix: run `npm run setup`/,
		);
		expect(rowOf(run.stdout, "plan picture")).toMatch(/FAIL\s+needs Chromium/);
		expect(rowOf(run.stdout, "store")).toMatch(/ ok /);
	});
});

describe("doctor's platform checks against the Discord and Slack fakes (127.0.0.1)", () => {
	let discord: FakeDiscord;
	let slack: FakeSlack;
	beforeAll(async () => {
		discord = await startFakeDiscord();
		slack = await startFakeSlack();
	});
	afterAll(async () => {
		await discord.close();
		await slack.close();
	});

	it("Discord: accepts the bot's token, names the fix for a rejected one", async () => {
		expect(await checkDiscord({ token: discord.token, apiUrl: discord.apiUrl }, 5_000)).toMatchObject({
			status: "ok",
			detail: expect.stringMatching(new RegExp(`logged in as learnharness \\(${discord.bot.id}\\)`)),
		});
		expect(await checkDiscord({ token: "not-the-token", apiUrl: discord.apiUrl }, 5_000)).toMatchObject({
			status: "fail",
			detail: expect.stringMatching(/rejected the token \(401\).*DISCORD_TOKEN/),
		});
		expect(await checkDiscord(undefined, 5_000)).toMatchObject({ status: "skip" });
	});

	it("Slack: auth.test ok, and Slack's error with the fix", async () => {
		const base = { signingSecret: "s", port: 3000, adminUserIds: [], apiUrl: slack.apiUrl };
		expect(await checkSlack({ ...base, botToken: "xoxb-good" }, 5_000)).toMatchObject({
			status: "ok",
			detail: expect.stringMatching(/HTTP on port 3000/),
		});
		expect(await checkSlack({ ...base, botToken: "bad-token" }, 5_000)).toMatchObject({
			status: "fail",
			detail: expect.stringMatching(/invalid_auth.*SLACK_BOT_TOKEN/),
		});
	});

	it("the whole doctor exits 1 and names both platforms when their tokens are bad", async () => {
		const stdout = new PassThrough();
		let text = "";
		stdout.on("data", (c: Buffer) => {
			text += c.toString();
		});
		const code = await doctorCommand(
			{
				env: {
					LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "tokens.sqlite")}`,
					DISCORD_TOKEN: "not-the-token",
					DISCORD_API_URL: discord.apiUrl,
					SLACK_BOT_TOKEN: "bad-token",
					SLACK_SIGNING_SECRET: "s",
					SLACK_API_URL: slack.apiUrl,
				},
				stdin: new PassThrough(),
				stdout,
				stderr: new PassThrough(),
				dotenvPath: false,
			},
			{ timeoutMs: 20_000 },
		);
		expect(code).toBe(1);
		expect(rowOf(text, "discord")).toMatch(/FAIL\s+Discord rejected the token/);
		expect(rowOf(text, "slack")).toMatch(/FAIL\s+Slack said invalid_auth/);
		expect(rowOf(text, "configuration")).toMatch(/warn\s+warning: SLACK_BOT_TOKEN does not start with xoxb-/);
		expect(text).toMatch(/2 checks failed: discord, slack\./);
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
});

describe("doctor's store check", () => {
	it("writes, reads and deletes (memory backend)", async () => {
		expect(await checkStore("memory://", 5_000)).toMatchObject({ status: "ok" });
	});

	it("finishes on a SQLite path under /proc, where a recursive mkdir never returns", async () => {
		const result = await checkStore("sqlite:///proc/learnharness-doctor/x/y.sqlite", 5_000);
		expect(result).toMatchObject({ status: "fail", detail: expect.stringMatching(/under \/proc, a system folder/) });
		expect(existsSync("/proc/learnharness-doctor")).toBe(false);
	});

	it("creates a missing folder chain for a new SQLite file", async () => {
		const file = join(dir, "new", "deeper", "store.sqlite");
		expect(await checkStore(`sqlite://${file}`, 10_000)).toMatchObject({ status: "ok" });
		expect(existsSync(join(dir, "new", "deeper"))).toBe(true);
	});

	it("names an unreachable server without printing its password", async () => {
		const result = await checkStore("postgres://tutor:hunter2@127.0.0.1:1/learnharness", 5_000);
		expect(result.status).toBe("fail");
		expect(result.detail).toMatch(/^postgres:\/\/tutor:\*\*\*@127\.0\.0\.1:1\/learnharness: .*ECONNREFUSED/);
		expect(result.detail).toMatch(/Fix: .*server is running/);
		expect(result.detail).not.toMatch(/hunter2/);
	});
});

describe("doctor's Chromium check", () => {
	it("warns when the configured binary is not a Chromium (and keeps its output to one line)", async () => {
		const result = await checkChromium("/bin/true", 5_000);
		expect(result.status).toBe("warn");
		expect(result.detail).toMatch(/does not look like Chromium\. Fix: /);
		expect(result.detail).not.toMatch(/\n/);
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

	it("wraps long details to the terminal's width under the detail column", () => {
		const detail =
			"Discord rejected the token (401). Fix: reset the token (Developer Portal → Bot) and update DISCORD_TOKEN.";
		const lines = formatTable([{ name: "discord", status: "fail", detail }], 60).split("\n");
		expect(lines.length).toBeGreaterThan(3);
		for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
		for (const line of lines.slice(3)) expect(line).toMatch(/^ {17}\S/);
		expect(
			lines
				.slice(2)
				.map((l) => l.slice(17))
				.join(" "),
		).toBe(detail);
	});
});
