/**
 * One process posts each question card: the claim is atomic (many claimers, one winner), a
 * re-post (restart, takeover) does not take a fresh claim over, and does take over one whose
 * poster died posting (older than the stale bound, still no card).
 */

import { describe, expect, it } from "vitest";
import { LessonState } from "../../../src/adapters/lesson/lesson-state.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";

describe("claims to post a question's card", () => {
	it("one of many concurrent claimers wins; another question is claimed on its own", async () => {
		const state = new LessonState(createMemoryStateStore());
		const claims = await Promise.all(Array.from({ length: 8 }, () => state.claimPost("t1", "q1")));
		expect(claims.filter(Boolean)).toHaveLength(1);
		expect(await state.claimPost("t1", "q2")).toBe(true);
		expect(await state.claimPost("t2", "q1")).toBe(true);
	});

	it("a re-post takes over only a stale claim", async () => {
		const state = new LessonState(createMemoryStateStore());
		expect(await state.claimPost("t1", "q1")).toBe(true);
		// Fresh: its poster is (probably) posting right now.
		expect(await state.claimPost("t1", "q1", { staleAfterMs: 60_000 })).toBe(false);
		// Old enough (here: any age): its poster died posting; the re-post goes ahead, once.
		expect(await state.claimPost("t1", "q1", { staleAfterMs: 0 })).toBe(true);
		expect(await state.claimPost("t1", "q1")).toBe(false);
	});
});
