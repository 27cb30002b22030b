/**
 * Store deadlines: a store that does not answer fails the call with store-timeout; a deadline that
 * comes due while the process itself was paused (here: the event loop held longer than the
 * deadline while the answer arrived) gives the answer a moment to be read instead of failing it.
 */

import { describe, expect, it } from "vitest";
import { withDeadline } from "../../../src/agent/store/errors.ts";

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
		// The answer is due 50 ms after the deadline: both are due when the loop wakes, the deadline first (as a
		// timer runs before the I/O callback that carries a store's answer). No race with the machine's speed: the
		// hold is at least 600 ms of wall time however slow the machine, and both callbacks then wait on the loop.
		const call = withDeadline("a read", 100, () => new Promise((done) => setTimeout(() => done("answer"), 150)));
		holdLoop(600);
		await expect(call).resolves.toBe("answer");
	});
});
