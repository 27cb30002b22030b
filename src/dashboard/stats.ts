/**
 * The dashboard's numbers, defined as pure functions over a community's lesson
 * digests (agent/profile/lesson-index.ts: per lesson and participant, what the
 * transcript's readers derived). Nothing here is stored. The pages read the
 * same numbers from sums.ts, which keeps them up to date digest by digest;
 * these functions are the definition it is tested against.
 *
 * Where the group gets stuck, per topic and map node: each learner counts once,
 * with their latest lesson on the topic whose map has the node (a node is the
 * same node across lessons when its title is, case and spacing aside); the node's
 * "stuck" share is the share of those learners for whom it is shaky or not yet.
 */

import type { LessonDigest } from "../agent/index.ts";
import type { NodeMastery } from "../core/mastery.ts";

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/** Topics and node titles compared case- and spacing-insensitively. */
export function sameKey(text: string): string {
	return text.trim().replace(/\s+/g, " ").toLowerCase();
}

/** sameKey with a memo (the same few titles recur in thousands of lessons). */
function keyMemo(): (text: string) => string {
	const memo = new Map<string, string>();
	return (text) => {
		let key = memo.get(text);
		if (key === undefined) {
			key = sameKey(text);
			if (memo.size < 100_000) memo.set(text, key);
		}
		return key;
	};
}

/** ISO start times compare as strings (one format, UTC): no date parsing in a sort. */
const byStart = (a: LessonDigest, b: LessonDigest): number =>
	a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0;

/**
 * Whether `a` is a later lesson than `b`: later start, and on the same start the greater session id (the
 * index lists digests in no particular order, so a tie needs a rule of its own for every reader to agree).
 * A digest is not later than itself.
 */
export function laterLesson(a: LessonDigest, b: LessonDigest): boolean {
	return a.startedAt > b.startedAt || (a.startedAt === b.startedAt && a.sessionId > b.sessionId);
}

/** The community at a glance. */
export interface Overview {
	lessons: number;
	lessonsThisWeek: number;
	learners: number;
	learnersThisWeek: number;
	groupLessons: number;
	completed: number;
	answered: number;
	firstTry: number;
	/** Lessons started per week, oldest first, the last `weeks` weeks (the last ends now). */
	perWeek: Array<{ start: string; lessons: number }>;
	/** The topics with most lessons (at most 10). */
	topics: Array<{ topic: string; lessons: number }>;
}

/** Sums over the digests as of `now`. Linear in the digests. */
export function overviewOf(digests: readonly LessonDigest[], now: Date, weeks = 12): Overview {
	const at = now.getTime();
	const learners = new Set<string>();
	const recent = new Set<string>();
	const perWeek = Array.from({ length: weeks }, () => 0);
	const topics = new Map<string, { lessons: number; latest: LessonDigest }>();
	const o = { lessons: 0, lessonsThisWeek: 0, groupLessons: 0, completed: 0, answered: 0, firstTry: 0 };
	for (const d of digests) {
		const started = Date.parse(d.startedAt);
		o.lessons++;
		if (d.mode === "group") o.groupLessons++;
		if (d.outcome === "completed") o.completed++;
		const thisWeek = at - started < WEEK_MS && started <= at;
		if (thisWeek) o.lessonsThisWeek++;
		const week = Math.floor((at - started) / WEEK_MS);
		if (week >= 0 && week < weeks) perWeek[weeks - 1 - week] = (perWeek[weeks - 1 - week] ?? 0) + 1;
		for (const p of d.people) {
			learners.add(p.id);
			if (thisWeek) recent.add(p.id);
			o.answered += p.answered;
			o.firstTry += p.firstTry;
		}
		const key = digestKeys(d).topic;
		const t = topics.get(key) ?? { lessons: 0, latest: d };
		t.lessons++;
		if (laterLesson(d, t.latest)) t.latest = d;
		topics.set(key, t);
	}
	return {
		...o,
		learners: learners.size,
		learnersThisWeek: recent.size,
		perWeek: perWeek.map((lessons, i) => ({
			start: new Date(at - (weeks - i) * WEEK_MS).toISOString().slice(0, 10),
			lessons,
		})),
		topics: [...topics.values()]
			.map(({ lessons, latest }) => ({ topic: latest.topic, lessons }))
			.sort(byMostLessons)
			.slice(0, 10),
	};
}

/** One map node of a topic, over its learners. */
export interface StuckNode {
	label: string;
	learners: number;
	learned: number;
	shaky: number;
	notYet: number;
	/** shaky + notYet. */
	stuck: number;
}

/** One topic's nodes, most stuck first. */
export interface StuckTopic {
	topic: string;
	lessons: number;
	learners: number;
	nodes: StuckNode[];
}

/** Each digest's topic and node keys, computed once per digest (the index reader keeps digests across views). */
const keysOfDigest = new WeakMap<LessonDigest, { topic: string; nodes: string[] }>();
const sharedKeyOf = keyMemo();
export function digestKeys(d: LessonDigest): { topic: string; nodes: string[] } {
	let keys = keysOfDigest.get(d);
	if (!keys) {
		keys = { topic: sharedKeyOf(d.topic), nodes: d.nodes.map((n) => sharedKeyOf(n.label)) };
		keysOfDigest.set(d, keys);
	}
	return keys;
}

/** A node's row from its learners' counts. */
export function stuckNode(label: string, learned: number, shaky: number, notYet: number): StuckNode {
	return { label, learners: learned + shaky + notYet, learned, shaky, notYet, stuck: shaky + notYet };
}

/** Most stuck first (share of learners), then most learners, then by title. */
export const byMostStuck = (a: StuckNode, b: StuckNode): number =>
	b.stuck / Math.max(1, b.learners) - a.stuck / Math.max(1, a.learners) ||
	b.learners - a.learners ||
	a.label.localeCompare(b.label);

/** Most lessons first, then by name. */
export const byMostLessons = (a: { topic: string; lessons: number }, b: { topic: string; lessons: number }): number =>
	b.lessons - a.lessons || a.topic.localeCompare(b.topic);

/**
 * Where learners get stuck, per topic (most lessons first, at most `maxTopics`) and node. Linear in the
 * digests' cells. A topic's and a node's title are those of the latest lesson that has them.
 */
export function stuckOf(digests: readonly LessonDigest[], maxTopics = 30): { topics: StuckTopic[]; more: number } {
	interface NodeAcc {
		label: string;
		labelFrom: LessonDigest;
		/** Per learner: their latest lesson with the node, and its mastery there. */
		by: Map<string, { from: LessonDigest; mastery: NodeMastery }>;
	}
	interface TopicAcc {
		latest: LessonDigest;
		lessons: number;
		learners: Set<string>;
		nodes: Map<string, NodeAcc>;
	}
	const topics = new Map<string, TopicAcc>();
	// No sort: each cell keeps the latest lesson's value.
	for (const d of digests) {
		const keys = digestKeys(d);
		let t = topics.get(keys.topic);
		if (!t) {
			t = { latest: d, lessons: 0, learners: new Set(), nodes: new Map() };
			topics.set(keys.topic, t);
		}
		if (laterLesson(d, t.latest)) t.latest = d;
		t.lessons++;
		for (let i = 0; i < d.nodes.length; i++) {
			const nodeKey = keys.nodes[i] ?? "";
			let n = t.nodes.get(nodeKey);
			if (!n) {
				n = { label: d.nodes[i]?.label ?? "", labelFrom: d, by: new Map() };
				t.nodes.set(nodeKey, n);
			}
			// The first node of that title in the latest lesson names it.
			if (laterLesson(d, n.labelFrom)) {
				n.label = d.nodes[i]?.label ?? n.label;
				n.labelFrom = d;
			}
			for (const p of d.people) {
				const mastery = p.mastery[i] ?? "not-yet";
				const was = n.by.get(p.id);
				// In one lesson, a later node of the same title (or a person listed twice) has the last word.
				if (!was) n.by.set(p.id, { from: d, mastery });
				else if (was.from === d || laterLesson(d, was.from)) {
					was.from = d;
					was.mastery = mastery;
				}
			}
		}
		for (const p of d.people) t.learners.add(p.id);
	}
	const all = [...topics.values()].map((t) => ({ topic: t.latest.topic, lessons: t.lessons, t })).sort(byMostLessons);
	return {
		topics: all.slice(0, maxTopics).map(({ topic, lessons, t }) => ({
			topic,
			lessons,
			learners: t.learners.size,
			nodes: [...t.nodes.values()]
				.map(({ label, by }) => {
					const count = { learned: 0, shaky: 0, "not-yet": 0 };
					for (const { mastery } of by.values()) count[mastery]++;
					return stuckNode(label, count.learned, count.shaky, count["not-yet"]);
				})
				.sort(byMostStuck),
		})),
		more: Math.max(0, all.length - maxTopics),
	};
}

/** Whole percent of `part` in `whole` (0 when whole is 0). */
export function percent(part: number, whole: number): number {
	return whole === 0 ? 0 : Math.round((100 * part) / whole);
}

/** Lessons newest first (the same start: the greater session id first, as laterLesson orders them). */
export function newestFirst(digests: readonly LessonDigest[]): LessonDigest[] {
	return [...digests].sort(
		(a, b) => byStart(b, a) || (a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0),
	);
}

/** One member's page: their lessons here and, per topic, each node with their status in their latest lesson with it. */
export interface LearnerView {
	id: string;
	name?: string;
	/** Newest first. */
	lessons: LessonDigest[];
	/** The latest end (or start, for a lesson without an end) of their lessons. */
	lastActivity?: string;
	answered: number;
	firstTry: number;
	/** Topics by most lessons; nodes not yet learned first (as the stuck view counts them for this learner). */
	topics: Array<{ topic: string; nodes: Array<{ label: string; mastery: NodeMastery }> }>;
}

/** The member `id`'s view over the community's digests; undefined when they have no lesson here. */
export function learnerOf(digests: readonly LessonDigest[], id: string): LearnerView | undefined {
	const mine = newestFirst(digests.filter((d) => d.people.some((p) => p.id === id)));
	const newest = mine[0];
	if (!newest) return undefined;
	const topics = new Map<
		string,
		{
			latest: LessonDigest;
			lessons: number;
			nodes: Map<string, { from: LessonDigest; label: string; mastery: NodeMastery }>;
		}
	>();
	let answered = 0;
	let firstTry = 0;
	let lastActivity = "";
	let name: string | undefined;
	// Oldest first: a later lesson (or, in one lesson, a later node of the same title) has the last word, as in stuckOf.
	for (const d of [...mine].reverse()) {
		const keys = digestKeys(d);
		const t = topics.get(keys.topic) ?? { latest: d, lessons: 0, nodes: new Map() };
		topics.set(keys.topic, t);
		t.lessons++;
		if (laterLesson(d, t.latest)) t.latest = d;
		const at = d.endedAt ?? d.startedAt;
		if (at > lastActivity) lastActivity = at;
		for (const p of d.people) {
			if (p.id !== id) continue;
			answered += p.answered;
			firstTry += p.firstTry;
			if (p.name !== undefined) name = p.name;
			for (let i = 0; i < d.nodes.length; i++) {
				const key = keys.nodes[i] ?? "";
				const was = t.nodes.get(key);
				const mastery = p.mastery[i] ?? "not-yet";
				if (!was || laterLesson(d, was.from)) t.nodes.set(key, { from: d, label: d.nodes[i]?.label ?? "", mastery });
				else if (was.from === d) was.mastery = mastery;
			}
		}
	}
	const order: Record<NodeMastery, number> = { "not-yet": 0, shaky: 1, learned: 2 };
	return {
		id,
		...(name !== undefined ? { name } : {}),
		lessons: mine,
		...(lastActivity ? { lastActivity } : {}),
		answered,
		firstTry,
		topics: [...topics.values()]
			.map((t) => ({ topic: t.latest.topic, lessons: t.lessons, t }))
			.sort(byMostLessons)
			.map(({ topic, t }) => ({
				topic,
				nodes: [...t.nodes.values()]
					.map(({ label, mastery }) => ({ label, mastery }))
					.sort((a, b) => order[a.mastery] - order[b.mastery] || a.label.localeCompare(b.label)),
			})),
	};
}
