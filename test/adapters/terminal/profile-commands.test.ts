/**
 * `learnharness progress` and `learnharness forget-me` through the terminal port: the progress
 * summary (and its picture saved as a PNG), and forget-me that deletes only with --yes (without
 * it, it says what would go and how).
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import Keyv from "keyv";
import { afterAll, describe, expect, it } from "vitest";
import { runTerminalForget, runTerminalProgress } from "../../../src/adapters/terminal/index.ts";
import { createLearning, createMemoryStateStore, sessionStoreOnKeyv } from "../../../src/agent/index.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { fractionsRecord } from "../../fixtures/profile-lesson.ts";

const noTutor = { subscribe: () => () => {}, idle: async () => {} } as unknown as Tutor;
const dir = mkdtempSync(join(tmpdir(), "lh-terminal-profile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function setup() {
	const sessions = sessionStoreOnKeyv(new Keyv());
	const record = fractionsRecord({ sessionId: "terminal:abc", learnerId: "terminal-learner" });
	await sessions.set(record);
	const learning = createLearning({ state: createMemoryStateStore(), sessions });
	await learning.recordLesson(record);
	const output = new PassThrough();
	let printed = "";
	output.on("data", (c: Buffer) => {
		printed += c.toString();
	});
	return { learning, sessions, output, printed: () => printed };
}

describe("the terminal's progress and forget-me", () => {
	it("progress prints the summary per topic and saves the picture", async () => {
		const { learning, output, printed } = await setup();
		const result = await runTerminalProgress({ tutor: noTutor, learning: { learning }, output, dataDir: dir });
		expect(printed()).toMatch(/adding fractions: 1 learned, 1 shaky, 1 not yet/);
		expect(result.picture).toBe(join(dir, "progress.png"));
		expect(readFileSync(join(dir, "progress.png")).subarray(1, 4).toString()).toBe("PNG");
		expect(printed()).toContain(`Progress picture: ${join(dir, "progress.png")}`);
	});

	it("forget-me says what would go without --yes, and deletes with it", async () => {
		const { learning, sessions, output, printed } = await setup();
		const options = { tutor: noTutor, learning: { learning }, output, command: "npx learnharness" };
		expect(await runTerminalForget({ ...options, yes: false })).toEqual({ deleted: false });
		expect(printed()).toMatch(
			/This deletes your learner profile.*Run npx learnharness forget-me --yes to delete it\./s,
		);
		expect(await learning.profile("terminal:terminal-learner")).toBeDefined();
		expect(await runTerminalForget({ ...options, yes: true })).toEqual({ deleted: true });
		expect(printed()).toMatch(/Done: your profile, review items and 1 lesson are deleted\./);
		expect(await learning.profile("terminal:terminal-learner")).toBeUndefined();
		expect(await learning.items("terminal:terminal-learner")).toEqual([]);
		expect(await sessions.get("terminal:abc")).toBeUndefined();
	});

	it("speaks the language it is given", async () => {
		const { learning, output, printed } = await setup();
		await runTerminalForget({ tutor: noTutor, learning: { learning }, output, yes: false, locale: "de" });
		expect(printed()).toMatch(/Führe learnharness forget-me --yes aus, um es zu löschen\./);
	});
});
