/**
 * The community lesson index the dashboard reads: recordLesson writes one digest per lesson (per participant
 * the same facts the profile keeps), recording again replaces it, forget-me deletes the learner's lessons'
 * digests and anonymises them in group lessons someone else started, the retention sweep deletes old ones,
 * and a reader re-reads only the buckets that changed.
 */

import { describe, expect, it } from "vitest";
import {
	createLearning,
	createMemoryStateStore,
	type SessionRecord,
	type StateStore,
} from "../../../src/agent/index.ts";
import { lessonFacts } from "../../../src/agent/profile/lesson-facts.ts";
import { decodeDigest, encodeDigest, LessonIndex, lessonDigest } from "../../../src/agent/profile/lesson-index.ts";
import { seededLessons } from "../../../testkit/dashboard-lessons.ts";

const members = [
	{ id: "u1", name: "Ada" },
	{ id: "u2", name: "Bo" },
	{ id: "u3", name: "Cy" },
];
const NOW = new Date("2026-06-01T12:00:00.000Z");

function stack(records: SessionRecord[], state: StateStore = createMemoryStateStore()) {
	const sessions = new Map(records.map((r) => [r.sessionId, r]));
	const learning = createLearning({
		state,
		sessions: {
			get: async (id) => sessions.get(id),
			delete: async (id) => sessions.delete(id),
		},
		now: () => NOW,
	});
	return { learning, sessions, state };
}

const lessons = (n: number, groupEvery = 0, daysAgo = 1) =>
	seededLessons({
		platform: "discord",
		community: "g1",
		lessons: n,
		members,
		topics: [{ topic: "Fractions", nodes: ["Equal parts", "Common denominators", "Adding"] }],
		end: new Date(NOW.getTime() - daysAgo * 86_400_000),
		groupEvery,
	});

describe("the lesson index", () => {
	it("keeps one digest per recorded lesson, with each participant's facts", async () => {
		const records = lessons(6, 3);
		const { learning } = stack(records);
		for (const r of records) await learning.recordLesson(r);
		await learning.recordLesson(records[0] as SessionRecord); // again: replaced, not added
		const digests = await learning.lessons("discord:g1");
		expect(digests.map((d) => d.sessionId).sort()).toEqual(records.map((r) => r.sessionId).sort());
		for (const record of records) {
			const digest = digests.find((d) => d.sessionId === record.sessionId);
			for (const person of digest?.people ?? []) {
				const facts = lessonFacts(record, person);
				expect(person.answered).toBe(facts.questionsAnswered);
				expect(person.firstTry).toBe(facts.firstTryCorrect);
				expect(person.mastery).toEqual(facts.nodes.map((n) => n.mastery));
			}
		}
		expect(digests.some((d) => d.mode === "group" && d.people.length > 1)).toBe(true);
		expect(await learning.lessons("discord:other")).toEqual([]);
	});

	it("round-trips a digest through its stored form and drops what is not one", () => {
		const record = lessons(1)[0] as SessionRecord;
		const digest = lessonDigest("solo", [{ person: record.learner, facts: lessonFacts(record, record.learner) }]);
		if (!digest) throw new Error("no digest");
		expect(decodeDigest(digest.sessionId, encodeDigest(digest))).toEqual(digest);
		expect(decodeDigest("x", "{not json")).toBeUndefined();
		expect(decodeDigest("x", JSON.stringify({ t: 1 }))).toBeUndefined();
	});

	it("forgets a learner's lessons and takes them out of group lessons others started", async () => {
		const records = lessons(9, 3);
		const { learning } = stack(records);
		for (const r of records) await learning.recordLesson(r);
		const own = records.filter((r) => r.learner.id === "u2").map((r) => r.sessionId);
		const joined = records.filter((r) => r.mode === "group" && r.learner.id !== "u2");
		await learning.forget("discord:u2");
		const after = await learning.lessons("discord:g1");
		for (const id of own) expect(after.some((d) => d.sessionId === id)).toBe(false);
		for (const d of after) expect(d.people.map((p) => p.id)).not.toContain("u2");
		const stayed = after.filter((d) => joined.some((r) => r.sessionId === d.sessionId));
		expect(stayed.every((d) => d.people.every((p) => p.id !== "anonymous" || p.name === undefined))).toBe(true);
	});

	it("drops lessons the retention sweep deletes", async () => {
		const records = lessons(3, 0, 5);
		const { learning } = stack(records);
		for (const r of records) await learning.recordLesson(r);
		await learning.setRetention("g1", 1);
		expect(await learning.sweep()).toBeGreaterThan(0);
		expect(await learning.lessons("discord:g1")).toEqual([]);
	});

	it("re-reads only the buckets that changed", async () => {
		const records = lessons(40);
		const inner = createMemoryStateStore();
		const gets: string[] = [];
		const counting: StateStore = {
			...inner,
			get: (key) => {
				gets.push(key);
				return inner.get(key);
			},
		};
		const { learning } = stack(records, counting);
		for (const r of records.slice(0, 39)) await learning.recordLesson(r);
		const index = new LessonIndex(counting);
		expect((await index.list("discord:g1")).length).toBe(39);
		gets.length = 0;
		expect((await index.list("discord:g1")).length).toBe(39);
		expect(gets).toEqual(["lesson-versions:discord:g1"]);
		await learning.recordLesson(records[39] as SessionRecord);
		gets.length = 0;
		expect((await index.list("discord:g1")).length).toBe(40);
		expect(gets.filter((k) => k.startsWith("lessons:"))).toHaveLength(1);
	});
});
