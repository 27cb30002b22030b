import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.ts";

/** Every answer of the demo lesson (probe: 3, teach: 4 nodes x predict + check). */
const ANSWERS = ["B", "C", "8", "B", "A", "B", "8", "B", "B", "A", "A"];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const dir = mkdtempSync(join(tmpdir(), "lh-cli-playground-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("learnharness playground (child process, demo model, scripted stdin)", () => {
	it("runs the whole lesson: plan picture saved as a PNG, recap, exit 0", async () => {
		const cwd = mkdtempSync(join(dir, "run-"));
		const run = await runCli(["playground"], {
			cwd,
			env: { LEARNHARNESS_STORE_URL: `sqlite://${join(cwd, "store.sqlite")}` },
			// The first line is the topic (no --topic): what a new user types.
			input: ["binary search", ...ANSWERS].map((l) => `${l}\n`).join(""),
			timeoutMs: 120_000,
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
			timeoutMs: 120_000,
		});
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/no picture: /);
		expect(run.stdout).toMatch(/▶ Sorted input/);
		expect(run.stdout).toMatch(/Lesson complete/);
		expect(existsSync(join(cwd, "data/plans"))).toBe(false);
	});

	it("refuses a bad configuration with the variable and its fix, before doing anything", async () => {
		const run = await runCli(["playground"], { cwd: dir, env: { LEARNHARNESS_STORE_URL: "mysql://x" } });
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(/LEARNHARNESS_STORE_URL is not a store URL/);
		expect(run.stderr).toMatch(/Fix: /);
	});
});
