/**
 * Operators read sentences, not logs: when `learnharness start` cannot start (a store that is
 * not a database, an unreachable Redis, a platform that refuses the connection) it prints one
 * line per problem with the fix, points at the log file for the details, exits non-zero within
 * seconds, and never prints pino JSON or a stack trace to the terminal. `doctor` reports a
 * refused connection at once instead of waiting out its time limit.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import { checkModel, checkStore } from "../../src/cli/doctor-checks.ts";
import { loadConfig } from "../../src/config.ts";
import { freePort } from "../fixtures/redis-server.ts";
import { CLI_TEST_TIMEOUT_MS, runCli } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "lh-start-fail-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** No JSON log line and no stack frame on the terminal. */
function readable(stderr: string): void {
	expect(stderr).not.toMatch(/^\{"level"/m);
	expect(stderr).not.toMatch(/^\s+at /m);
	expect(stderr).not.toMatch(/SQLITE_MISUSE/);
}

describe("learnharness start that cannot start", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
	it("a store file that is not a database: one sentence with the fix, details in the log, exit 1", async () => {
		const cwd = mkdtempSync(join(dir, "notadb-"));
		writeFileSync(join(cwd, "notes.sqlite"), "not a database\n".repeat(100));
		const port = await freePort();
		const run = await runCli(["start"], {
			cwd,
			env: {
				LEARNHARNESS_STORE_URL: "sqlite://./notes.sqlite",
				DISCORD_TOKEN: "abc.def.ghi",
				DISCORD_API_URL: `http://127.0.0.1:${port}/api`,
			},
		});
		expect(run.code).toBe(1);
		readable(run.stderr);
		expect(run.stderr).toMatch(
			/^learnharness could not start: The store at sqlite:\/\/\.\/notes\.sqlite cannot be used: SQLITE_NOTADB: file is not a database\. Check LEARNHARNESS_STORE_URL/m,
		);
		expect(run.stderr).toMatch(/Details are in data\/learnharness\.log; `.*doctor` checks the whole setup\./);
		const log = readFileSync(join(cwd, "data", "learnharness.log"), "utf8");
		expect(log).toMatch(/"stack":"StoreError/); // the details live in the log file
	});

	it("a SQLite store another process holds: refused at start, naming the process and the way out", async () => {
		const cwd = mkdtempSync(join(dir, "locked-"));
		mkdirSync(join(cwd, "data"));
		// Another process (a stand-in that only sleeps) holds the store's lock file.
		// It lives until killed below: a stand-in that ended by itself (it slept 60 s) left a stale lock when a busy
		// machine took longer than that to start the CLI, and the start then took the store over.
		const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" });
		try {
			writeFileSync(join(cwd, "data", "lh.sqlite.lock"), `${other.pid}\n`);
			const port = await freePort();
			const run = await runCli(["start"], {
				cwd,
				env: {
					LEARNHARNESS_STORE_URL: "sqlite://./data/lh.sqlite",
					DISCORD_TOKEN: "abc.def.ghi",
					DISCORD_API_URL: `http://127.0.0.1:${port}/api`,
				},
			});
			expect(run.code).toBe(1);
			readable(run.stderr);
			expect(run.stderr).toMatch(
				new RegExp(
					`^learnharness could not start: The SQLite store \\./data/lh\\.sqlite is already used by another learnharness process \\(pid ${other.pid}\\)\\. A SQLite store serves one process`,
					"m",
				),
			);
			expect(run.stderr).not.toMatch(/Check LEARNHARNESS_STORE_URL, and that the store's server is running/);
		} finally {
			other.kill();
		}
		// Once that process is gone its lock is stale: the next start takes it over.
		for (let i = 0; i < 100 && other.exitCode === null && other.signalCode === null; i++)
			await new Promise((done) => setTimeout(done, 20));
		const store = await createSessionStore(`sqlite://${join(cwd, "data", "lh.sqlite")}`);
		expect(readFileSync(join(cwd, "data", "lh.sqlite.lock"), "utf8").trim()).toBe(String(process.pid));
		await store.close();
		expect(existsSync(join(cwd, "data", "lh.sqlite.lock"))).toBe(false);
	});

	it("an unreachable Redis fails in seconds, naming the refused address", async () => {
		const port = await freePort();
		const timed = async (storeUrl: string) => {
			const started = Date.now();
			const run = await runCli(["start"], {
				cwd: dir,
				env: { LEARNHARNESS_STORE_URL: storeUrl, SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s" },
			});
			return { run, ms: Date.now() - started };
		};
		// The same start failing at its store with no connection at all (a SQLite file under a file, not a folder): what
		// loading the program and opening a store costs here, now.
		writeFileSync(join(dir, "not-a-folder"), "");
		const baseline = await timed("sqlite://./not-a-folder/lh.sqlite");
		expect(baseline.run.stderr).toMatch(/not-a-folder is not a folder/);
		const { run, ms } = await timed(`redis://127.0.0.1:${port}`);
		expect(run.code).toBe(1);
		readable(run.stderr);
		expect(run.stderr).toMatch(new RegExp(`cannot be used: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\.`));
		// A hang guard (it used to wait 75 s and more, on timers a busy machine does not slow): measured against
		// the baseline, so a slow start on a busy machine counts on both sides.
		expect(ms - baseline.ms).toBeLessThan(45_000);
	});

	it("a platform that refuses the connection: its sentence, exit 1", async () => {
		const cwd = mkdtempSync(join(dir, "discord-"));
		const port = await freePort();
		const run = await runCli(["start"], {
			cwd,
			env: {
				LEARNHARNESS_STORE_URL: "sqlite://./lh.sqlite",
				DISCORD_TOKEN: "abc.def.ghi",
				DISCORD_API_URL: `http://127.0.0.1:${port}/api`,
			},
		});
		expect(run.code).toBe(1);
		readable(run.stderr);
		expect(run.stderr).toMatch(/^learnharness could not start: Discord: could not connect .*Check DISCORD_API_URL/m);
		expect(existsSync(join(cwd, "data", "learnharness.log"))).toBe(true);
	});
});

describe("doctor on a refused connection", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
	it("reports the store at once (no wait for the time limit)", async () => {
		const port = await freePort();
		const started = Date.now();
		const result = await checkStore(`redis://127.0.0.1:${port}`, 20_000);
		expect(result).toMatchObject({ status: "fail" });
		expect(result.detail).toMatch(new RegExp(`^redis://127\\.0\\.0\\.1:${port}: connect ECONNREFUSED`));
		expect(Date.now() - started).toBeLessThan(10_000); // far under the 20 s limit it was given
	});

	it("reports the model server at once, naming it", async () => {
		const port = await freePort();
		const { config } = loadConfig({
			env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, LEARNHARNESS_MODEL: "m" },
			dotenvPath: false,
		});
		const started = Date.now();
		const result = await checkModel(config, 20_000);
		expect(result.status).toBe("fail");
		expect(result.detail).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}`));
		expect(Date.now() - started).toBeLessThan(10_000);
	});
});
