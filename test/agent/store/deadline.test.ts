/**
 * Store deadlines: a store that does not answer fails the call with store-timeout; a deadline that
 * comes due while the process itself was paused (here: the event loop held longer than the
 * deadline while the answer arrived) gives the answer a moment to be read instead of failing it.
 */

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { withDeadline } from "../../../src/agent/store/errors.ts";

const THIS_FILE = fileURLToPath(import.meta.url);

/** Hold the event loop (a stand-in for SIGSTOP or a long GC pause). */
function holdLoop(ms: number): void {
	const end = performance.now() + ms;
	while (performance.now() < end) {
		// busy: no timer and no I/O callback runs meanwhile
	}
}

describe("withDeadline", () => {
	it("fails a call the store never answers", async () => {
		await expect(withDeadline("a hung read", 50, () => new Promise(() => undefined))).rejects.toMatchObject({
			code: "store-timeout",
		});
	});

	it("reads an answer that arrived while the process was paused past the deadline", async () => {
		const call = withDeadline("reading a file", 100, () => readFile(THIS_FILE, "utf8"));
		holdLoop(600); // the read completes on the thread pool meanwhile; its callback waits for the loop
		await expect(call).resolves.toContain("withDeadline");
	});
});
