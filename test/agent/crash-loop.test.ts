/**
 * No crash loop: a question whose post kills the process (a formula that ran MathJax out of
 * memory did, at every start) is offered again at most twice: as asked, then as text (math as
 * code); after that it is not offered again and the learner is told to type something. The
 * count of offers is saved before each offer, so the start after a killed one sees it.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { createSessionStore } from "../../src/agent/store/session-store.ts";
import { t } from "../../src/i18n/index.ts";
import { CHILD_START_MS } from "../fixtures/child-process.ts";
import { tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/** One child process: how it ended (signal or code) and the JSON lines it wrote. Bounded: CHILD_START_MS, then SIGKILL. */
function run(script: string, args: string[]): Promise<{ end: NodeJS.Signals | number | null; lines: unknown[] }> {
	return new Promise((done) => {
		const child = spawn(process.execPath, ["--import", "tsx", fixture(script), ...args], {
			stdio: ["ignore", "pipe", "ignore"],
		});
		let out = "";
		child.stdout.on("data", (chunk: Buffer) => {
			out += chunk.toString("utf8");
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_START_MS);
		child.on("close", (code, signal) => {
			clearTimeout(timer);
			const lines = out
				.split("\n")
				.filter((l) => l.trim() !== "")
				.map((l) => JSON.parse(l) as unknown);
			done({ end: signal ?? code, lines });
		});
	});
}

/** A lesson whose quiz q1 was saved, and whose process was killed before it was posted. */
async function unposted(file: string, sessionId: string): Promise<void> {
	expect((await run("crash-before-post.ts", [file, sessionId])).end).toBe("SIGKILL");
	const store = await createSessionStore(`sqlite://${file}`);
	expect((await store.get(sessionId))?.unpublished).toEqual(["q1"]);
	await store.close();
}

it("a question whose post kills the process is re-posted as text at the second start, and the process lives", {
	timeout: 5 * CHILD_START_MS,
}, async () => {
	const file = `${dir.path}/rich.sqlite`;
	await unposted(file, "terminal:kills-rich");
	// Start 1: offered as asked; drawing it kills the process again.
	expect(await run("crash-on-repost.ts", [file, "rich"])).toEqual({
		end: "SIGKILL",
		lines: [{ type: "quiz", toolCallId: "q1", plain: false }],
	});
	// Start 2: offered as text (no pictures), which posts: the process lives.
	expect(await run("crash-on-repost.ts", [file, "rich"])).toEqual({
		end: 0,
		lines: [{ type: "quiz", toolCallId: "q1", plain: true }],
	});
	// Start 3: it is out; nothing is offered again.
	expect(await run("crash-on-repost.ts", [file, "rich"])).toEqual({ end: 0, lines: [] });
	const store = await createSessionStore(`sqlite://${file}`);
	const record = await store.get("terminal:kills-rich");
	expect(record?.unpublished).toBeUndefined();
	expect(record?.reposted).toBeUndefined();
	await store.close();
});

it("a question whose every post kills the process is given up after two offers, and the learner is told", {
	timeout: 5 * CHILD_START_MS,
}, async () => {
	const file = `${dir.path}/any.sqlite`;
	const sessionId = "terminal:kills-any";
	await unposted(file, sessionId);
	expect((await run("crash-on-repost.ts", [file, "any"])).end).toBe("SIGKILL");
	expect(await run("crash-on-repost.ts", [file, "any"])).toEqual({
		end: "SIGKILL",
		lines: [{ type: "quiz", toolCallId: "q1", plain: true }],
	});
	expect(await run("crash-on-repost.ts", [file, "any"])).toEqual({
		end: 0,
		lines: [{ type: "error", code: "cut-off", message: t("en", "engine.cutOff") }],
	});
	expect(await run("crash-on-repost.ts", [file, "any"])).toEqual({ end: 0, lines: [] });
	const store = await createSessionStore(`sqlite://${file}`);
	const record = await store.get(sessionId);
	expect(record?.unpublished).toBeUndefined();
	// The question stays open: the learner's next message reaches the tutor.
	expect(record?.ended).toBeUndefined();
	await store.close();
});
