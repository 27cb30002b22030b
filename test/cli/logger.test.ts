/**
 * The process logger writes stderr asynchronously (a full pipe must not hold the event loop: see
 * src/cli/logger.ts) and loses nothing on a normal exit: a child logs 20,000 lines while its parent
 * does not read its stderr at first, then exits with process.exit; every line arrives, in order.
 * And the sampled warning of the Discord client: one line per key per interval, counting the rest.
 */

import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sampledLog } from "../../src/adapters/discord/client.ts";
import { REPO_ROOT } from "../fixtures/child-process.ts";

describe("the process logger on stderr", () => {
	it("goes on while nobody reads stderr, and keeps every line when the process exits", {
		timeout: 60_000,
	}, async () => {
		const child = spawn(process.execPath, ["--import", "tsx", join("test", "fixtures", "scripts", "log-burst.ts")], {
			cwd: REPO_ROOT,
			env: { PATH: process.env.PATH ?? "", LINES: "20000" },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let out = "";
		// stderr is not read until the burst is over: its pipe (64 KB) fills after a few hundred lines. A
		// synchronous writer would block the child there (then no burst report: the wait below fails).
		child.stderr.pause();
		const reported = await new Promise<boolean>((resolve) => {
			const timer = setTimeout(() => resolve(false), 30_000);
			child.stdout.on("data", (chunk: Buffer) => {
				out += chunk.toString();
				if (out.includes("\n")) {
					clearTimeout(timer);
					resolve(true);
				}
			});
		});
		let err = "";
		child.stderr.on("data", (chunk: Buffer) => {
			err += chunk.toString();
		});
		child.stderr.resume();
		const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
		expect(reported, "the burst finished while stderr was not read").toBe(true);
		expect(code).toBe(0);
		expect(JSON.parse(out.trim())).toMatchObject({ logged: 20_000 });
		const numbers = err
			.split("\n")
			.filter((l) => l.includes('"burst"'))
			.map((l) => (JSON.parse(l) as { i: number }).i);
		expect(numbers.length).toBe(20_000);
		expect(numbers.every((n, k) => n === k)).toBe(true);
	});
});

describe("sampledLog", () => {
	it("logs a key once per interval and says how many it left out", () => {
		let now = 0;
		const lines: Array<[string, number]> = [];
		const log = sampledLog(10_000, () => now);
		for (let i = 0; i < 5; i++) log("global", (skipped) => lines.push(["global", skipped]));
		log("route", (skipped) => lines.push(["route", skipped]));
		now = 10_000;
		log("global", (skipped) => lines.push(["global", skipped]));
		expect(lines).toEqual([
			["global", 0],
			["route", 0],
			["global", 4],
		]);
	});
});
