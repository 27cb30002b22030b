import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI_TEST_TIMEOUT_MS, runCli } from "./run-cli.ts";

/** Every answer of the demo lesson (as in playground-cli.test.ts). */
const ANSWERS = ["B", "C", "8", "B", "A", "B", "8", "B", "B", "A", "A"];

const dir = mkdtempSync(join(tmpdir(), "lh-cli-profile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("lessons across lessons in the terminal (child processes, demo model, one store)", () => {
	it("a second lesson's prober says what it skips from the first; review says when items fall due", {
		timeout: 3 * CLI_TEST_TIMEOUT_MS,
	}, async () => {
		const cwd = mkdtempSync(join(dir, "run-"));
		const env = {
			LEARNHARNESS_STORE_URL: `sqlite://${join(cwd, "store.sqlite")}`,
			PUPPETEER_EXECUTABLE_PATH: "/nonexistent/chromium",
		};
		const first = await runCli(["playground", "--topic", "binary search"], {
			cwd,
			env,
			input: ANSWERS.map((l) => `${l}\n`).join(""),
		});
		expect(first.code).toBe(0);
		expect(first.stdout).toMatch(/Lesson complete/);
		expect(first.stdout).not.toMatch(/Welcome back/);

		const second = await runCli(["playground", "--topic", "binary search on answers"], {
			cwd,
			env,
			input: "/quit\n",
		});
		expect(second.stdout).toMatch(
			/Welcome back! In our lesson on binary search \(\d{4}-\d\d-\d\d\) you showed you know /,
		);

		const review = await runCli(["review"], { cwd, env, input: "" });
		expect(review.code).toBe(0);
		expect(review.stdout).toMatch(/Nothing is due\. Next review: (tomorrow|in \d+ days)/);
	});
});
