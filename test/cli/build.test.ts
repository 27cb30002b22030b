/**
 * The production start: `npm run build` bundles the CLI (here into a folder of its own
 * inside node_modules/.cache, so a dist/ of the developer's is left alone), and the
 * bundle runs a whole demo lesson in the playground, prompts and all, like the sources do.
 */

import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../fixtures/child-process.ts";
import { CLI_TEST_TIMEOUT_MS, runCli } from "./run-cli.ts";

const run = promisify(execFile);
const out = join(REPO_ROOT, "node_modules", ".cache", `lh-build-test-${process.pid}`);
const dir = mkdtempSync(join(tmpdir(), "lh-build-"));
afterAll(() => {
	rmSync(out, { recursive: true, force: true });
	rmSync(dir, { recursive: true, force: true });
});

/** Every answer of the demo lesson (as in playground-cli.test.ts). */
const ANSWERS = ["B", "C", "8", "B", "A", "B", "8", "B", "B", "A", "A"];

describe("npm run build", () => {
	it("bundles the CLI, and the bundle teaches a whole demo lesson", { timeout: 2 * CLI_TEST_TIMEOUT_MS }, async () => {
		const built = await run(process.execPath, ["--import", "tsx", "scripts/build.ts", "--outdir", out], {
			cwd: REPO_ROOT,
			timeout: CLI_TEST_TIMEOUT_MS,
		});
		expect(built.stdout).toMatch(/cli\.js and \d+ chunks/);
		for (const file of ["cli.js", "typeset-worker.js", "BUILT", "prober.md", "teacher.md"])
			expect(existsSync(join(out, file))).toBe(true);
		// The bundle's math renderer (dist/math.js, sharing the CLI's chunks) finds its worker beside it and draws there.
		const name = "createMathRenderer";
		const chunk = "math.js";
		expect(existsSync(join(out, chunk))).toBe(true);
		const drawn = await run(
			process.execPath,
			[
				"--input-type=module",
				"-e",
				`const { ${name} } = await import(${JSON.stringify(join(out, chunk))});
const math = createMathRenderer();
const r = await math.render("x^2 + \\\\frac{1}{2}", true);
await math.close();
console.log(r.ok ? r.png.subarray(0, 4).toString("hex") : r.error, math.stats().workers);`,
			],
			{ cwd: dir, timeout: CLI_TEST_TIMEOUT_MS },
		);
		expect(drawn.stdout.trim()).toBe("89504e47 1");
		const lesson = await runCli(["playground", "--topic", "binary search"], {
			entry: join(out, "cli.js"),
			cwd: dir,
			env: {
				LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "store.sqlite")}`,
				PUPPETEER_EXECUTABLE_PATH: "/nonexistent/chromium", // the outline stands in: no browser needed here
			},
			input: ANSWERS.map((l) => `${l}\n`).join(""),
		});
		expect(lesson.code, lesson.stderr).toBe(0);
		expect(lesson.stdout).toMatch(/Recap: binary search/);
		expect(lesson.stdout).toMatch(/Lesson complete/);
	});
});
