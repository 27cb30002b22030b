/**
 * A bot killed with SIGKILL (a crash, the OOM killer, a supervisor's kill -9) leaves no Chromium behind.
 * Launched over a WebSocket, the browser outlived its parent, re-parented to init with its ~200 MB: a
 * crash-looping bot piled them up (bench:scale's kill -9 left one per run). Over a pipe it exits with it.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { DEFAULT_CHROMIUM_PATH } from "../../src/render/chromium.ts";
import { CHILD_START_MS } from "../fixtures/child-process.ts";

const HOLDER = fileURLToPath(new URL("../fixtures/chromium-holder.ts", import.meta.url));

/** The pid's process still runs (and is no zombie). */
function alive(pid: number): boolean {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
	} catch {
		return false;
	}
}

it.skipIf(!existsSync(DEFAULT_CHROMIUM_PATH))(
	"Chromium exits when the process that launched it is killed with SIGKILL",
	{ timeout: 2 * CHILD_START_MS },
	async () => {
		const child = spawn(process.execPath, ["--import", "tsx", HOLDER], { stdio: ["ignore", "pipe", "inherit"] });
		const guard = setTimeout(() => child.kill("SIGKILL"), CHILD_START_MS);
		try {
			const pid = await new Promise<number>((done, fail) => {
				let out = "";
				child.stdout.on("data", (chunk: Buffer) => {
					out += chunk.toString();
					if (out.includes("\n")) done(Number(out.trim()));
				});
				child.on("exit", (code) => fail(new Error(`the holder exited (${code}) before launching Chromium`)));
			});
			expect(pid).toBeGreaterThan(0);
			expect(alive(pid)).toBe(true);
			const exited = new Promise((done) => child.on("exit", done));
			child.kill("SIGKILL");
			await exited;
			// Chromium notices the closed pipe and shuts down: bounded by a count of looks, 60 s in all at most.
			for (let i = 0; i < 600 && alive(pid); i++) await new Promise((done) => setTimeout(done, 100));
			const left = alive(pid);
			if (left) process.kill(pid, "SIGKILL");
			expect(left).toBe(false);
		} finally {
			clearTimeout(guard);
			child.kill("SIGKILL");
		}
	},
);
