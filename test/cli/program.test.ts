import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliInvocation, processIo } from "../../src/cli/io.ts";
import { createProgram } from "../../src/cli/program.ts";
import { startFakeSlack } from "../../testkit/fakes/slack.ts";
import { bareEnv, CHILD_START_MS, startCli } from "../fixtures/child-process.ts";
import { CLI_TEST_TIMEOUT_MS, runCli } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "lh-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("learnharness --help", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
	it("lists the commands", async () => {
		const run = await runCli(["--help"], { cwd: dir });
		expect(run.code).toBe(0);
		for (const command of ["start", "playground", "review", "progress", "forget-me", "register-commands", "doctor"])
			expect(run.stdout).toContain(command);
	});

	it.each([
		["start", /adapter/],
		["playground", /--resume <id>[\s\S]*--topic[\s\S]*--mode[\s\S]*one answer a line/],
		["register-commands", /DISCORD_GUILD_ID/],
		["doctor", /--timeout/],
		["progress", /progress per topic[\s\S]*--language/],
		["forget-me", /--yes/],
	])("%s --help explains the command", async (command, pattern) => {
		// In-process (commander prints help, then exits: captured here instead).
		const program = createProgram(processIo(), () => undefined);
		let help = "";
		for (const c of [program, ...program.commands])
			c.exitOverride().configureOutput({
				writeOut: (text) => {
					help += text;
				},
			});
		await expect(program.parseAsync(["node", "learnharness", command, "--help"])).rejects.toMatchObject({
			code: "commander.helpDisplayed",
		});
		expect(help).toMatch(new RegExp(`^Usage: learnharness ${command}`));
		expect(help).toMatch(pattern);
	});

	it("rejects an unknown mode with the allowed ones", async () => {
		const run = await runCli(["playground", "--mode", "duo"], { cwd: dir });
		expect(run.code).not.toBe(0);
		expect(run.stderr).toMatch(/solo, group/);
	});
});

describe("learnharness start", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
	it("runs the playground when no platform is configured", async () => {
		const run = await runCli(["start"], {
			cwd: dir,
			env: { LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "start.sqlite")}` },
			input: "binary search\n/quit\n",
		});
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/No chat platform is configured/);
		// The hint names a command that works from here (no `learnharness` on the PATH after a clone).
		expect(run.stdout).toMatch(
			/Paused\. Resume with:\n {4}node \S+\/bin\/learnharness\.js playground --resume terminal:/,
		);
	});

	it("exits 1 with what to do when standard input is closed (CI, no terminal) instead of waiting", async () => {
		const run = await runCli(["start"], {
			cwd: dir,
			env: { LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "closed.sqlite")}` },
			input: "",
		});
		expect(run.code).toBe(1);
		expect(run.stdout).toMatch(/Standard input is not a terminal/);
		expect(run.stdout).toMatch(/Standard input ended before a topic arrived/);
		expect(run.stdout).toMatch(/playground` in a terminal/);
	});

	it("register-commands explains what is missing without a Discord token", async () => {
		const run = await runCli(["register-commands"], { cwd: dir });
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(/DISCORD_TOKEN is not set/);
	});

	it("starts the Slack adapter from the environment and stops gracefully on SIGTERM", async () => {
		const slack = await startFakeSlack();
		try {
			const env: Record<string, string> = {
				...bareEnv(dir),
				LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "slack.sqlite")}`,
				SLACK_BOT_TOKEN: "xoxb-test",
				SLACK_SIGNING_SECRET: slack.signingSecret,
				SLACK_API_URL: slack.apiUrl,
				PORT: "0",
				PUPPETEER_EXECUTABLE_PATH: "/nonexistent",
			};
			const cli = startCli(["start"], { cwd: dir, env });
			try {
				await slack.waitFor(
					() => cli.stderr().includes("learnharness is running"),
					"the running log line",
					CHILD_START_MS,
				);
				expect(await cli.stop("SIGTERM", 20_000)).toBe(0);
				const stderr = cli.stderr();
				expect(stderr).toMatch(/"adapter":"slack".*"msg":"adapter started"/);
				expect(stderr).toMatch(/shutting down/);
				expect(slack.callsTo("auth.test").length).toBeGreaterThan(0);
			} finally {
				cli.kill();
			}
		} finally {
			await slack.close();
		}
	}, 120_000);
});

describe("cliInvocation (the command named in hints)", () => {
	it("is npx under npm, the bare name when installed, else node and the script's path", () => {
		expect(cliInvocation({ npm_lifecycle_event: "start" }, "/repo/bin/learnharness.js")).toBe("npx learnharness");
		expect(cliInvocation({}, "/usr/local/bin/learnharness")).toBe("learnharness");
		expect(cliInvocation({}, join(process.cwd(), "bin", "learnharness.js"))).toBe("node bin/learnharness.js");
		expect(cliInvocation({}, "/elsewhere/my repo/bin/learnharness.js")).toBe(
			'node "/elsewhere/my repo/bin/learnharness.js"',
		);
	});
});
