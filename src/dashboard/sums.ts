/**
 * The dashboard's numbers kept up to date digest by digest, so a page after one
 * lesson ended costs that lesson, not the community's 20,000 (stats.ts defines
 * the numbers; test/dashboard/sums.test.ts checks these equal its functions).
 *
 * Nothing is stored and nothing is counted on the write path: a view hands its
 * sums the digests the index reader returned, per bucket, and the sums follow
 * them. The reader keeps decoded digests per bucket and re-reads only the
 * buckets whose change count (in the shared store) moved, so an unchanged
 * bucket is the same array from one view to the next, and a lesson written,
 * replaced or dropped by any process arrives as a new array for its bucket.
 * The sums compare the arrays with the last ones by identity, take out the
 * digests of the arrays that left and add those of the ones that joined:
 * after one lesson ended, one bucket of 64. Whatever the processes did, the
 * numbers are those of the digests handed over.
 *
 * "Latest lesson" rules (a learner's cell, a title) cannot be undone by
 * subtraction, so each cell keeps every lesson that fills it (a learner has a
 * few lessons per topic) and a title remembers which lesson gave it; when that
 * lesson leaves, the title is looked up again among the topic's lessons.
 */

import type { LessonDigest } from "../agent/index.ts";
import type { NodeMastery } from "../core/mastery.ts";
import {
	byMostLessons,
	byMostStuck,
	digestKeys,
	laterLesson,
	type Overview,
	type StuckTopic,
	stuckNode,
} from "./stats.ts";

const WEEK_MS = 7 * 86_400_000;

/** Sums that follow a community's digests bucket by bucket: a bucket's array that joined is added, one that left is taken out. */
abstract class FollowingSums {
	/** The bucket arrays summed. */
	private summed = new Set<readonly LessonDigest[]>();

	protected abstract add(d: LessonDigest): void;
	protected abstract remove(d: LessonDigest): void;
	protected abstract clear(): void;

	/**
	 * Bring the sums to `buckets`: arrays of digests, each never changed once handed over (a changed bucket
	 * is a new array), so an array seen last time is summed already. A single array works too (summed afresh
	 * whenever it is a new one).
	 */
	follow(buckets: ReadonlyArray<readonly LessonDigest[]>): void {
		const next = new Set(buckets);
		const joined = [...next].filter((b) => !this.summed.has(b)); // an array handed over twice counts once
		const left = [...this.summed].filter((b) => !next.has(b));
		let stayed = 0;
		let changed = 0;
		for (const b of this.summed) if (next.has(b)) stayed += b.length;
		for (const b of [...joined, ...left]) changed += b.length;
		if (stayed < changed) {
			// Mostly new (a first view, a reader that kept nothing): summing afresh is cheaper than undoing and redoing.
			this.clear();
			for (const b of next) for (const d of b) this.add(d);
		} else {
			for (const b of left) for (const d of b) this.remove(d);
			for (const b of joined) for (const d of b) this.add(d);
		}
		this.summed = next;
	}
}

/** One learner's lessons with a node: each with their mastery there; the latest counts. */
interface Cell {
	latest: { from: LessonDigest; mastery: NodeMastery };
	all: Array<{ from: LessonDigest; mastery: NodeMastery }>;
}

interface NodeSums {
	label: string;
	labelFrom: LessonDigest;
	/** Lessons whose map has the node. */
	lessons: number;
	cells: Map<string, Cell>;
	count: Record<NodeMastery, number>;
}

interface TopicSums {
	topicFrom: LessonDigest;
	lessons: Set<LessonDigest>;
	/** Per learner, their lessons on the topic. */
	learners: Map<string, number>;
	nodes: Map<string, NodeSums>;
}

/** A lesson's cells: per node title and learner, their mastery (a later node of the same title, or a person listed twice, has the last word). */
function cellsOf(d: LessonDigest, nodeKeys: readonly string[]): Map<string, Map<string, NodeMastery>> {
	const cells = new Map<string, Map<string, NodeMastery>>();
	for (let i = 0; i < d.nodes.length; i++) {
		const key = nodeKeys[i] ?? "";
		let byLearner = cells.get(key);
		if (!byLearner) {
			byLearner = new Map();
			cells.set(key, byLearner);
		}
		for (const p of d.people) byLearner.set(p.id, p.mastery[i] ?? "not-yet");
	}
	return cells;
}

/** The first label of a title in a lesson's map. */
const labelIn = (d: LessonDigest, nodeKey: string): string | undefined => {
	const keys = digestKeys(d).nodes;
	for (let i = 0; i < keys.length; i++) if (keys[i] === nodeKey) return d.nodes[i]?.label;
	return undefined;
};

/** stuckOf's numbers, kept. */
export class StuckSums extends FollowingSums {
	private readonly topics = new Map<string, TopicSums>();

	protected clear(): void {
		this.topics.clear();
	}

	protected add(d: LessonDigest): void {
		const keys = digestKeys(d);
		let t = this.topics.get(keys.topic);
		if (!t) {
			t = { topicFrom: d, lessons: new Set(), learners: new Map(), nodes: new Map() };
			this.topics.set(keys.topic, t);
		}
		if (laterLesson(d, t.topicFrom)) t.topicFrom = d;
		t.lessons.add(d);
		for (const id of new Set(d.people.map((p) => p.id))) t.learners.set(id, (t.learners.get(id) ?? 0) + 1);
		for (const [nodeKey, byLearner] of cellsOf(d, keys.nodes)) {
			let n = t.nodes.get(nodeKey);
			if (!n) {
				n = {
					label: labelIn(d, nodeKey) ?? "",
					labelFrom: d,
					lessons: 0,
					cells: new Map(),
					count: { learned: 0, shaky: 0, "not-yet": 0 },
				};
				t.nodes.set(nodeKey, n);
			}
			n.lessons++;
			if (laterLesson(d, n.labelFrom)) {
				n.label = labelIn(d, nodeKey) ?? n.label;
				n.labelFrom = d;
			}
			for (const [id, mastery] of byLearner) {
				const entry = { from: d, mastery };
				const cell = n.cells.get(id);
				if (!cell) {
					n.cells.set(id, { latest: entry, all: [entry] });
					n.count[mastery]++;
					continue;
				}
				cell.all.push(entry);
				if (laterLesson(d, cell.latest.from)) {
					n.count[cell.latest.mastery]--;
					n.count[mastery]++;
					cell.latest = entry;
				}
			}
		}
	}

	protected remove(d: LessonDigest): void {
		const keys = digestKeys(d);
		const t = this.topics.get(keys.topic);
		if (!t?.lessons.delete(d)) return;
		if (t.lessons.size === 0) {
			this.topics.delete(keys.topic);
			return;
		}
		for (const id of new Set(d.people.map((p) => p.id))) {
			const left = (t.learners.get(id) ?? 1) - 1;
			if (left === 0) t.learners.delete(id);
			else t.learners.set(id, left);
		}
		if (t.topicFrom === d) t.topicFrom = latestOf(t.lessons, () => true) ?? t.topicFrom;
		for (const [nodeKey, byLearner] of cellsOf(d, keys.nodes)) {
			const n = t.nodes.get(nodeKey);
			if (!n) continue;
			if (--n.lessons === 0) {
				t.nodes.delete(nodeKey);
				continue;
			}
			if (n.labelFrom === d) {
				const from = latestOf(t.lessons, (other) => digestKeys(other).nodes.includes(nodeKey));
				if (from) {
					n.labelFrom = from;
					n.label = labelIn(from, nodeKey) ?? n.label;
				}
			}
			for (const id of byLearner.keys()) {
				const cell = n.cells.get(id);
				if (!cell) continue;
				cell.all = cell.all.filter((e) => e.from !== d);
				if (cell.latest.from !== d) continue;
				n.count[cell.latest.mastery]--;
				const next = cell.all.reduce<Cell["latest"] | undefined>(
					(best, e) => (!best || laterLesson(e.from, best.from) ? e : best),
					undefined,
				);
				if (!next) n.cells.delete(id);
				else {
					cell.latest = next;
					n.count[next.mastery]++;
				}
			}
		}
	}

	/** The stuck view of the digests last followed (as stuckOf). */
	view(maxTopics = 30): { topics: StuckTopic[]; more: number } {
		const all = [...this.topics.values()].map((t) => ({ topic: t.topicFrom.topic, lessons: t.lessons.size, t }));
		all.sort(byMostLessons);
		return {
			topics: all.slice(0, maxTopics).map(({ topic, lessons, t }) => ({
				topic,
				lessons,
				learners: t.learners.size,
				nodes: [...t.nodes.values()]
					.map((n) => stuckNode(n.label, n.count.learned, n.count.shaky, n.count["not-yet"]))
					.sort(byMostStuck),
			})),
			more: Math.max(0, all.length - maxTopics),
		};
	}
}

/** The latest lesson of `lessons` that `fits`. */
function latestOf(lessons: Iterable<LessonDigest>, fits: (d: LessonDigest) => boolean): LessonDigest | undefined {
	let latest: LessonDigest | undefined;
	for (const d of lessons) if (fits(d) && (!latest || laterLesson(d, latest))) latest = d;
	return latest;
}

/** A lesson on the time line: its start in ms. */
interface Dated {
	at: number;
	d: LessonDigest;
}

/** overviewOf's numbers, kept; the ones that depend on the day are read off lessons kept in order of start. */
export class OverviewSums extends FollowingSums {
	private totals = { lessons: 0, groupLessons: 0, completed: 0, answered: 0, firstTry: 0 };
	/** Per learner, their lessons. */
	private readonly learners = new Map<string, number>();
	private readonly topics = new Map<string, { topicFrom: LessonDigest; lessons: Set<LessonDigest> }>();
	/** Lessons with a readable start, oldest first. */
	private timeline: Dated[] = [];

	protected clear(): void {
		this.totals = { lessons: 0, groupLessons: 0, completed: 0, answered: 0, firstTry: 0 };
		this.learners.clear();
		this.topics.clear();
		this.timeline = [];
		this.sorting = true;
	}

	/** While summing afresh, the time line is sorted once at the end, not kept in order lesson by lesson. */
	private sorting = false;

	protected add(d: LessonDigest): void {
		this.count(d, 1);
		const key = digestKeys(d).topic;
		const t = this.topics.get(key);
		if (!t) this.topics.set(key, { topicFrom: d, lessons: new Set([d]) });
		else {
			t.lessons.add(d);
			if (laterLesson(d, t.topicFrom)) t.topicFrom = d;
		}
		const at = Date.parse(d.startedAt);
		if (Number.isNaN(at)) return;
		if (this.sorting) this.timeline.push({ at, d });
		else this.timeline.splice(this.firstAfter(at), 0, { at, d });
	}

	protected remove(d: LessonDigest): void {
		this.count(d, -1);
		const key = digestKeys(d).topic;
		const t = this.topics.get(key);
		if (t?.lessons.delete(d)) {
			if (t.lessons.size === 0) this.topics.delete(key);
			else if (t.topicFrom === d) t.topicFrom = latestOf(t.lessons, () => true) ?? t.topicFrom;
		}
		const at = Date.parse(d.startedAt);
		if (Number.isNaN(at)) return;
		for (let i = this.firstAfter(at - 1); i < this.timeline.length && this.timeline[i]?.at === at; i++)
			if (this.timeline[i]?.d === d) {
				this.timeline.splice(i, 1);
				break;
			}
	}

	private count(d: LessonDigest, sign: 1 | -1): void {
		const o = this.totals;
		o.lessons += sign;
		if (d.mode === "group") o.groupLessons += sign;
		if (d.outcome === "completed") o.completed += sign;
		for (const p of d.people) {
			o.answered += sign * p.answered;
			o.firstTry += sign * p.firstTry;
			const left = (this.learners.get(p.id) ?? 0) + sign;
			if (left === 0) this.learners.delete(p.id);
			else this.learners.set(p.id, left);
		}
	}

	/** The index of the first lesson that started after `at` ms. */
	private firstAfter(at: number): number {
		let lo = 0;
		let hi = this.timeline.length;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if ((this.timeline[mid]?.at ?? 0) <= at) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}

	override follow(buckets: ReadonlyArray<readonly LessonDigest[]>): void {
		super.follow(buckets);
		if (this.sorting) this.timeline.sort((a, b) => a.at - b.at);
		this.sorting = false;
	}

	/** The overview of the digests last followed, as of `now` (as overviewOf). */
	view(now: Date, weeks = 12): Overview {
		const at = now.getTime();
		// Lessons that started in (from, to]: week w counts (at - (w + 1) weeks, at - w weeks], as overviewOf's floor does.
		const between = (from: number, to: number) => this.firstAfter(to) - this.firstAfter(from);
		const recent = new Set<string>();
		for (let i = this.firstAfter(at - WEEK_MS); i < this.firstAfter(at); i++)
			for (const p of this.timeline[i]?.d.people ?? []) recent.add(p.id);
		return {
			...this.totals,
			lessonsThisWeek: between(at - WEEK_MS, at),
			learners: this.learners.size,
			learnersThisWeek: recent.size,
			perWeek: Array.from({ length: weeks }, (_, i) => ({
				start: new Date(at - (weeks - i) * WEEK_MS).toISOString().slice(0, 10),
				lessons: between(at - (weeks - i) * WEEK_MS, at - (weeks - 1 - i) * WEEK_MS),
			})),
			topics: [...this.topics.values()]
				.map((t) => ({ topic: t.topicFrom.topic, lessons: t.lessons.size }))
				.sort(byMostLessons)
				.slice(0, 10),
		};
	}
}

/** Communities whose sums a dashboard keeps (the least recently viewed goes first), as the index reader keeps their digests. */
const KEPT_COMMUNITIES = 8;

/** Each community's sums, made when its page is first viewed. */
export class CommunitySums {
	private readonly kept = new Map<string, { overview?: OverviewSums; stuck?: StuckSums }>();

	private of(community: string): { overview?: OverviewSums; stuck?: StuckSums } {
		const sums = this.kept.get(community) ?? {};
		this.kept.delete(community); // re-inserted last: the most recently viewed stays
		this.kept.set(community, sums);
		for (const oldest of this.kept.keys()) {
			if (this.kept.size <= KEPT_COMMUNITIES) break;
			this.kept.delete(oldest);
		}
		return sums;
	}

	/** The overview of `community`'s digests (per bucket, as LessonIndex.buckets gives them) as of `now`. */
	overview(community: string, buckets: ReadonlyArray<readonly LessonDigest[]>, now: Date): Overview {
		const sums = this.of(community);
		sums.overview ??= new OverviewSums();
		sums.overview.follow(buckets);
		return sums.overview.view(now);
	}

	/** Where `community`'s learners get stuck, from its digests (per bucket). */
	stuck(community: string, buckets: ReadonlyArray<readonly LessonDigest[]>): { topics: StuckTopic[]; more: number } {
		const sums = this.of(community);
		sums.stuck ??= new StuckSums();
		sums.stuck.follow(buckets);
		return sums.stuck.view();
	}
}
