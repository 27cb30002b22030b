import Keyv from "keyv";
import { afterAll, describe, expect, it } from "vitest";
import { createLearning } from "../../../src/agent/profile/learning.ts";
import type { ReviewItem } from "../../../src/agent/profile/profile-store.ts";
import { createScheduler } from "../../../src/agent/profile/schedule.ts";
import { stateKeys } from "../../../src/agent/store/keys.ts";
import { sessionStoreOnKeyv } from "../../../src/agent/store/session-store.ts";
import { openStateWithItems, type StateStore } from "../../../src/agent/store/state-store.ts";
import { fractionsRecord } from "../../fixtures/profile-lesson.ts";
import { stateBackends } from "../../fixtures/shared-backends.ts";

const DAY = 86_400_000;
const T0 = Date.parse("2026-03-01T11:00:00.000Z");
const scheduler = createScheduler();

/** A review item first reviewed `daysAgo` before T0 (a miss is due the next day, a success later). */
const item = (n: number, daysAgo: number, outcome: "good" | "again"): ReviewItem => ({
	id: `discord:g1:old#n${n}`,
	sessionId: "discord:g1:old",
	topic: "fractions",
	nodeId: `n${n}`,
	label: `Idea ${n}`,
	question: `What is ${n} + ${n}?`,
	correctAnswer: String(2 * n),
	card: scheduler.first(new Date(T0 - daysAgo * DAY), outcome),
});

const { ns, backends } = await stateBackends("review-index");
// Every clean-up runs before any store closes (PostgreSQL's keyv adapter shares one pool per URL between instances).
const cleanups: Array<() => Promise<unknown>> = [];
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
	for (const cleanup of cleanups) await cleanup();
	for (const close of closers) await close();
});

describe.each(backends)("review items by an index on %s", (name, up, url) => {
	let t = T0;
	const open = () => {
		const { state, items } = openStateWithItems(url(), `${ns}-${name.slice(0, 2)}`);
		const learning = createLearning({ state, items, sessions: sessionStoreOnKeyv(new Keyv()), now: () => new Date(t) });
		return { state, learning };
	};
	const learner = (n: string) => `discord:${name.slice(0, 2).toLowerCase()}-${n}`;
	const forgetLater = (learning: ReturnType<typeof open>["learning"], state: StateStore, keys: string[]) => {
		cleanups.push(async () => {
			for (const key of keys) await learning.forget(key);
		});
		closers.push(() => state.close());
	};

	it.skipIf(!up)("moves a learner's old list to the index once, then selects, counts and grades by it", async () => {
		t = T0;
		const { state, learning } = open();
		const key = learner("old");
		forgetLater(learning, state, [key]);
		// As earlier versions stored them: one list under reviews:<learner>, with a corrupt entry that is dropped.
		const old = [item(1, 3, "again"), item(2, 2, "again"), item(3, 0, "good"), item(4, 1, "again")];
		await state.set(stateKeys.reviews(key), [...old, { id: "broken" }]);
		await state.set(stateKeys.profile(key), {
			format: 1,
			key,
			learner: { id: "old" },
			lessons: [],
			reviewsDone: 0,
		});

		const due = await learning.due(key, 2);
		expect(await state.get(stateKeys.reviews(key))).toBeUndefined(); // moved, then deleted
		// Items 1, 2, 4 were missed 3, 2 and 1 days ago: due a day later, most overdue first; item 3 is due later.
		expect(due.items.map((i) => i.nodeId)).toEqual(["n1", "n2"]);
		expect(due.dueCount).toBe(3);
		expect(due.total).toBe(4);
		expect(due.nextDue).toBe(old[2]?.card.due);
		expect((await learning.items(key)).map((i) => i.nodeId).sort()).toEqual(["n1", "n2", "n3", "n4"]);

		const graded = await learning.grade(key, old[0]?.id ?? "", "good");
		expect(Date.parse(graded?.card.due ?? "")).toBeGreaterThan(T0);
		const after = await learning.due(key, 10);
		expect(after.items.map((i) => i.nodeId)).toEqual(["n2", "n4"]);
		expect(after.total).toBe(4);
		// Only the graded item changed.
		const stored = await learning.items(key);
		expect(stored.find((i) => i.nodeId === "n1")?.card).toEqual(graded?.card);
		expect(stored.find((i) => i.nodeId === "n2")?.card).toEqual(old[1]?.card);
		expect((await learning.profile(key))?.reviewsDone).toBe(1);

		// A second process starting later finds nothing to move and the same items.
		const other = open();
		closers.push(() => other.state.close());
		expect((await other.learning.due(key, 10)).items.map((i) => i.nodeId)).toEqual(["n2", "n4"]);
	});

	it.skipIf(!up)("a lesson recorded twice keeps its items' schedules; forget-me drops them", async () => {
		t = T0;
		const { state, learning } = open();
		const id = `discord:g1:${name.slice(0, 2)}-t1`;
		const key = learner("u1");
		forgetLater(learning, state, [key]);
		const record = fractionsRecord({ sessionId: id, learnerId: key.slice("discord:".length) });
		await learning.recordLesson(record);
		t = T0 + DAY;
		const shaky = (await learning.due(key)).items[0];
		if (!shaky) throw new Error("nothing due");
		const graded = await learning.grade(key, shaky.id, "good");
		await learning.recordLesson(record); // idempotent: the graded card stays
		expect((await learning.items(key)).find((i) => i.id === shaky.id)?.card).toEqual(graded?.card);
		await learning.forget(key);
		expect(await learning.items(key)).toEqual([]);
		expect((await learning.due(key)).total).toBe(0);
	});

	it.skipIf(!up)(
		"keeps the report's rows per member: recorded lessons, grades, profiles from an earlier version",
		async () => {
			t = T0;
			const { state, learning } = open();
			const community = `g-${name.slice(0, 2)}`;
			const a = learner("ra");
			const b = learner("rb");
			forgetLater(learning, state, [a, b]);
			const [ra, rb] = [a.slice("discord:".length), b.slice("discord:".length)];
			await learning.recordLesson(fractionsRecord({ sessionId: `discord:${community}:t1`, learnerId: ra }));
			// b was recorded by an earlier version: a profile and the members list, no report rows.
			const lesson = (await learning.profile(a))?.lessons[0];
			if (!lesson) throw new Error("no lesson recorded");
			await state.set(stateKeys.profile(b), {
				format: 1,
				key: b,
				learner: { id: rb },
				lessons: [{ ...lesson, sessionId: `discord:${community}:t2`, reviews: 4 }],
				reviewsDone: 4,
			});
			await state.set(stateKeys.members(community), [a, b]);

			const rows = await learning.report(community);
			expect(rows.map((r) => [r.member, r.sessionId, r.questionsAnswered, r.nodesLearned, r.reviewsDone])).toEqual([
				[ra, `discord:${community}:t1`, 5, 1, 0],
				[rb, `discord:${community}:t2`, 5, 1, 4],
			]);
			t = T0 + DAY;
			const shaky = (await learning.due(a)).items[0];
			if (!shaky) throw new Error("nothing due");
			await learning.grade(a, shaky.id, "good");
			// b's profile changes behind the report's back: the report reads the rows it kept.
			await state.set(stateKeys.profile(b), { format: 1, key: b, learner: { id: rb }, lessons: [], reviewsDone: 0 });
			expect((await learning.report(community)).map((r) => [r.member, r.reviewsDone])).toEqual([
				[ra, 1],
				[rb, 4],
			]);
			await learning.forget(a);
			expect((await learning.report(community)).map((r) => r.member)).toEqual([rb]);
		},
	);
});
