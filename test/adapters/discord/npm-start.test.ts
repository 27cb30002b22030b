/**
 * `learnharness start` (what `npm start` runs) with DISCORD_TOKEN and
 * DISCORD_API_URL pointed at the fake Discord runs the built-in demo lesson
 * to its end: a child process, driven by a learner through the fake.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeDiscord, startFakeDiscord } from "../../fakes/discord.ts";
import { driveLesson } from "../../fixtures/discord/drive-lesson.ts";

let fake: FakeDiscord;
let child: ChildProcess | undefined;
let output = "";
const dir = mkdtempSync(join(tmpdir(), "lh-discord-start-"));

beforeAll(async () => {
	fake = await startFakeDiscord();
	child = spawn(process.execPath, ["bin/learnharness.js", "start"], {
		cwd: join(import.meta.dirname, "../../.."),
		env: {
			PATH: process.env.PATH ?? "",
			HOME: process.env.HOME ?? dir,
			DISCORD_TOKEN: fake.token,
			DISCORD_API_URL: fake.apiUrl,
			DISCORD_GUILD_ID: fake.guild.id,
			LEARNHARNESS_STORE_URL: `sqlite://${join(dir, "lh.sqlite")}`,
			LEARNHARNESS_MODEL: "demo",
		},
		stdio: ["ignore", "pipe", "pipe"],
	});
	const collect = (d: Buffer) => {
		output += d.toString();
	};
	child.stdout?.on("data", collect);
	child.stderr?.on("data", collect);
});

afterAll(async () => {
	if (child && child.exitCode === null) {
		const exited = new Promise<void>((resolve) => child?.once("exit", () => resolve()));
		child.kill("SIGTERM");
		const timer = setTimeout(() => child?.kill("SIGKILL"), 15_000);
		await exited;
		clearTimeout(timer);
	}
	await fake?.close();
	rmSync(dir, { recursive: true, force: true });
});

describe("npm start against the fake Discord", () => {
	it("registers /lesson and runs the demo lesson to the end in a thread", { timeout: 120_000 }, async () => {
		const lesson = await driveLesson(fake, {
			user: fake.users.learner,
			channelId: fake.ids.general,
			topic: "binary search",
			timeoutMs: 100_000,
		}).catch((error: unknown) => {
			throw new Error(`${String(error)}\n--- learnharness output ---\n${output.slice(-4000)}`);
		});
		expect(lesson.ended, output.slice(-4000)).toBe(true);
		expect(lesson.actions.some((id) => id.startsWith("lh:pick:"))).toBe(true);
		expect(lesson.actions.some((id) => id.startsWith("lh:open:"))).toBe(true);
		const pictures = fake
			.channelMessages(lesson.threadId)
			.flatMap((m) => m.attachments.filter((a) => a.filename === "plan.png"));
		expect(pictures.length).toBeGreaterThanOrEqual(2);
		for (const p of pictures) expect(PNG.sync.read(p.data).width).toBeGreaterThan(50);
		expect(fake.problems()).toEqual([]);
		expect(fake.calls.filter((c) => c.status >= 400).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
	});
});
