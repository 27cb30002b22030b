import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bareEnv, CHILD_START_MS, startCli } from "../fixtures/child-process.ts";
import { CLI_TEST_TIMEOUT_MS, runCli } from "./run-cli.ts";

/** Every answer of the demo lesson (probe: 3, teach: 4 nodes x predict + check). */
const ANSWERS = ["B", "C", "8", "B", "A", "B", "8", "B", "B", "A", "A"];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const dir = mkdtempSync(join(tmpdir(), "lh-cli-playground-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("learnharness playground (child process, demo model, scripted stdin)", {
	timeout: CLI_TEST_TIMEOUT_MS,
}, () => {
	it("runs the whole lesson: plan picture saved as a PNG, recap, exit 0", async () => {
		const cwd = mkdtempSync(join(dir, "run-"));
		const run = await runCli(["playground"], {
			cwd,
			env: { LEARNHARNESS_STORE_URL: `sqlite://${join(cwd, "store.sqlite")}` },
			// The first line is the topic (no --topic): what a new user types.
			input: ["binary search", ...ANSWERS].map((l) => `${l}\n`).join(""),
		});
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/built-in demo model/);
		const picture = /Plan picture: (\S+\.png)/.exec(run.stdout)?.[1];
		expect(picture).toMatch(/^data\/plans\/terminal-[a-z0-9]+-1\.png$/);
		const png = readFileSync(join(cwd, String(picture)));
		expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
		expect(run.stdout).toMatch(/Recap: binary search/);
		expect(run.stdout).toMatch(/Lesson complete/);
		expect(run.stdout).toMatch(/Tokens used: [\d,]+ input \([\d,]+ cached\) \+ [\d,]+ output\./); // the demo model reports rough usage
		// Logs went to the file, not the screen.
		expect(existsSync(join(cwd, "data/learnharness.log"))).toBe(true);
	});

	it("still teaches without Chromium: the outline stands in for the picture", async () => {
		const cwd = mkdtempSync(join(dir, "run-"));
		const run = await runCli(["playground", "--topic", "binary search"], {
			cwd,
			env: {
				LEARNHARNESS_STORE_URL: `sqlite://${join(cwd, "store.sqlite")}`,
				PUPPETEER_EXECUTABLE_PATH: "/nonexistent/chromium",
			},
			input: ANSWERS.map((l) => `${l}\n`).join(""),
		});
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/no picture: /);
		// These answers show the basics: the map skips them. The whole map, where the learner starts.
		expect(run.stdout).toMatch(/▶ Check the middle {2}← now\n {2}○ Shrink the range\n {2}○ Count the steps/);
		expect(run.stdout).toMatch(/Now: Check the middle · 0 of 3 visited/); // then where the learner is
		expect(run.stdout).toMatch(/Lesson complete/);
		expect(existsSync(join(cwd, "data/plans"))).toBe(false);
	});

	it("refuses a bad configuration with the variable and its fix, before doing anything", async () => {
		const run = await runCli(["playground"], { cwd: dir, env: { LEARNHARNESS_STORE_URL: "mysql://x" } });
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(/LEARNHARNESS_STORE_URL is not a store URL/);
		expect(run.stderr).toMatch(/Fix: /);
	});

	it("Ctrl+C while the tutor is thinking pauses at once with the resume command", async () => {
		// A model server that accepts connections and never answers: the tutor thinks forever.
		const silent = createServer(() => undefined);
		let asked = 0;
		silent.on("request", () => {
			asked++;
		});
		await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
		const port = (silent.address() as AddressInfo).port;
		const cwd = mkdtempSync(join(dir, "run-"));
		const env: Record<string, string> = {
			...bareEnv(cwd),
			NO_COLOR: "1",
			LEARNHARNESS_STORE_URL: `sqlite://${join(cwd, "store.sqlite")}`,
			OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
			LEARNHARNESS_MODEL: "slow-model",
			PUPPETEER_EXECUTABLE_PATH: "/nonexistent",
		};
		const cli = startCli(["playground", "--topic", "fractions"], { cwd, env, stdin: "pipe" });
		try {
			await until(() => cli.stdout().includes("Session terminal:") && asked > 0, CHILD_START_MS);
			expect(await cli.stop("SIGINT", 30_000)).toBe(0);
			expect(cli.stdout()).toMatch(
				/Paused\. Resume with:\n {4}node \S+learnharness\.js playground --resume terminal:[a-z0-9]+/,
			);
		} finally {
			cli.kill();
			silent.closeAllConnections();
			await new Promise<void>((resolve) => silent.close(() => resolve()));
		}
	}, 120_000);
});

/** Polls `check` every 50 ms until it holds; rejects after `ms`. */
async function until(check: () => boolean, ms: number): Promise<void> {
	const deadline = Date.now() + ms;
	while (!check()) {
		if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}
