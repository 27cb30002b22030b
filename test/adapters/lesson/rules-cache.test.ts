/**
 * A community's lesson rules are read from the store at most every RULES_FRESH_MS, whatever the
 * store (the controller never asks whether other processes share it); a save in this process is
 * seen at once, also by a read that was on its way while the save was written.
 */

import { describe, expect, it } from "vitest";
import { LessonState } from "../../../src/adapters/lesson/lesson-state.ts";
import { createMemoryStateStore, type StateStore } from "../../../src/agent/index.ts";

/** A memory store counting its reads; `hold` (when set) delays them until released. */
function countingStore() {
	const base = createMemoryStateStore();
	let reads = 0;
	let hold: Promise<void> | undefined;
	const store: StateStore = {
		...base,
		get: async (key) => {
			reads++;
			const value = await base.get(key); // read now: the value as it was when the read began
			await hold;
			return value;
		},
	};
	return {
		store,
		reads: () => reads,
		holdReads: () => {
			let release!: () => void;
			hold = new Promise((done) => {
				release = done;
			});
			return () => {
				hold = undefined;
				release();
			};
		},
	};
}

describe("lesson rules in memory", () => {
	it("are read once, and a save is seen at once", async () => {
		const { store, reads } = countingStore();
		const state = new LessonState(store);
		const first = await state.rules("g1");
		await state.rules("g1");
		expect(reads()).toBe(1);
		await state.saveRules("g1", { ...first, lessonsPerDay: 3 });
		expect((await state.rules("g1")).lessonsPerDay).toBe(3);
		expect(reads()).toBe(1);
	});

	it("do not keep a read that a save overtook", async () => {
		const { store, holdReads } = countingStore();
		const state = new LessonState(store);
		const release = holdReads();
		const reading = state.rules("g1"); // started before the save: it reads the old rules
		await state.saveRules("g1", { ...(await new LessonState(createMemoryStateStore()).rules("g1")), lessonsPerDay: 7 });
		release();
		expect((await reading).lessonsPerDay).not.toBe(7);
		expect((await state.rules("g1")).lessonsPerDay).toBe(7);
	});
});
