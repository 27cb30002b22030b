/**
 * The dashboard's kept sums (src/dashboard/sums.ts) against the numbers' definition (stats.ts): after every
 * change of a community's lessons (lessons added, recorded again, dropped, a bucket re-read as new objects, a
 * reader that kept nothing), the overview and the stuck view a page gets from the sums equal overviewOf and
 * stuckOf over the same digests, in any order. Then lessons end on several processes at once (each with its own
 * connection and index reader) on SQLite, Redis and PostgreSQL, and a third process's pages show what a reader
 * that kept nothing computes from the store.
 */

import { describe, expect, it } from "vitest";
import { openStateStore } from "../../src/agent/index.ts";
import { lessonFacts, lessonParticipants } from "../../src/agent/profile/lesson-facts.ts";
import { type LessonDigest, LessonIndex, lessonDigest } from "../../src/agent/profile/lesson-index.ts";
import type { NodeMastery } from "../../src/core/mastery.ts";
import { overviewOf, stuckOf } from "../../src/dashboard/stats.ts";
import { CommunitySums, OverviewSums, StuckSums } from "../../src/dashboard/sums.ts";
import { seededLessons, seededRandom } from "../../testkit/dashboard-lessons.ts";
import { stateBackends } from "../fixtures/shared-backends.ts";

const NOW = new Date("2026-06-01T12:00:00.000Z");
const DAY = 86_400_000;
const MASTERY: NodeMastery[] = ["learned", "shaky", "not-yet"];

/** Digests with what makes the rules bite: titles that differ in case and spacing, a title twice in one map, a person twice, equal starts, an unreadable start, lessons this week and long ago. */
function digestMaker(seed: number) {
	const random = seededRandom(seed);
	const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
	const topics = ["Fractions", "  fractions ", "FRACTIONS", "Binary search", "binary  search", "Loops"];
	const titles = ["Equal parts", "equal  parts", "Halving", "HALVING", "Off-by-one", "Sorted input", "Base case"];
	const people = ["u1", "u2", "u3", "u4", "u5", "u6"];
	// A few starts only (ties), one a day in the 12 weeks before NOW and some a year earlier.
	const starts = [
		...Array.from({ length: 10 }, (_, i) => new Date(NOW.getTime() - i * 9 * DAY).toISOString()),
		new Date(NOW.getTime() - 400 * DAY).toISOString(),
		new Date(NOW.getTime() + DAY).toISOString(),
		new Date(NOW.getTime() - 7 * DAY).toISOString(), // the edge of "this week"
		"not a date",
	];
	let n = 0;
	return (sessionId = `s${n++}`): LessonDigest => {
		const nodes = Array.from({ length: Math.floor(random() * 4) }, (_, i) => ({ id: `n${i}`, label: pick(titles) }));
		const group = random() < 0.3;
		const who = Array.from({ length: group ? 1 + Math.floor(random() * 3) : 1 }, () => pick(people));
		return {
			sessionId,
			topic: pick(topics),
			mode: group ? "group" : "solo",
			startedAt: pick(starts),
			outcome: pick(["completed", "ended-by-user", "ended-by-admin", "open"] as const),
			nodes,
			people: who.map((id) => ({
				id,
				...(random() < 0.5 ? { name: `name of ${id}` } : {}),
				answered: Math.floor(random() * 5),
				firstTry: Math.floor(random() * 3),
				mastery: nodes.map(() => pick(MASTERY)),
			})),
		};
	};
}

function shuffled<T>(xs: readonly T[], random: () => number): T[] {
	const out = [...xs];
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[out[i], out[j]] = [out[j] as T, out[i] as T];
	}
	return out;
}

/** Lessons in 8 buckets by session id, as the index reader hands them over: a changed bucket is a new array. */
class Buckets {
	arrays: LessonDigest[][] = Array.from({ length: 8 }, () => []);
	private bucketOf = (sessionId: string) => Number(sessionId.slice(1)) % 8;
	all = (): LessonDigest[] => this.arrays.flat();
	put(d: LessonDigest): void {
		const b = this.bucketOf(d.sessionId);
		this.arrays[b] = [...(this.arrays[b] ?? []).filter((o) => o.sessionId !== d.sessionId), d];
	}
	drop(keep: (d: LessonDigest) => boolean): void {
		this.arrays = this.arrays.map((b) => (b.every(keep) ? b : b.filter(keep)));
	}
	/** Buckets read again: new arrays of new objects with the same content. */
	reread(which: (b: number) => boolean): void {
		this.arrays = this.arrays.map((b, i) => (which(i) ? b.map((d) => structuredClone(d)) : b));
	}
}

describe("the dashboard's kept sums", () => {
	it.each([1, 2, 3, 4, 5])("equal the definition after every change of the lessons (seed %i)", (seed) => {
		const make = digestMaker(seed);
		const random = seededRandom(seed * 31);
		const stuck = new StuckSums();
		const overview = new OverviewSums();
		const small = new StuckSums();
		const lessons = new Buckets();
		for (let i = 0; i < 40; i++) lessons.put(make());
		let withNodes = 0;
		for (let step = 0; step < 80; step++) {
			const change = random();
			if (change < 0.3) for (let i = 0; i < 1 + Math.floor(random() * 3); i++) lessons.put(make());
			else if (change < 0.5) {
				// Recorded again: a new digest under the same session id.
				const all = lessons.all();
				const again = all[Math.floor(random() * all.length)];
				if (again) lessons.put(make(again.sessionId));
			} else if (change < 0.7) lessons.drop(() => random() > 0.1);
			else if (change < 0.9) lessons.reread(() => random() < 0.2);
			else if (change < 0.95)
				lessons.reread(() => true); // a reader that kept nothing
			else lessons.drop(() => false); // everything forgotten
			const handed = shuffled(lessons.arrays, random);
			stuck.follow(handed);
			overview.follow(handed);
			small.follow(handed);
			const expected = stuckOf(lessons.all());
			if (expected.topics.some((t) => t.nodes.some((n) => n.learners > 0))) withNodes++;
			expect(stuck.view()).toEqual(expected);
			expect(stuckOf(shuffled(lessons.all(), random))).toEqual(expected); // the definition does not depend on the order
			expect(small.view(2)).toEqual(stuckOf(lessons.all(), 2));
			expect(overview.view(NOW)).toEqual(overviewOf(lessons.all(), NOW));
			const later = new Date(NOW.getTime() + 3 * DAY);
			expect(overview.view(later, 4)).toEqual(overviewOf(lessons.all(), later, 4));
		}
		// Most steps compared views with something in them (the sequence did not empty itself early).
		expect(withNodes).toBeGreaterThan(40);
	});

	it("keeps each community apart", () => {
		const make = digestMaker(9);
		const a = Array.from({ length: 20 }, () => make());
		const b = Array.from({ length: 5 }, () => make());
		const sums = new CommunitySums();
		expect(sums.stuck("discord:a", [a])).toEqual(stuckOf(a));
		expect(sums.stuck("discord:b", [b])).toEqual(stuckOf(b));
		expect(sums.overview("discord:a", [a], NOW)).toEqual(overviewOf(a, NOW));
		expect(sums.stuck("discord:a", [a.slice(3)])).toEqual(stuckOf(a.slice(3)));
	});
});

const { ns, backends } = await stateBackends("dashboard-sums");

describe.each(backends)("lessons ending on several processes, on %s", (_name, available, url) => {
	it.skipIf(!available)("a third process's pages show what the store holds", { timeout: 60_000 }, async () => {
		const members = Array.from({ length: 8 }, (_, m) => ({ id: `10000000000000000${m}`, name: `member ${m}` }));
		const topics = [
			{ topic: "Fractions", nodes: ["Equal parts", "Common denominators", "Adding"] },
			{ topic: "Binary search", nodes: ["Sorted input", "Halving", "Off-by-one"] },
		];
		const community = `${Date.now()}${process.pid}`;
		const digestsOf = (seed: number, lessons: number) =>
			seededLessons({
				platform: "discord",
				community,
				lessons,
				members,
				topics,
				end: NOW,
				seed,
				groupEvery: 4,
			}).map((record) => {
				const people = record.mode === "group" ? lessonParticipants(record) : [record.learner];
				const digest = lessonDigest(
					record.mode,
					people.map((person) => ({ person, facts: lessonFacts(record, person) })),
				);
				if (!digest) throw new Error("a seeded lesson without a digest");
				return { ...digest, sessionId: `${digest.sessionId}-${seed}` };
			});
		// Three processes: two where lessons end, one serving the pages; each its own connection and reader.
		const stores = [0, 1, 2].map(() => openStateStore(url(), `${ns}:profiles`));
		try {
			const [storeA, storeB, storePages] = stores;
			if (!storeA || !storeB || !storePages) throw new Error("three connections");
			const [a, b, pages] = [new LessonIndex(storeA), new LessonIndex(storeB), new LessonIndex(storePages)];
			const sums = new CommunitySums();
			const indexed = `discord:${community}`;
			const check = async () => {
				// A reader that kept nothing reads every bucket from the store.
				const truth = await new LessonIndex(storePages).list(indexed);
				expect(sums.stuck(indexed, await pages.buckets(indexed))).toEqual(stuckOf(truth));
				expect(sums.overview(indexed, await pages.buckets(indexed), NOW)).toEqual(overviewOf(truth, NOW));
				return truth.length;
			};
			const fromA = digestsOf(1, 30);
			const fromB = digestsOf(2, 30);
			await Promise.all([...fromA.map((d) => a.put(d)), ...fromB.map((d) => b.put(d))]);
			expect(await check()).toBe(60);
			// Both go on at once: new lessons, lessons recorded again with other results, forget-me.
			const flipped = (d: LessonDigest): LessonDigest => ({
				...d,
				people: d.people.map((p) => ({
					...p,
					mastery: p.mastery.map((m) => (m === "learned" ? "shaky" : "learned")),
				})),
			});
			const more = digestsOf(3, 10);
			await Promise.all([
				...fromA.slice(0, 10).map((d) => b.put(flipped(d))),
				...fromB.slice(0, 8).map((d) => a.drop(d.sessionId)),
				...more.map((d, i) => (i % 2 ? a : b).put(d)),
				...fromB
					.slice(10, 20)
					.filter((d) => d.mode === "group")
					.map((d) => a.anonymise(d.sessionId, d.people[1]?.id ?? "", "anonymous")),
			]);
			expect(await check()).toBe(62);
			const stuckShown = sums.stuck(indexed, await pages.buckets(indexed));
			expect(stuckShown.topics.map((t) => t.topic).sort()).toEqual(["Binary search", "Fractions"]);
		} finally {
			for (const s of stores) await s.close();
		}
	});
});
